#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of an xattr item whose key is not the hash of its name: the key
# of "big"'s user.test changed by one.  The xattr moves to the item of
# its hash with its value; the plan of --dry-run matches, all three
# checkers are clean, a second repair writes nothing, and the value reads
# back through the kernel.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
hash=$(python3 "$EDIT" "$IMG" find 5 "$FS_INO_BIG" 24 | awk '{print $NF}') || fail "no xattr item"
fs_edit set-key 5 "$FS_INO_BIG" 24 "$hash" "$FS_INO_BIG" 24 $((hash + 1))
expect_fs_codes "$IMG" XATTR_INVALID
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"XATTR_INVALID | delete root 5 ($FS_INO_BIG XATTR_ITEM $((hash + 1))) name user.test"
expect_change "$TEST_TMP/repair.json" \
	"XATTR_INVALID | insert root 5 ($FS_INO_BIG XATTR_ITEM $hash) name user.test"
expect_second_repair_noop "$IMG"

if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems &&
   command -v getfattr > /dev/null; then
	mount_image "$IMG" "$TEST_TMP/mnt"
	v=$(getfattr --only-values -n user.test "$TEST_TMP/mnt/d/big" 2>/dev/null)
	umount_image "$TEST_TMP/mnt"
	[ "$v" = value ] || fail "user.test reads back as '$v'"
fi
