#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --dry-run runs the repair's own passes and transactions with every write
# held in memory: on a corpus image whose repair takes two phases (an
# orphan dev extent, then orphan free space entries) the plan is the
# repair, change for change and transaction for transaction, the text plan
# names both transactions, and nothing reaches the device -- also when the
# device is a read-only loop device, where the plan is the same again.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3
need_corpus

img=$TEST_TMP/devext.img
cp --sparse=always "$(corpus_image 068-orphan-dev-extent__default)" "$img" || exit
cp --sparse=always "$img" "$TEST_TMP/orig.img"

"$GHEE" check --repair --dry-run "$img" > "$TEST_TMP/plan.txt" 2> "$TEST_TMP/plan.err"
[ $? -eq "$CHECK_ERRORS" ] || { cat "$TEST_TMP/plan.err" >&2; fail "dry run: expected status $CHECK_ERRORS"; }
same_bytes "$img" "$TEST_TMP/orig.img" || fail "the dry run wrote"
grep -q "^  would fix \[DEV_EXTENT_NO_CHUNK\]" "$TEST_TMP/plan.txt" || fail "the dev extent fix is not planned"
grep -q "^  would fix \[FREE_SPACE_ORPHAN\]" "$TEST_TMP/plan.txt" || fail "the free space fix is not planned"
[ "$(grep -c '^would commit transaction' "$TEST_TMP/plan.txt")" -eq 2 ] ||
	{ cat "$TEST_TMP/plan.txt" >&2; fail "the plan does not name two transactions"; }
grep -q "^dry run: 3 fixes planned in 2 transactions, 0 would fail, 0 findings would remain; nothing written" "$TEST_TMP/plan.txt" ||
	{ tail -n 3 "$TEST_TMP/plan.txt" >&2; fail "wrong dry run summary"; }
grep -q "^committed transaction" "$TEST_TMP/plan.txt" && fail "the dry run says it committed"

# the plan, read back as JSON, is what the repair then does
expect_plan_matches "$img"
cp --sparse=always "$TEST_TMP/orig.img" "$img"

# a read-only device: the dry run opens it read-only and plans the same
if [ "$(id -u)" = 0 ] && command -v losetup > /dev/null && losetup -f > /dev/null 2>&1; then
	dev=$(losetup --find --show --read-only "$img") || fail "losetup failed"
	at_exit "detach_file '$img'"
	"$GHEE" check --repair --dry-run --format json "$dev" > "$TEST_TMP/ro.json" 2> "$TEST_TMP/ro.err"
	[ $? -eq "$CHECK_ERRORS" ] || { cat "$TEST_TMP/ro.err" >&2; fail "dry run on a read-only device: unexpected status"; }
	repair_changes "$TEST_TMP/ro.json" > "$TEST_TMP/ro.changes"
	repair_changes "$TEST_TMP/plan.json" > "$TEST_TMP/file.changes"
	[ -s "$TEST_TMP/ro.changes" ] || fail "no plan on the read-only device"
	cmp -s "$TEST_TMP/ro.changes" "$TEST_TMP/file.changes" ||
		{ diff "$TEST_TMP/file.changes" "$TEST_TMP/ro.changes" >&2; fail "the plan on the read-only device differs"; }
	same_bytes "$img" "$TEST_TMP/orig.img" || fail "the dry run on the read-only device wrote"
fi
exit 0
