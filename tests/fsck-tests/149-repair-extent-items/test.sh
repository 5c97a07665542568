#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extent items gone or wrong: a data extent's item hidden (its key type
# changed to one the extent tree does not use: EXTENT_ITEM_MISSING) is
# restored by the extent tree rebuild, which also recomputes the block
# group's used; a tree block's item hidden the same way gets its single
# item back; an extent item's length grown over the next extent
# (EXTENT_OVERLAP: the engine cannot compute free space) makes the
# rebuild run first, as --init-extent-tree: that is its one change (no
# action of a finding runs), said in the text report.  Clean for all three
# checkers, a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# "BYTENR LEN NEXT": the first data extent of the fs tree with one ref and
# the start of the data extent after it
data_extents()
{
	"$GHEE" dump-tree -t 2 "$1" | awk '
		/ EXTENT_ITEM / { split($0, k, /[( )]+/); b = k[4]; l = k[6]; refs = 0 }
		$1 == "refs" && $NF == "DATA" {
			if (found) { print fb, fl, b; exit }
			refs = $2
		}
		refs == 1 && /extent data backref root FS_TREE/ { found = 1; fb = b; fl = l }'
}

img=$(fsck_base_image) || exit
read -r bytenr len next < <(data_extents "$img")
[ -n "$next" ] || fail "no two data extents"
python3 "$EDIT" "$img" set-key 2 "$bytenr" 168 "$len" "$bytenr" 167 "$len" || fail "edit failed"
expect_code_present "$img" EXTENT_ITEM_MISSING
expect_code_present "$img" BLOCK_GROUP_USED
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "EXTENT_ITEM_MISSING | rebuild extent tree: items and back references of [$bytenr $len] from the trees (with every other extent)"
python3 "$EDIT" "$img" find 2 "$bytenr" 168 "$len" > /dev/null || fail "the extent item is not back"
expect_second_repair_noop "$img"

img=$(fsck_base_image) || exit
read -r tb _ level < <(python3 "$EDIT" "$img" first 2 169) || fail "no metadata item"
python3 "$EDIT" "$img" set-key 2 "$tb" 169 "$level" "$tb" 170 "$level" || fail "edit failed"
expect_code_present "$img" EXTENT_ITEM_MISSING
expect_repaired "$img"
repair_changes "$TEST_TMP/repair.json" | grep -q "^EXTENT_ITEM_MISSING | insert extent tree item ($tb METADATA_ITEM $level) refs 1, tree block ref root " ||
	{ repair_changes "$TEST_TMP/repair.json" >&2; fail "the tree block's item is not inserted"; }
expect_second_repair_noop "$img"

img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" set-key 2 "$bytenr" 168 "$len" "$bytenr" 168 $((next - bytenr + 4096)) || fail "edit failed"
expect_code_present "$img" EXTENT_OVERLAP
cp --sparse=always "$img" "$TEST_TMP/overlap.img"
expect_repaired "$img"
[ -z "$(repair_changes "$TEST_TMP/repair.json")" ] || fail "an action ran besides the rebuild"
python3 "$EDIT" "$img" find 2 "$bytenr" 168 "$len" > /dev/null || fail "the extent item's length is not restored"
expect_second_repair_noop "$img"
img=$TEST_TMP/overlap.img
run_expect_status "$CHECK_CORRECTED" "$GHEE" check --repair "$img" > "$TEST_TMP/text.out"
grep -qx "extent items overlap: the extent tree is rebuilt first (as --init-extent-tree)" "$TEST_TMP/text.out" &&
	grep -q "^  rebuilt the extent tree: " "$TEST_TMP/text.out" &&
	grep -qx "  the trees rebuilt as said above" "$TEST_TMP/text.out" ||
	{ cat "$TEST_TMP/text.out" >&2; fail "the text report does not say the rebuild"; }
