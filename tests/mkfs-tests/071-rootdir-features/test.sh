#!/bin/bash
# mkfs --rootdir with feature variations: explicit hole extents
# (-O ^no-holes), mixed block groups, the block group tree, quota (the
# top qgroup must count the copied data and trees: all checks verify it),
# --owner/--root-owner, mount points (--one-file-system).  Each image: three checks clean, equal to the
# source; quota and ^no-holes also take the read-write workload.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"

roundtrip "$src" "$img" "$mnt" -O ^no-holes
holes=$(btrfs inspect-internal dump-tree -t 5 "$img" | grep -c "disk byte 0 ")
[ "$holes" -ge 4 ] || fail "-O ^no-holes: $holes explicit hole extents, expected at least 4"
workload "$img" "$mnt"

roundtrip "$src" "$img" "$mnt" -O quota
workload "$img" "$mnt"

roundtrip "$src" "$img" "$mnt" --mixed
roundtrip "$src" "$img" "$mnt" -O block-group-tree

COMPARE_OWNERS="1000:100 0:0" roundtrip "$src" "$img" "$mnt" --owner 1000:100 --root-owner 0:0
new_image "$img" 512M
ghee_mkfs --root-owner 7:8 --rootdir "$src" "$img"
check_all "$img"
mount_image "$img" "$mnt" ro
[ "$(stat -c %u:%g "$mnt")" = 7:8 ] || fail "--root-owner 7:8 not on the top directory"
[ "$(stat -c %u:%g "$mnt/owned/f")" = 1234:5678 ] || fail "--root-owner changed a file's owner"
umount_image "$mnt"
# mount points inside DIR: crossed by default, not with --one-file-system
mkdir -p "$src/inner"
mount -t tmpfs -o size=4m tmpfs "$src/inner" || fail "cannot mount a tmpfs in the tree"
at_exit "umount '$src/inner' 2>/dev/null"
echo "on another filesystem" > "$src/inner/other"
new_image "$img" 512M
ghee_mkfs --rootdir "$src" "$img"
check_all "$img"
mount_image "$img" "$mnt" ro
[ -f "$mnt/inner/other" ] || fail "the mount point inside DIR was not crossed"
umount_image "$mnt"
ghee_mkfs --one-file-system --rootdir "$src" "$img"
check_all "$img"
mount_image "$img" "$mnt" ro
[ -d "$mnt/inner" ] || fail "--one-file-system: the mount point directory is missing"
[ -z "$(ls -A "$mnt/inner")" ] || fail "--one-file-system: the other filesystem was copied"
[ -f "$mnt/f100" ] || fail "--one-file-system: the tree itself is missing"
umount_image "$mnt"
umount "$src/inner"
exit 0
