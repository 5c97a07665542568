#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-long.sh [RESULTS_DIR]
#
# The long version of tests/workload-tests, run by hand (root, loop
# devices, btrfs-progs 6.19 in ../shared/tools): GHEE_WORKLOAD_SEEDS
# filesystems (default 200) from seed GHEE_WORKLOAD_FIRST_SEED (default
# 1000), each compared between ghee check and btrfs check 6.19 with and
# without --check-data-csum.  RESULTS_DIR (default
# build/tests/workload-long) gets summary.tsv, disagreements.txt and, for
# each new disagreement, the seed's images.  Ends with the count line and
# the number of seeds per disagreement class.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
: "${BUILDDIR:=$TOP/build}"
export TOP BUILDDIR GHEE=${GHEE:-$BUILDDIR/ghee}
RES=${1:-$BUILDDIR/tests/workload-long}
N=${GHEE_WORKLOAD_SEEDS:-200}
FIRST=${GHEE_WORKLOAD_FIRST_SEED:-1000}

rm -rf "$RES"
start=$(date +%s)
"$HERE/run-seeds.sh" "$RES" $(seq "$FIRST" $((FIRST + N - 1)))
rc=$?
echo "took $(( $(date +%s) - start )) s"
echo "seeds per class (mode, result, class; a disagreement's known classes in parentheses):"
awk -F'\t' '{ n = split($3, v, ";"); for (i = 1; i <= n; i++) {
	m = split(v[i], w, " "); if (w[2] != "known" && w[2] != "disagree" && w[2] != "crash") continue
	paren = 0
	for (j = 3; j <= m; j++) {
		t = w[j]
		if (t == "(known:") { paren = 1; continue }
		sub(/\)$/, "", t)
		c[w[1] " " w[2] " " (paren ? "(" t ")" : t)]++
	} } }
	END { for (k in c) printf "  %5d  %s\n", c[k], k }' "$RES/summary.tsv" | sort -k2
exit $rc
