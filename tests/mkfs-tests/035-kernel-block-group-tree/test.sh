#!/bin/bash
# The block group tree: btrfs-progs 6.2 cannot read it, so the kernel and
# ghee judge.  The kernel must mount it read-write without complaint, take
# the workload, and mount it again; ghee's dump-tree must show the block
# group items in tree 11 and none in the extent tree.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_loop
need_kernel_btrfs
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
new_image "$img" 2G
ghee_mkfs -O block-group-tree "$img"
"$GHEE" dump-tree -t 11 "$img" > bgt.out 2>&1 || fail "ghee dump-tree -t 11 failed"
[ "$(grep -c 'BLOCK_GROUP_ITEM' bgt.out)" -eq 3 ] ||
	{ cat bgt.out >&2; fail "the block group tree does not hold 3 block groups"; }
"$GHEE" dump-tree -t extent "$img" > ext.out 2>&1 || fail "ghee dump-tree -t extent failed"
grep -q BLOCK_GROUP_ITEM ext.out && fail "block group items in the extent tree"
"$GHEE" dump-super "$img" | grep -q BLOCK_GROUP_TREE ||
	fail "the superblock does not carry BLOCK_GROUP_TREE"

mkdir -p "$mnt"
attach_devices "$img"
dev=$LOOP_FIRST
dmesg_mark=$(dmesg | wc -l)
mount -t btrfs "$dev" "$mnt" || { dmesg | tail -n 20 >&2; fail "the kernel does not mount it"; }
workload "$mnt" || { umount "$mnt"; fail "workload failed"; }
umount "$mnt" || fail "umount failed"
mount -t btrfs -o ro "$dev" "$mnt" || fail "the kernel does not mount it again"
umount "$mnt"
# only messages about our device: other tests may be logging errors too
dmesg | tail -n +"$((dmesg_mark + 1))" |
	grep -iE "btrfs.*\(device ${dev#/dev/}\).*(error|corrupt|critical)" &&
	fail "the kernel logged btrfs errors"
detach_devices
"$GHEE" dump-tree "$img" > /dev/null 2> err.out || { cat err.out >&2; fail "ghee dump-tree failed after the workload"; }
exit 0
