#!/bin/bash
# Damage random tree blocks of real images (checksums fixed up so the damage
# reaches the parsers) and run every read-only command on the result: each
# must end in an orderly way, never crash, hang or trip a sanitizer.
source "$TOP/tests/common.sh"
source "$TOP/tests/fuzz-tests/lib/base-image.sh"
need_progs mkfs.btrfs python3

: "${GHEE_CORRUPT_ROUNDS:=40}"
base=$TEST_TMP/base.img
make_fuzz_base "$base" 300 40 300000

img=$TEST_TMP/img
crashes=0
for round in $(seq 1 "$GHEE_CORRUPT_ROUNDS"); do
	cp --sparse=always "$base" "$img"
	python3 "$TEST_DIR/corrupt.py" "$img" "$round" $((1 + round % 4)) ||
		fail "corrupt.py failed"
	for cmd in "dump-tree" "dump-tree -e" "dump-tree --format json" \
		   "dump-super -a -f" "check" "check --check-data-csum --format json" \
		   "dump-free-space -x --histogram" \
		   "dump-free-space --source extents --compare tree --format json" \
		   "usage --format json" "tree-stats" \
		   "dump-extents" "dump-extents --format json" \
		   "dump-extents --logical 13631488" "dump-extents --inode 257 --subvol 5" \
		   "map -o $TEST_TMP/map.svg" "map --physical -o $TEST_TMP/map.svg"; do
		# shellcheck disable=SC2086
		timeout 60 "$GHEE" $cmd "$img" >/dev/null 2>"$TEST_TMP/err"
		rc=$?
		if _status_is_crash $rc || grep -qE 'Sanitizer|runtime error' "$TEST_TMP/err"; then
			echo "round $round: 'ghee $cmd' ended with status $rc"
			head -n 20 "$TEST_TMP/err"
			cp "$img" "$CACHE/corrupt-round-$round.img" 2>/dev/null
			crashes=$((crashes + 1))
		fi
	done
done
[ $crashes -eq 0 ] || fail "$crashes crashes (images kept in $CACHE)"
echo "$GHEE_CORRUPT_ROUNDS rounds, no crash"
