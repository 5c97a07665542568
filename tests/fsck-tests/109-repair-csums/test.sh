#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the csum tree: a csum item's key moved to 0 (CSUM_NO_EXTENT:
# the item goes; CSUM_MISSING: the checksums are computed from the data,
# which then verifies under --check-data-csum for ghee and btrfs-progs);
# and moved up one sector (the stray tail is cut off the item, the first
# sector's checksum is computed).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$img" first 7 128) || fail "no csum item"
python3 "$EDIT" "$img" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 || fail "edit failed"
expect_codes "$img" CSUM_NO_EXTENT CSUM_MISSING
expect_repaired "$img"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
grep -q "^CSUM_NO_EXTENT | delete csum tree item (EXTENT_CSUM EXTENT_CSUM 0) covering" "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "the stray item is not deleted"; }
grep -q "^CSUM_MISSING | insert csum tree: checksums of \[$off, " "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "the checksums are not computed"; }
run_check_cmd "$GHEE" check --check-data-csum "$img" > /dev/null
btrfs check --readonly --check-data-csum "$img" > "$TEST_TMP/p.out" 2>&1 ||
	{ cat "$TEST_TMP/p.out" >&2; fail "btrfs check --check-data-csum fails after the repair"; }
if [ -n "$PROGS619" ]; then
	"$PROGS619" check --readonly --check-data-csum "$img" 2>&1 | grep -q "no error found" ||
		fail "btrfs check 6.19 --check-data-csum fails after the repair"
fi
expect_second_repair_noop "$img"

img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" set-key 7 "$obj" "$type" "$off" "$obj" "$type" $((off + 4096)) || fail "edit failed"
expect_codes "$img" CSUM_NO_EXTENT CSUM_MISSING
expect_repaired "$img"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
grep -q "^CSUM_NO_EXTENT | change csum tree item (EXTENT_CSUM EXTENT_CSUM $((off + 4096))): checksums of " "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "the stray tail is not cut"; }
grep -qx "CSUM_MISSING | insert csum tree: checksums of \[$off, $((off + 4096))) computed from the data" "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "the first sector's checksum is not computed"; }
