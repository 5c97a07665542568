#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --check-data-csum verifies data on one thread per CPU, but its findings
# come in csum tree order and are the same from run to run.  Corpus image
# 012-leaf-corruption__good keeps the metadata of its filesystem but not
# the data, so every checksummed sector is a mismatch: hundreds of
# findings spread over many jobs.

source "$TOP/tests/common.sh"

img=$(corpus_image 012-leaf-corruption__good) || exit
for run in 1 2 3 4; do
	"$GHEE" check -q --check-data-csum "$img" > "$TEST_TMP/run$run.out" 2>&1
	rc=$?
	_status_is_crash $rc && fail "crash or sanitizer error (status $rc)"
	[ $rc -eq $CHECK_ERRORS ] || fail "expected exit status $CHECK_ERRORS, got $rc"
done
n=$(grep -c '^ERROR: \[DATA_CSUM_MISMATCH\]' "$TEST_TMP/run1.out")
[ "$n" -ge 100 ] || fail "expected hundreds of data checksum findings, got $n"
for run in 2 3 4; do
	cmp -s "$TEST_TMP/run1.out" "$TEST_TMP/run$run.out" ||
		{ diff "$TEST_TMP/run1.out" "$TEST_TMP/run$run.out" | head >&2; fail "run $run differs from run 1"; }
done
# ascending logical address, mirrors ascending within one address
sed -n 's/^ERROR: \[DATA_CSUM_MISMATCH\] data at logical \([0-9]*\) mirror \([0-9]*\):.*/\1 \2/p' \
	"$TEST_TMP/run1.out" > "$TEST_TMP/order"
sort -n -k1,1 -k2,2 -c "$TEST_TMP/order" 2>/dev/null ||
	fail "findings not in ascending logical order"
