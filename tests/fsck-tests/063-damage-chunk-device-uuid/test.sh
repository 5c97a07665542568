#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One flipped byte (checksums recomputed) in what ties chunks to devices:
# a stripe's dev_uuid in the superblock's sys_chunk_array and in the chunk
# tree, the device item's uuid and fsid, and a chunk's sector_size.  The kernel finds
# devices by devid and uuid and validates sector_size, so it refuses each;
# btrfs check 6.2 and 6.19 report each; ghee must report exactly the damage.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools
need_progs python3

edit=$TOP/tests/fsck-tests/lib/btrfs-edit.py
base=$TEST_TMP/base.img
img=$TEST_TMP/fs.img
kernel_mkfs "$base" 300M
mount_image "$base" "$TEST_TMP/mnt" space_cache=v2
echo data > "$TEST_TMP/mnt/file"
umount_image "$TEST_TMP/mnt" || fail "umount failed"
: > "$TEST_TMP/none"
expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$base"

uuid=$(btrfs inspect-internal dump-super "$base" | sed -n 's/^dev_item.uuid[[:space:]]*//p')
flipped=$(printf '%02x' $((0x${uuid:0:2} ^ 1)))${uuid:2}
chunk_of()	# TYPE-NAME: logical address of the first chunk of that type
{
	btrfs inspect-internal dump-tree -t chunk "$base" |
		awk -v t="$1" '/CHUNK_ITEM/ { l = $6; sub(/\)/, "", l) } $0 ~ "type " t { print l + 0; exit }'
}
sys=$(chunk_of SYSTEM)
meta=$(chunk_of METADATA)
data=$(chunk_of DATA)
[ -n "$sys" ] && [ -n "$meta" ] && [ -n "$data" ] || fail "chunks not found"

flip_item()	# TREE OBJECTID TYPE OFFSET FIELD_OFF: xor 1 into one byte
{
	local v

	v=$(python3 "$edit" "$img" get-item "$@" 1) || fail "no item $*"
	python3 "$edit" "$img" set-item "$@" 1 $((v ^ 1)) || fail "cannot edit $*"
}

# the system chunk's first stripe in sys_chunk_array: array at 811, key 17,
# chunk 48, then devid 8 and offset 8 before dev_uuid
cp "$base" "$img"
off=$((811 + 17 + 48 + 16))
python3 "$edit" "$img" set-super $off 1 $(( $(python3 "$edit" "$img" get-super $off 1) ^ 1 )) ||
	fail "cannot edit the superblock"
echo "ERROR: [CHUNK_STRIPE_DEV_UUID] chunk at logical $sys stripe 0 in the superblock's sys_chunk_array: dev_uuid $flipped, the superblock of device 1 has $uuid" > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok stripe dev_uuid in sys_chunk_array"

# the metadata chunk's first stripe in the chunk tree (dev_uuid at 64)
cp "$base" "$img"
flip_item 3 256 228 "$meta" 64
echo "ERROR: [CHUNK_STRIPE_DEV_UUID] chunk at logical $meta stripe 0 in the chunk tree: dev_uuid $flipped, the superblock of device 1 has $uuid" > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok stripe dev_uuid in the chunk tree"

# the device item's uuid (at 66 of struct btrfs_dev_item)
cp "$base" "$img"
flip_item 3 1 216 1 66
echo "ERROR: [DEV_ITEM_SUPER_MISMATCH] device 1: the device item's uuid $flipped differs from $uuid in the superblock of $img" > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok device item uuid"

# the device item's fsid (at 82): it would name a seed device
cp "$base" "$img"
flip_item 3 1 216 1 82
fsid=$(btrfs inspect-internal dump-super "$base" | sed -n 's/^fsid[[:space:]]*//p')
echo "ERROR: [DEV_ITEM_SUPER_MISMATCH] device 1: the device item's fsid $(printf '%02x' $((0x${fsid:0:2} ^ 1)))${fsid:2} differs from $fsid in the superblock of $img" > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok device item fsid"

# the data chunk's sector_size (at 40 of struct btrfs_chunk) 4096 -> 4097
cp "$base" "$img"
flip_item 3 256 228 "$data" 40
echo "ERROR: [CHUNK_INVALID] chunk at logical $data: sector_size 4097 in the chunk tree, expect 4096 (the sectorsize)" > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok chunk sector_size"
