#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flip one byte of file data on disk.  The metadata is intact, so a plain
# check is clean; --check-data-csum reads the data and reports the sector.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3 btrfs-map-logical

img=$(fsck_base_image) || exit
read -r bytenr _ < <(python3 "$EDIT" "$img" first 2 168) || fail "no data extent"
physical=$(btrfs-map-logical -l "$bytenr" "$img" 2>/dev/null |
	   sed -n 's/.*physical \([0-9]*\).*/\1/p' | head -n 1)
[ -n "$physical" ] || fail "cannot map logical $bytenr"
old=$(dd if="$img" bs=1 skip="$physical" count=1 status=none | od -An -tu1 | tr -d ' ')
printf "\\$(printf '%03o' $(( (old + 1) % 256 )))" |
	dd of="$img" bs=1 seek="$physical" conv=notrunc status=none

run_check_cmd "$GHEE" check -q "$img" >/dev/null
"$GHEE" check -q --check-data-csum "$img" > "$TEST_TMP/check.out" 2>&1
rc=$?
cat "$TEST_TMP/check.out"
[ $rc -eq $CHECK_ERRORS ] || fail "expected exit status $CHECK_ERRORS with --check-data-csum, got $rc"
grep -q "^ERROR: \[DATA_CSUM_MISMATCH\] data at logical $bytenr mirror 1" "$TEST_TMP/check.out" ||
	fail "the damaged sector at $bytenr is not reported"
[ "$(grep -c '^ERROR' "$TEST_TMP/check.out")" -eq 1 ] || fail "more findings than the one damaged sector"
