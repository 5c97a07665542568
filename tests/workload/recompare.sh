#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompare.sh RESULTS_DIR
#
# Compare again every seed of a run-seeds.sh result directory and rewrite
# its line in summary.tsv; then print the count line as run-seeds.sh does.
# A seed whose images were kept (the disagreements) is checked again with
# the current ghee; the others are judged again from their saved outputs
# (compare-checks.sh --rejudge), for a change of the comparison or of
# known-disagreements.sh.  Re-judges a long run without building the
# filesystems again.

set -u

RES=${1:-}
[ -n "$RES" ] && [ -f "$RES/summary.tsv" ] || { echo "usage: recompare.sh RESULTS_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
# shellcheck disable=SC2086 # opt is empty or one word
while IFS=$'\t' read -r seed result verdicts; do
	dir=$RES/seed-$seed
	if ls "$dir"/dev*.img >/dev/null 2>&1 || [ -f "$dir/ghee.out" ]; then
		opt=
		ls "$dir"/dev*.img >/dev/null 2>&1 || opt=--rejudge
		"$HERE/compare-checks.sh" $opt "$dir" > /dev/null 2>"$dir/compare.err"
		case $? in
		0)	if grep -q ' known ' "$dir/verdict"; then result=known; else result=agree; fi ;;
		1)	result=disagree ;;
		*)	result=crash ;;
		esac
		verdicts=$(tr '\n' ';' < "$dir/verdict")
	fi
	printf '%s\t%s\t%s\n' "$seed" "$result" "$verdicts"
done < "$RES/summary.tsv" > "$tmp"
cp "$tmp" "$RES/summary.tsv"
awk -F'\t' '{ c[$2]++ } END { printf "seeds %d: agree %d, known %d, disagree %d, crash %d, not-built %d\n",
	NR, c["agree"], c["known"], c["disagree"], c["crash"], c["not-built"] }' "$RES/summary.tsv"
awk -F'\t' '$2 == "disagree" || $2 == "crash"' "$RES/summary.tsv"
