#!/bin/bash
# Damage random tree blocks of real images (checksums fixed up so the damage
# reaches the parsers) and run every read-only command on the result: each
# must end in an orderly way, never crash, hang or trip a sanitizer.
source "$TOP/tests/common.sh"
need_progs mkfs.btrfs python3

: "${GHEE_CORRUPT_ROUNDS:=40}"
src=$TEST_TMP/src
mkdir -p "$src/d1/d2"
for i in $(seq 1 300); do printf 'data %d\n' "$i" > "$src/d1/f$i"; done
head -c 300000 /dev/urandom > "$src/d1/d2/big"
for i in $(seq 1 40); do ln "$src/d1/f1" "$src/d1/d2/link$i"; done
ln -s d1/f2 "$src/sym"
base=$TEST_TMP/base.img
truncate -s 300M "$base"
mkfs.btrfs -q -f -n 4096 -m single --rootdir "$src" "$base" >/dev/null ||
	fail "mkfs.btrfs failed"

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
