#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repairs of csum items themselves, judged by the data: a csum item's key
# moved back one sector into the item before (CSUM_OVERLAP: the moved item
# matches the data nowhere and goes whole, its data's checksums are then
# computed), and a csum item's key offset made unaligned (CSUM_ITEM_INVALID:
# the checksums match the data at the sector below, the key goes back).
# Data checksums verify afterwards for all three checkers.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

CSUM_OBJ=18446744073709551606

# "OFFSET END" of every csum item
csum_items()
{
	"$GHEE" dump-tree -t 7 "$1" | awk '/range start/ { print $3, $5 }'
}

all_verify()
{
	run_check_cmd "$GHEE" check --check-data-csum "$1" > /dev/null
	btrfs check --readonly --check-data-csum "$1" > "$TEST_TMP/p.out" 2>&1 ||
		{ cat "$TEST_TMP/p.out" >&2; fail "btrfs check --check-data-csum fails after the repair"; }
	if [ -n "$PROGS619" ]; then
		"$PROGS619" check --readonly --check-data-csum "$1" 2>&1 | grep -q "no error found" ||
			fail "btrfs check 6.19 --check-data-csum fails after the repair"
	fi
}

img=$(fsck_base_image) || exit
mapfile -t items < <(csum_items "$img")
[ ${#items[@]} -ge 3 ] || fail "the base image has fewer than 3 csum items"
read -r _ end1 <<< "${items[1]}"
read -r start2 _ <<< "${items[2]}"
python3 "$EDIT" "$img" set-key 7 $CSUM_OBJ 128 "$start2" $CSUM_OBJ 128 $((end1 - 4096)) || fail "edit failed"
expect_code_present "$img" CSUM_OVERLAP
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "CSUM_OVERLAP | delete csum tree item (EXTENT_CSUM EXTENT_CSUM $((end1 - 4096))) covering $(( $(echo "${items[2]}" | awk '{ print $2 - $1 }') )) bytes"
all_verify "$img"
expect_second_repair_noop "$img"

img=$(fsck_base_image) || exit
read -r start1 _ <<< "${items[1]}"
python3 "$EDIT" "$img" set-key 7 $CSUM_OBJ 128 "$start1" $CSUM_OBJ 128 $((start1 + 1)) || fail "edit failed"
expect_code_present "$img" CSUM_ITEM_INVALID
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "CSUM_ITEM_INVALID | change csum tree item ($CSUM_OBJ EXTENT_CSUM $((start1 + 1))) key offset (its checksums match the data there): $((start1 + 1)) -> $start1"
all_verify "$img"
expect_second_repair_noop "$img"
