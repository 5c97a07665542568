#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extent items gone or wrong: a data extent's item hidden (its key type
# changed to one the extent tree does not use: EXTENT_ITEM_MISSING) is
# restored by the extent tree rebuild, which also recomputes the block
# group's used; a tree block's item hidden the same way gets its single
# item back; an extent item's length grown over the next extent
# (EXTENT_OVERLAP: the engine cannot compute free space) makes the
# rebuild run first, as --init-extent-tree: every finding it fixes names
# the rebuild as its one change, in the plan of --dry-run as in the
# repair, in JSON and in text.  Clean for all three checkers, a second
# repair writes nothing.

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
cp --sparse=always "$img" "$TEST_TMP/overlap-plan.img"
expect_plan_matches "$img"
expect_repaired "$img"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
grep -qx "EXTENT_OVERLAP | rebuild extent tree: items and back references of \[$next [0-9]*\] from the trees (with every other extent)" \
	"$TEST_TMP/changes" || { cat "$TEST_TMP/changes" >&2; fail "the overlap's fix does not name the rebuild"; }
grep -v "^[A-Z_]* | rebuild " "$TEST_TMP/changes" && fail "a change besides the rebuild"
# every finding of the first check is one of the rebuild's fixes
python3 - "$TEST_TMP/repair.json" <<'PY' || fail "a finding without its fix"
import json, sys
doc = json.load(open(sys.argv[1]))
fixed = sorted((f["code"], f["message"]) for f in doc["fixes"] if f["status"] == "fixed")
sys.exit(0 if doc["findings"] and sorted((f["code"], f["message"]) for f in doc["findings"]) == fixed else 1)
PY
python3 "$EDIT" "$img" find 2 "$bytenr" 168 "$len" > /dev/null || fail "the extent item's length is not restored"
expect_second_repair_noop "$img"
# the text: the same fix lines in the plan and in the repair
fix_lines() { sed -n '/^  \(would fix\|fixed\) \[/,/commit/p' "$1" | sed 's/^  would fix /  fixed /; /commit/d'; }
run_expect_status "$CHECK_ERRORS" "$GHEE" check --repair --dry-run "$TEST_TMP/overlap-plan.img" > "$TEST_TMP/plan.out"
img=$TEST_TMP/overlap.img
run_expect_status "$CHECK_CORRECTED" "$GHEE" check --repair "$img" > "$TEST_TMP/text.out"
grep -qx "extent items overlap: the extent tree is rebuilt first (as --init-extent-tree)" "$TEST_TMP/text.out" &&
	grep -q "^  rebuilt the extent tree: " "$TEST_TMP/text.out" &&
	grep -qx "  the trees rebuilt as said above" "$TEST_TMP/text.out" &&
	grep -A1 "^  fixed \[EXTENT_OVERLAP\] " "$TEST_TMP/text.out" |
	grep -q "^    rebuild extent tree: items and back references of \[$next " ||
	{ cat "$TEST_TMP/text.out" >&2; fail "the text report does not say the rebuild"; }
fix_lines "$TEST_TMP/plan.out" > "$TEST_TMP/plan.lines"
fix_lines "$TEST_TMP/text.out" > "$TEST_TMP/text.lines"
[ -s "$TEST_TMP/plan.lines" ] && compare_outputs "$TEST_TMP/plan.lines" "$TEST_TMP/text.lines" ||
	{ cat "$TEST_TMP/plan.out" >&2; fail "the plan's fix lines are not the repair's"; }
