#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extent tree findings without a single-item fix are repaired by
# rebuilding the extent tree from the trees, reported for each finding:
# an inline data back reference's count raised by one (EXTENT_ITEM_INVALID,
# EXTENT_BACKREF_UNUSED), an extent item's refs raised by one
# (EXTENT_REF_MISMATCH, EXTENT_ITEM_INVALID), and a tree block's inline
# back reference naming another root (EXTENT_BACKREF_MISSING,
# EXTENT_BACKREF_UNUSED).  Each time: the plan equals the repair, all
# three checkers are clean afterwards and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

rebuilt()
{
	expect_change "$TEST_TMP/repair.json" "$1 | rebuild extent tree: items and back references of [$2 $3] from the trees (with every other extent)"
}

# the count of the first inline back reference of a data extent: one more
img=$(fsck_base_image) || exit
read -r bytenr _ len < <(python3 "$EDIT" "$img" first 2 168) || fail "no data extent"
python3 "$EDIT" "$img" add-item 2 "$bytenr" 168 "$len" 49 4 1 || fail "edit failed"
expect_codes "$img" EXTENT_ITEM_INVALID EXTENT_BACKREF_UNUSED
expect_plan_matches "$img"
expect_repaired "$img"
rebuilt EXTENT_ITEM_INVALID "$bytenr" "$len"
rebuilt EXTENT_BACKREF_UNUSED "$bytenr" "$len"
expect_second_repair_noop "$img"

# the extent item's refs: one more
img=$(fsck_base_image) || exit
refs=$(python3 "$EDIT" "$img" get-item 2 "$bytenr" 168 "$len" 0 8) || fail "no refs"
python3 "$EDIT" "$img" add-item 2 "$bytenr" 168 "$len" 0 8 1 || fail "edit failed"
expect_codes "$img" EXTENT_ITEM_INVALID EXTENT_REF_MISMATCH
expect_repaired "$img"
rebuilt EXTENT_REF_MISMATCH "$bytenr" "$len"
[ "$(python3 "$EDIT" "$img" get-item 2 "$bytenr" 168 "$len" 0 8)" = "$refs" ] ||
	fail "the rebuilt extent item's refs are not $refs again"
expect_second_repair_noop "$img"

# a tree block's inline TREE_BLOCK_REF names root 7 instead of its owner
img=$(fsck_base_image) || exit
read -r tb _ level < <(python3 "$EDIT" "$img" first 2 169) || fail "no metadata item"
owner=$(python3 "$EDIT" "$img" get-item 2 "$tb" 169 "$level" 25 8) || fail "no inline ref"
[ "$owner" = 7 ] && fail "the first tree block already belongs to the csum tree"
python3 "$EDIT" "$img" set-item 2 "$tb" 169 "$level" 25 8 7 || fail "edit failed"
expect_codes "$img" EXTENT_BACKREF_MISSING EXTENT_BACKREF_UNUSED
expect_plan_matches "$img"
expect_repaired "$img"
rebuilt EXTENT_BACKREF_MISSING "$tb" 16384
[ "$(python3 "$EDIT" "$img" get-item 2 "$tb" 169 "$level" 25 8)" = "$owner" ] ||
	fail "the tree block's back reference is not its owner again"
expect_second_repair_noop "$img"
