#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shorten one free space extent of the free space tree by one sector (the
# item key rewritten, checksums fixed, as in fsck-tests/024): ghee
# dump-free-space --compare must name exactly that sector, in text and in
# JSON, and exit 1; the undamaged image has no difference.  Then the same
# image with the free space tree's root block overwritten: the command
# says what it cannot read and does not crash.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
run_check_cmd "$GHEE" dump-free-space --compare extents "$img" > "$TEST_TMP/clean.out"
grep -q "agree" "$TEST_TMP/clean.out" || fail "the clean image shows differences"

read -r start type len < <(python3 "$EDIT" "$img" first 10 199) || fail "no free space extent"
[ "$len" -gt 4096 ] || skip "first free space extent is a single sector"
python3 "$EDIT" "$img" set-key 10 "$start" 199 "$len" "$start" 199 $((len - 4096)) ||
	fail "edit failed"

run_expect_status 1 "$GHEE" dump-free-space --compare extents "$img" > "$TEST_TMP/cmp.out"
cat "$TEST_TMP/cmp.out"
grep -c "free only in" "$TEST_TMP/cmp.out" | grep -qx 1 || fail "not exactly one difference"
grep -q "free only in the extent tree: $((start + len - 4096)) length 4096\$" "$TEST_TMP/cmp.out" ||
	fail "the difference does not name the damaged sector"
grep -q "^1 differences, 4096 bytes" "$TEST_TMP/cmp.out" || fail "no summary line"

run_expect_status 1 "$GHEE" dump-free-space --compare extents --format json "$img" > "$TEST_TMP/cmp.json"
python3 - "$TEST_TMP/cmp.json" $((start + len - 4096)) <<'PY' || fail "JSON does not show exactly the damage"
import json, sys
d = json.load(open(sys.argv[1]))
diffs = d["differences"]
assert d["nr_differences"] == 1 and len(diffs) == 1, diffs
assert diffs[0]["free_only_in"] == "extents", diffs
assert diffs[0]["start"] == int(sys.argv[2]) and diffs[0]["length"] == 4096, diffs
PY

# the other direction gives the same sector
run_expect_status 1 "$GHEE" dump-free-space --source extents --compare tree "$img" > "$TEST_TMP/rev.out"
grep -q "free only in the extent tree: $((start + len - 4096)) length 4096\$" "$TEST_TMP/rev.out" ||
	fail "--source extents --compare tree does not name the sector"

# an unreadable free space tree leaf (its checksum broken in every copy):
# a message naming the tree, no crash
leaf=$(python3 "$EDIT" "$img" leaf-of 10 "$start" 199 $((len - 4096))) || fail "leaf-of failed"
python3 "$EDIT" "$img" break-csum "$leaf" || fail "break-csum failed"
run_mustfail_cmd "$GHEE" dump-free-space --source tree "$img" > /dev/null 2> "$TEST_TMP/bad.err"
cat "$TEST_TMP/bad.err"
grep -q "free space tree" "$TEST_TMP/bad.err" || fail "no message names the free space tree"
run_mustfail_cmd "$GHEE" dump-free-space --compare extents "$img" > /dev/null 2>&1
# usage does not need that tree: it prints everything, the exit status says
# that something could not be read
run_mustfail_cmd "$GHEE" usage -b "$img" > "$TEST_TMP/usage.out" 2>/dev/null
grep -q "^Data,single" "$TEST_TMP/usage.out" || fail "usage printed nothing"
run_mustfail_cmd "$GHEE" tree-stats -t free-space "$img" > /dev/null 2>&1
exit 0
