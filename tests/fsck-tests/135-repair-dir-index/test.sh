#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a DIR_INDEX damaged in one field, each on a fresh copy of a
# kernel-written image: its name ("two" becomes "Two"), the inode it
# points to (that of "big" becomes 100000) or the key type of its
# location.  The dir item and the inode ref still agree, so the dir index
# becomes their copy again; the damaged copy's own findings (no dir item,
# no inode ref, dangling, invalid) are the same damage and need nothing
# more.  A file type that differs from the inode's mode is set to it.  The plan of --dry-run matches,
# all three checkers are clean, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# the name of "two" (index 3)
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 3 30 1 0x54
expect_fs_codes "$IMG" DIR_INDEX_MISSING DIR_ITEM_MISSING INODE_REF_MISSING
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"DIR_INDEX_MISSING | delete root 5 ($FS_INO_DIR DIR_INDEX 3) name Two inode $FS_INO_TWO"
expect_change "$TEST_TMP/repair.json" \
	"DIR_INDEX_MISSING | insert root 5 ($FS_INO_DIR DIR_INDEX 3) name two inode $FS_INO_TWO"
repair_changes "$TEST_TMP/repair.json" | grep -v "^DIR_INDEX_MISSING " | grep -v "nothing: right" &&
	fail "changes beyond the dir index"
expect_second_repair_noop "$IMG"

# the inode of "big" (index 4)
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 4 0 8 100000
expect_fs_codes "$IMG" DIR_ENTRY_DANGLING DIR_INDEX_MISSING
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"DIR_INDEX_MISSING | delete root 5 ($FS_INO_DIR DIR_INDEX 4) name big inode 100000"
expect_change "$TEST_TMP/repair.json" \
	"DIR_INDEX_MISSING | insert root 5 ($FS_INO_DIR DIR_INDEX 4) name big inode $FS_INO_BIG"
[ "$(python3 "$EDIT" "$IMG" get-item 5 "$FS_INO_DIR" 96 4 0 8)" = "$FS_INO_BIG" ] ||
	fail "the dir index does not point to big's inode again"
expect_second_repair_noop "$IMG"

# the file type of "two" (symlink instead of file)
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 3 29 1 7
expect_fs_codes "$IMG" DIR_ENTRY_MISMATCH
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"DIR_ENTRY_MISMATCH | change root 5 ($FS_INO_DIR DIR_INDEX 3) name two type: 7 -> 1"
expect_second_repair_noop "$IMG"

# the key type of the location of "big" (neither an inode nor a subvolume)
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 4 8 1 0x55
expect_fs_codes "$IMG" DIR_ENTRY_INVALID DIR_INDEX_MISSING
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"DIR_INDEX_MISSING | insert root 5 ($FS_INO_DIR DIR_INDEX 4) name big inode $FS_INO_BIG"
[ "$(python3 "$EDIT" "$IMG" get-item 5 "$FS_INO_DIR" 96 4 8 1)" = 1 ] ||
	fail "the dir index location is not an inode again"
expect_second_repair_noop "$IMG"
