#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-seeds.sh RESULTS_DIR SEED...
#
# For each SEED: build a filesystem with make-workload-fs.sh into
# RESULTS_DIR/seed-SEED, compare ghee check with btrfs check 6.19 on it
# (compare-checks.sh), and append one line to RESULTS_DIR/summary.tsv:
#   seed  result  verdicts
# result is agree, known (only disagreements listed in
# known-disagreements.sh), disagree, crash or not-built.  Every disagreement
# (new or known) goes to RESULTS_DIR/disagreements.txt with the seed, the
# recipe and both checkers' outputs.  The device files are deleted after
# the comparison unless it found a new disagreement or GHEE_WORKLOAD_KEEP=1.
#
# Prints a progress line per seed and a final count line
#   seeds N: agree N, known N, disagree N, crash N, not-built N
# Exit: 0 no new disagreement and no crash, 1 otherwise, 2 usage, 77 the
# machine cannot run the workloads (skip).

set -u

RES=${1:-}
[ -n "$RES" ] && [ $# -ge 2 ] || { echo "usage: run-seeds.sh RESULTS_DIR SEED..." >&2; exit 2; }
shift
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$RES" || exit 2
RES=$(cd "$RES" && pwd)
touch "$RES/summary.tsv" "$RES/disagreements.txt"

declare -A COUNT=([agree]=0 [known]=0 [disagree]=0 [crash]=0 [not-built]=0)

record_disagreement()
{
	local dir=$1 seed=$2 f

	{
		echo "=== seed $seed: $(tr '\n' ';' < "$dir/verdict")"
		echo "--- recipe"
		cat "$dir/recipe"
		echo "--- tags: $(tr '\n' ' ' < "$dir/tags")"
		for f in ghee ref ghee-csum ref-csum; do
			[ -f "$dir/$f.out" ] || continue
			echo "--- $f.out"
			grep -v -E '^\[[0-9]/[0-9]\] ' "$dir/$f.out" | head -n 40
		done
		echo
	} >> "$RES/disagreements.txt"
}

run_one()
{
	local seed=$1 dir=$RES/seed-$1 rc result

	rm -rf "$dir"
	"$HERE/make-workload-fs.sh" "$seed" "$dir" > "$dir.make.log" 2>&1
	rc=$?
	mv -f "$dir.make.log" "$dir/make.log" 2>/dev/null
	if [ $rc -eq 77 ]; then
		cat "$dir/make.log" 2>/dev/null
		return 77
	fi
	if [ $rc -ne 0 ]; then
		result=not-built
		echo "not built (exit $rc): $(tail -n1 "$dir/recipe" 2>/dev/null)" > "$dir/verdict"
	else
		"$HERE/compare-checks.sh" "$dir" > /dev/null 2>"$dir/compare.err"
		rc=$?
		[ $rc -eq 77 ] && { cat "$dir/compare.err"; return 77; }
		case $rc in
		0)	if grep -q ' known ' "$dir/verdict"; then result=known; else result=agree; fi ;;
		1)	result=disagree ;;
		*)	result=crash; cat "$dir/compare.err" >> "$dir/verdict" ;;
		esac
		[ $result = agree ] || record_disagreement "$dir" "$seed"
	fi
	COUNT[$result]=$((COUNT[$result] + 1))
	printf '%s\t%s\t%s\n' "$seed" "$result" "$(tr '\n' ';' < "$dir/verdict")" >> "$RES/summary.tsv"
	echo "seed $seed: $result: $(tr '\n' ';' < "$dir/verdict")"
	case $result in
	disagree|crash) [ "${GHEE_WORKLOAD_KEEP:-1}" = 1 ] || rm -f "$dir"/dev*.img ;;
	*)		[ "${GHEE_WORKLOAD_KEEP:-0}" = 1 ] || rm -f "$dir"/dev*.img ;;
	esac
	return 0
}

n=0
for seed in "$@"; do
	run_one "$seed"
	[ $? -eq 77 ] && exit 77
	n=$((n + 1))
done
echo "seeds $n: agree ${COUNT[agree]}, known ${COUNT[known]}, disagree ${COUNT[disagree]}, crash ${COUNT[crash]}, not-built ${COUNT[not-built]}"
[ "${COUNT[disagree]}" -eq 0 ] && [ "${COUNT[crash]}" -eq 0 ]
