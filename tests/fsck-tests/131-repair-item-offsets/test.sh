#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a leaf whose item data no longer lies end to end
# (TREE_BLOCK_INVALID "unexpected item end", the damage of corpus image
# 003-shift-offsets): the data of an item and of every later item of its
# leaf moved down into the free space with their offsets, leaving a gap.
# The data is laid out end to end again (each item keeps its bytes), the
# leaf is copied on write, and ghee check, btrfs check 6.2 and 6.19 are
# clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ino=$((256 + 300))

# leaf_items IMG LEAF: "slot key offset data-hex" of every item of the leaf
leaf_items()
{
	python3 "$EDIT" "$1" leaf-items "$2" | awk '{ print $1, $2, $3, $4, $5, $7 }'
}

img=$(fsck_base_image) || exit
leaf=$(python3 "$EDIT" "$img" leaf-of 5 "$ino" 1 0) || fail "no leaf"
read -r _ slot off _ _ < <(python3 "$EDIT" "$img" find 5 "$ino" 1 0) || fail "no inode item"
leaf_items "$img" "$leaf" | cut -d" " -f2- > "$TEST_TMP/items.before"
last=$(($(wc -l < "$TEST_TMP/items.before") - 1))
# half the leaf's free space (the lowest data offset above the item headers)
low=$(tail -n1 "$TEST_TMP/items.before" | cut -d' ' -f4)
shift=$(((low - 25 * (last + 1)) / 2))
[ "$shift" -ge 8 ] || fail "the leaf has only $((shift * 2)) bytes free"
python3 "$EDIT" "$img" shift-data 5 "$ino" 1 0 "$shift" || fail "edit failed"
expect_code_present "$img" TREE_BLOCK_INVALID "slot=$slot, unexpected item end"
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" \
	"TREE_BLOCK_INVALID | change leaf $leaf items $slot-$last data offset (slot $slot): $((off - shift)) -> $off"
expect_change "$TEST_TMP/repair.json" \
	"TREE_BLOCK_INVALID | rebuild tree 5 block $leaf (level 0): copied to a new address with the current generation"
[ "$(grep -c . "$TEST_TMP/changes")" -eq 2 ] ||
	{ cat "$TEST_TMP/changes" >&2; fail "more than the leaf fix and its copy"; }
new=$(python3 "$EDIT" "$img" leaf-of 5 "$ino" 1 0) || fail "no leaf after the repair"
[ "$new" != "$leaf" ] || fail "the leaf was not copied on write"
# the same items, offsets and bytes as before the damage
leaf_items "$img" "$new" | cut -d" " -f2- > "$TEST_TMP/items.after"
compare_outputs "$TEST_TMP/items.before" "$TEST_TMP/items.after" ||
	fail "the leaf's items differ from the undamaged leaf"
expect_second_repair_noop "$img"
