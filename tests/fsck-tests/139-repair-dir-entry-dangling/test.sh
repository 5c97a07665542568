#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a dir entry that points to an inode of which nothing is left:
# the DIR_INDEX of "big" is made a stale entry "Big" for inode 100000 (its
# name and its inode changed; no other copy says "Big").  The entry is
# deleted and the directory's size shrinks by its name; "big" (dir item
# and inode ref, index 4) gets its dir index back in the same pass.  The
# plan of --dry-run matches, all three checkers are clean, a second
# repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
size=$(python3 "$EDIT" "$IMG" get-item 5 "$FS_INO_DIR" 1 0 16 8) || fail "no inode item"
fs_edit set-item 5 "$FS_INO_DIR" 96 4 0 8 100000
fs_edit set-item 5 "$FS_INO_DIR" 96 4 30 1 0x42
expect_fs_codes "$IMG" DIR_ENTRY_DANGLING DIR_INDEX_MISSING
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"DIR_ENTRY_DANGLING | delete root 5 ($FS_INO_DIR DIR_INDEX 4) name Big"
expect_change "$TEST_TMP/repair.json" \
	"DIR_ENTRY_DANGLING | change root 5 ($FS_INO_DIR INODE_ITEM 0) size: $size -> $((size - 3))"
expect_change "$TEST_TMP/repair.json" \
	"DIR_INDEX_MISSING | insert root 5 ($FS_INO_DIR DIR_INDEX 4) name big"
[ "$(python3 "$EDIT" "$IMG" get-item 5 "$FS_INO_DIR" 96 4 0 8)" = "$FS_INO_BIG" ] ||
	fail "the dir index does not point to big's inode"
[ "$(python3 "$EDIT" "$IMG" get-item 5 "$FS_INO_DIR" 1 0 16 8)" = "$size" ] ||
	fail "the directory's size is not back to $size"
expect_second_repair_noop "$IMG"
