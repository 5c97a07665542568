#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# INODE_ITEM_MISSING: the inode item of an inode whose other items are left
# (a lost leaf, the case of corpus image 011-no-inode-item) is deleted from
# a kernel-written image, one at a time: the file /d/big (64 KiB, one
# extent, an xattr), the directory /d, and the root directory of the
# subvolume sv.  The repair inserts a new inode item made from the items
# left: the type from the dir index of its name (or its entries), the link
# count from its names, the size from its extents or entries, nbytes from
# its extents.  The plan of --dry-run matches, ghee check, btrfs check 6.2
# and 6.19 are clean, the kernel reads every file back as before and a
# second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 sha256sum
need_loop
need_kernel_btrfs

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py
DEL=$TOP/tests/fsck-tests/lib/btrfs-del-item.py

# repaired TREE INO CHANGE: the one change, the files as before
repaired()
{
	local tree=$1 ino=$2 change=$3

	expect_fs_codes "$IMG" INODE_ITEM_MISSING
	grep -q "root $tree inode $ino: no inode item" "$TEST_TMP/check.json" ||
		fail "the finding is not about root $tree inode $ino"
	expect_exact_repair "$IMG" "INODE_ITEM_MISSING | $change"
	expect_same_files "$IMG" "$TEST_TMP/sums.before"
}

IMG=$(fs_base_image) || exit
file_sums "$IMG" "$TEST_TMP/sums.before" ro
[ "$(wc -l < "$TEST_TMP/sums.before")" -gt 400 ] || fail "the base image holds too few files"

python3 "$ITEMS" "$IMG" del 5 "$FS_INO_BIG" 1 0 || fail "cannot delete the inode item of big"
repaired 5 "$FS_INO_BIG" \
	"insert root 5 ($FS_INO_BIG INODE_ITEM 0) mode 0100644 nlink 1 size 65536 nbytes 65536"
if command -v getfattr > /dev/null; then
	mount_image "$IMG" "$TEST_TMP/mnt" ro
	v=$(getfattr --only-values -n user.test "$TEST_TMP/mnt/d/big" 2>/dev/null)
	umount_image "$TEST_TMP/mnt"
	[ "$v" = value ] || fail "the xattr of big reads back as '$v'"
fi

# /d holds inline, two and big: 6 + 3 + 3 bytes of names, counted twice
IMG=$(fs_base_image) || exit
python3 "$ITEMS" "$IMG" del 5 "$FS_INO_DIR" 1 0 || fail "cannot delete the inode item of /d"
repaired 5 "$FS_INO_DIR" \
	"insert root 5 ($FS_INO_DIR INODE_ITEM 0) mode 040755 nlink 1 size 24 nbytes 0"

# the subvolume's tree is one leaf: its first item may go
IMG=$(fs_base_image) || exit
python3 "$DEL" "$IMG" 256 256 1 0 || fail "cannot delete the root directory's inode item"
repaired 256 256 "insert root 256 (256 INODE_ITEM 0) mode 040755 nlink 1 size 2 nbytes 0"
exit 0
