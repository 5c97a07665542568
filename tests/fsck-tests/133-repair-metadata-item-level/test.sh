#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a skinny metadata item whose level (the key offset) is not a
# level (TREE_ITEM_INVALID, with EXTENT_ITEM_INVALID; the damage of corpus
# image 053-bad-metadata-level): the key takes the level in the header of
# the block it describes, in one change, and ghee check, btrfs check 6.2
# and 6.19 are clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r bytenr type level < <(python3 "$EDIT" "$img" first 2 169) || fail "no metadata item"
[ "$(python3 "$EDIT" "$img" get-block "$bytenr" 100 1)" = "$level" ] ||
	fail "the item's level is not its block's"
python3 "$EDIT" "$img" set-key 2 "$bytenr" "$type" "$level" "$bytenr" "$type" 256 ||
	fail "edit failed"
expect_code_present "$img" TREE_ITEM_INVALID "($bytenr METADATA_ITEM 256): invalid tree level 256"
expect_code_present "$img" EXTENT_ITEM_INVALID "bad backref level"
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" \
	"TREE_ITEM_INVALID | change extent tree ($bytenr METADATA_ITEM 256) key offset (the level of block $bytenr): 256 -> $level"
[ "$(grep -c . "$TEST_TMP/changes")" -eq 1 ] ||
	{ cat "$TEST_TMP/changes" >&2; fail "more than the one change"; }
python3 "$EDIT" "$img" find 2 "$bytenr" "$type" "$level" > /dev/null ||
	fail "the metadata item is not back at level $level"
expect_second_repair_noop "$img"
