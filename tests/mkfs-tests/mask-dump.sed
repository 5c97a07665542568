# Mask what legitimately differs between two fresh filesystems in
# `btrfs inspect-internal dump-tree` output: addresses (logical and
# physical), UUIDs, times and generations.  Zero UUIDs, times and
# generations stay visible, and so do sizes, counts, item offsets, flags
# and names: two masked dumps are equal when the same trees hold the same
# items.  Use: sed -E -f mask-dump.sed
s/00000000-0000-0000-0000-000000000000/NULL-UUID/g
s/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g
s/[1-9][0-9]*\.[0-9]+ \([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\)/TIME/g
s/^(leaf|node) [0-9]+ /\1 BYTENR /
s/(generation|generation_v2|transid|gen) [1-9][0-9]*/\1 GEN/g
s/(bytenr|block|chunk_offset) [1-9][0-9]*/\1 BYTENR/g
s/(stripe [0-9]+ devid [0-9]+ offset) [0-9]+/\1 PHYS/
s/\(0x[0-9a-f]+ (UUID_KEY_SUBVOL|UUID_KEY_RECEIVED_SUBVOL) 0x[0-9a-f]+\)/(UUIDKEY \1 UUIDKEY)/
s/\([0-9]+ (METADATA_ITEM|EXTENT_ITEM|BLOCK_GROUP_ITEM|FREE_SPACE_INFO|FREE_SPACE_EXTENT|FREE_SPACE_BITMAP) /(BYTENR \1 /g
s/\((FIRST_CHUNK_TREE CHUNK_ITEM|[0-9]+ DEV_EXTENT) [0-9]+\)/(\1 BYTENR)/g
