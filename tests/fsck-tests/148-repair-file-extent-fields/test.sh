#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FILE_EXTENT_INVALID where the right value is known: a file extent's
# generation from the future goes back to the last committed generation;
# a preallocated extent without disk space (a regular extent's type and
# disk_bytenr changed) becomes the regular hole it reads as, and what
# follows from the lost pointer (the unused extent item, nbytes, the
# checksums without an extent) is repaired after it.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# the inode of the first regular file extent item of the fs tree with a
# disk extent of one reference (its key offset 0)
data_inode()
{
	"$GHEE" dump-tree -t 2 "$1" | awk '
		$1 == "refs" && $2 == 1 && $NF == "DATA" { want = 1; next }
		want && /extent data backref root FS_TREE/ { print $7; exit }
		{ want = 0 }'
}

img=$(fsck_base_image) || exit
ino=$(data_inode "$img")
[ -n "$ino" ] || fail "no file with a data extent of its own"
gen=$(python3 "$EDIT" "$img" get-item 5 "$ino" 108 0 0 8) || fail "no file extent"
python3 "$EDIT" "$img" set-item 5 "$ino" 108 0 0 8 1000000 || fail "edit failed"
expect_codes "$img" FILE_EXTENT_INVALID
super_gen=$(python3 "$EDIT" "$img" get-super 72 8)
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "FILE_EXTENT_INVALID | change root 5 ($ino EXTENT_DATA 0) generation: 1000000 -> $super_gen"
[ "$gen" -le "$super_gen" ] || fail "the original generation $gen is newer than the superblock"
expect_second_repair_noop "$img"

# type 2 (prealloc) at byte 20, disk_bytenr at 21
img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" set-item 5 "$ino" 108 0 20 1 2 || fail "edit failed"
python3 "$EDIT" "$img" set-item 5 "$ino" 108 0 21 8 0 || fail "edit failed"
expect_code_present "$img" FILE_EXTENT_INVALID "prealloc extent without disk space"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "FILE_EXTENT_INVALID | change root 5 ($ino EXTENT_DATA 0) type (a hole: no disk space): 2 -> 1"
expect_second_repair_noop "$img"
