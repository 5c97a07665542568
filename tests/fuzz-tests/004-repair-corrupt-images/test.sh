#!/bin/bash
# The randomized damage of 003-corrupt-images (random tree blocks of a
# real image damaged, checksums fixed up), then `ghee check --repair` on
# each result: it must end in an orderly way (no crash, hang or sanitizer
# report) and never leave more findings than the check before it found.
source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fuzz-tests/lib/base-image.sh"
need_progs mkfs.btrfs python3

: "${GHEE_REPAIR_ROUNDS:=10}"
base=$TEST_TMP/base.img
make_fuzz_base "$base" 200 20 200000

img=$TEST_TMP/img
bad=0 repaired=0
for round in $(seq 1 "$GHEE_REPAIR_ROUNDS"); do
	cp --sparse=always "$base" "$img"
	python3 "$TOP/tests/fuzz-tests/003-corrupt-images/corrupt.py" "$img" "$((round + 1000))" $((1 + round % 4)) ||
		fail "corrupt.py failed"
	before=$(count_findings "$img" "$TEST_TMP/codes.before")
	timeout 120 "$GHEE" check --repair -q "$img" >/dev/null 2>"$TEST_TMP/err"
	rc=$?
	if _status_is_crash $rc || grep -qE 'Sanitizer|runtime error' "$TEST_TMP/err"; then
		echo "round $round: repair ended with status $rc"
		head -n 20 "$TEST_TMP/err"
		bad=$((bad + 1))
		continue
	fi
	after=$(count_findings "$img" "$TEST_TMP/codes.after")
	new=$(new_structural "$TEST_TMP/codes.before" "$TEST_TMP/codes.after")
	if [ "$before" -ge 0 ] && [ -n "$new" ]; then
		echo "round $round: the repair introduced $new"
		bad=$((bad + 1))
	fi
	if [ "$before" -ge 0 ] && [ "$after" -gt "$before" ]; then
		echo "round $round: $before findings before the repair, $after after"
		bad=$((bad + 1))
	fi
	[ "$after" -eq 0 ] && [ "$before" -gt 0 ] && repaired=$((repaired + 1))
done
[ $bad -eq 0 ] || fail "$bad bad rounds"
echo "$GHEE_REPAIR_ROUNDS rounds, no crash, never more findings; $repaired repaired to clean"
