#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompare.sh RESULTS_DIR
#
# Compare again (compare-checks.sh, with the current ghee and the current
# known-disagreements.sh) every seed of a run-seeds.sh result directory
# whose images were kept, i.e. the disagreements, and rewrite their lines
# in summary.tsv; then print the count line as run-seeds.sh does.  For
# re-judging a long run after a fix without building the filesystems again.

set -u

RES=${1:-}
[ -n "$RES" ] && [ -f "$RES/summary.tsv" ] || { echo "usage: recompare.sh RESULTS_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
while IFS=$'\t' read -r seed result verdicts; do
	dir=$RES/seed-$seed
	if [ -f "$dir/dev1.img" ] || ls "$dir"/dev*.img >/dev/null 2>&1; then
		"$HERE/compare-checks.sh" "$dir" > /dev/null 2>"$dir/compare.err"
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
