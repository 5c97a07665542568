#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of dir entries whose target is wrong, each on a fresh copy:
#  - an entry that points to an inode of which nothing is left: the
#    DIR_INDEX of "big" is made a stale entry "Big" for inode 100000 (its
#    name and its inode changed; no other copy says "Big").  The entry is
#    deleted and the directory's size shrinks by its name; "big" (dir item
#    and inode ref, index 4) gets its dir index back in the same pass;
#  - the directory /d made a regular file by its mode: it still has
#    entries, no file extent, and its parent's entry says directory, so
#    its mode becomes a directory's again (and neither a hole is added to
#    it nor its parent's entry made a file's).
# The plan of --dry-run matches, all three checkers are clean, a second
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

# /d's mode: a regular file
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 1 0 52 4 0o100755
expect_fs_codes "$IMG" DIR_ENTRY_MISMATCH FILE_EXTENT_HOLE INODE_INVALID
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"INODE_INVALID | change root 5 ($FS_INO_DIR INODE_ITEM 0) mode: $((0100755)) -> $((040755))"
repair_changes "$TEST_TMP/repair.json" | grep -v "^INODE_INVALID " | grep -v "nothing: right" &&
	fail "changes beyond the mode"
expect_second_repair_noop "$IMG"
