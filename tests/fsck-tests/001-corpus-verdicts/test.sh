#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The verdict of ghee check on every image of the shared corpus: exit 0 for
# the images whose upstream test asserts a clean check, exit 4 ("errors
# found") for every corrupt or repairable one -- including the nine that
# btrfs-progs 6.2 itself misses -- and never a crash.

source "$TOP/tests/common.sh"
need_corpus

bad=0
total=0
while IFS=$'\t' read -r name expectation; do
	img=$(corpus_image "$name") || fail "cannot restore $name"
	want=$CHECK_ERRORS
	[ "$expectation" = clean ] && want=0
	timeout 300 "$GHEE" check -q --no-progress "$img" > "$TEST_TMP/out" 2>&1
	rc=$?
	total=$((total + 1))
	if _status_is_crash $rc || [ $rc -ne $want ]; then
		echo "WRONG: $name ($expectation): exit $rc, want $want"
		head -n 5 "$TEST_TMP/out"
		bad=$((bad + 1))
	fi
done < <(awk -F'\t' 'NR > 1 && $10 != "unknown" { print $1 "\t" $10 }' "$CORPUS/MANIFEST.tsv")
echo "$((total - bad)) of $total corpus verdicts right"
[ $bad -eq 0 ] || fail "$bad wrong verdicts"
