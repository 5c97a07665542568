#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a leaf one of whose item headers lost its data offset or its
# size (TREE_BLOCK_INVALID "unexpected item end", the damage of corpus
# image 007-bad-offset-snapshots): its neighbours, each in place, bound
# the gap the item fills, and the field that disagrees with the gap takes
# the gap's boundary.  The leaf is copied on write; ghee check, btrfs
# check 6.2 and 6.19 are clean; the leaf's items are byte for byte what
# they were.
# - a middle slot's data offset overwritten;
# - a middle slot's size grown (its data runs into the previous item's).
# Two neighbouring slots' offsets overwritten bound nothing: the repair
# refuses the leaf and writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ino=$((256 + 300))

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

# leaf_items IMG LEAF: "key offset size data-hex" of every item of the leaf
leaf_items()
{
	python3 "$EDIT" "$1" leaf-items "$2" | awk '{ print $2, $3, $4, $5, $6, $7 }'
}

# damage FIELD(17 offset, 21 size) VALUE WHAT OLD NEW
damage()
{
	local field=$1 value=$2 what=$3 old=$4 new=$5

	edit set-block "$leaf" $((101 + slot * 25 + field)) 4 "$value"
	expect_code_present "$img" TREE_BLOCK_INVALID "slot=$slot, unexpected item end"
	expect_plan_matches "$img"
	expect_repaired "$img"
	expect_change "$TEST_TMP/repair.json" \
		"TREE_BLOCK_INVALID | change leaf $leaf slot $slot $what (the gap its neighbours leave): $old -> $new"
	expect_change "$TEST_TMP/repair.json" \
		"TREE_BLOCK_INVALID | rebuild tree 5 block $leaf (level 0): copied to a new address with the current generation"
	[ "$(grep -c . "$TEST_TMP/changes")" -eq 2 ] ||
		{ cat "$TEST_TMP/changes" >&2; fail "more than the leaf fix and its copy"; }
	new_leaf=$(edit leaf-of 5 "$ino" 1 0)
	[ "$new_leaf" != "$leaf" ] || fail "the leaf was not copied on write"
	leaf_items "$img" "$new_leaf" > "$TEST_TMP/items.after"
	compare_outputs "$TEST_TMP/items.before" "$TEST_TMP/items.after" ||
		fail "the leaf's items differ from the undamaged leaf"
	expect_second_repair_noop "$img"
}

# a slot in the middle of the leaf of the inode item
setup()
{
	img=$(fsck_base_image) || exit
	leaf=$(edit leaf-of 5 "$ino" 1 0)
	leaf_items "$img" "$leaf" > "$TEST_TMP/items.before"
	nr=$(grep -c . "$TEST_TMP/items.before")
	[ "$nr" -ge 5 ] || fail "the leaf has only $nr items"
	slot=$((nr / 2))
	read -r _ _ _ off size _ < <(sed -n "$((slot + 1))p" "$TEST_TMP/items.before")
}

setup
damage 17 $((off + 0x2d0e0000)) "data offset" $((off + 0x2d0e0000)) "$off"

setup
damage 21 $((size + 7)) "data size" $((size + 7)) "$size"

setup
edit set-block "$leaf" $((101 + slot * 25 + 17)) 4 999999
edit set-block "$leaf" $((101 + (slot + 1) * 25 + 17)) 4 888888
expect_code_present "$img" TREE_BLOCK_INVALID "slot=$slot, unexpected item end"
cp --sparse=always "$img" "$TEST_TMP/before.img" || fail "cannot copy the image"
"$GHEE" check --repair --dry-run "$img" > "$TEST_TMP/plan.out" 2>&1
"$GHEE" check --repair "$img" > "$TEST_TMP/repair.out" 2>&1
rc=$?
_status_is_crash $rc && { cat "$TEST_TMP/repair.out" >&2; fail "repair crashed (status $rc)"; }
for out in plan repair; do
	grep -q "^  could not fix \[TREE_BLOCK_INVALID\] tree 5: block $leaf: .*slot=$slot, unexpected item end.*: Structure needs cleaning$" \
		"$TEST_TMP/$out.out" || { grep TREE_BLOCK "$TEST_TMP/$out.out" >&2; fail "$out: the leaf was not refused"; }
	grep -q "data offset\|data size" "$TEST_TMP/$out.out" && fail "$out: a boundary was guessed"
done
cmp -s "$img" "$TEST_TMP/before.img" || fail "the refused repair changed the image"
exit 0
