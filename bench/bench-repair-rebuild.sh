#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-repair-rebuild.sh: `ghee check --repair --init-csum-tree`
# against btrfs-progs 6.19's `btrfs check --repair --init-csum-tree` on the
# 100,000-file benchmark image of bench-dump-tree.sh (same cache,
# $BENCH_CACHE) with its csum tree damaged (the first checksum item moved
# off its data, so the data it covered has no checksums).  Every run works
# on a fresh copy of the damaged image (the copy is not timed); the tools
# alternate, BENCH_RUNS (default 2) runs each.  After the last run of each
# tool its result is judged by ghee check --check-data-csum, btrfs check
# 6.2 and btrfs check 6.19 ("no error found").
#
# --init-extent-tree is not benchmarked: ghee refuses it (not implemented).
#
# Targets against 6.19: median wall time and peak RSS at most 0.25x.
# BENCH_ENFORCE=1 makes a missed target exit 1.  Exit 77: cannot run here.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${BENCH_RUNS:=2}"
PROGS619=${PROGS619:-/work/shared/tools/btrfs-progs-6.19/btrfs}
EDIT=$BENCH_TOP/tests/fsck-tests/lib/btrfs-edit.py
[ -x "$PROGS619" ] || bench_skip "btrfs-progs 6.19 not found at $PROGS619"
ghee=$(bench_ghee)
[ -n "$ghee" ] || bench_skip "no ghee binary"

img=$(bench_build_image) || exit
work=$(mktemp -d "${TMPDIR:-/var/tmp}/ghee-bench-rebuild.XXXXXX") || bench_die "mktemp failed"
trap 'rm -rf "$work"' EXIT

damaged=$work/damaged.img
cp --sparse=always "$img" "$damaged" || bench_die "cannot copy $img"
read -r obj type off < <(python3 "$EDIT" "$damaged" first 7 128) || bench_die "no csum item"
python3 "$EDIT" "$damaged" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 ||
	bench_die "damaging the csum tree failed"
echo "image: $img ($BENCH_NFILES files), csum tree damaged: item at $off moved to 0"
echo "btrfs-progs: $("$PROGS619" --version | head -n1)"

LABELS=("btrfs 6.19 --init-csum-tree" "ghee --init-csum-tree")
CMDS=("$PROGS619 check --repair --force --init-csum-tree" "$ghee check --repair -y --init-csum-tree")

# judge IMG LABEL: all three checkers clean
judge()
{
	local i=$1 label=$2 ok=1

	"$ghee" check --check-data-csum "$i" > "$work/j1" 2>&1 || { ok=0; echo "  $label: ghee check --check-data-csum: errors" >&2; tail -n 5 "$work/j1" >&2; }
	btrfs check --readonly --check-data-csum "$i" > "$work/j2" 2>&1 || { ok=0; echo "  $label: btrfs check 6.2: errors" >&2; tail -n 5 "$work/j2" >&2; }
	"$PROGS619" check --readonly --check-data-csum "$i" > "$work/j3" 2>&1
	grep -q "no error found" "$work/j3" || { ok=0; echo "  $label: btrfs check 6.19: errors" >&2; tail -n 5 "$work/j3" >&2; }
	[ $ok = 1 ] && echo "  $label: result clean for ghee check --check-data-csum, btrfs check 6.2 and 6.19"
	return $((1 - ok))
}

declare -a walls rsss rcs
ret=0
for ((r = 0; r < BENCH_RUNS; r++)); do
	for i in "${!CMDS[@]}"; do
		cp --sparse=always "$damaged" "$work/run.img" || bench_die "copy failed"
		sync
		# shellcheck disable=SC2086
		bench_run1 /dev/null bash -c "exec ${CMDS[i]} $work/run.img < /dev/null"
		walls[i]+=" $BENCH_WALL"
		rsss[i]+=" $BENCH_RSS"
		rcs[i]=$BENCH_RC
		if [ $r -eq $((BENCH_RUNS - 1)) ]; then
			judge "$work/run.img" "${LABELS[i]}" || ret=1
		fi
	done
done
for i in "${!CMDS[@]}"; do
	WALL[i]=$(bench_median ${walls[i]})
	if [[ ${rsss[i]} == *n/a* ]]; then RSS[i]=n/a; else RSS[i]=$(bench_median ${rsss[i]} | cut -d. -f1); fi
	printf '%-30s median %8ss  peak RSS %8s KiB  exit %s  (runs:%s)\n' \
		"${LABELS[i]}" "${WALL[i]}" "${RSS[i]}" "${rcs[i]}" "${walls[i]}"
done
wall_ratio=$(bench_ratio "${WALL[1]}" "${WALL[0]}")
rss_ratio=$(bench_ratio "${RSS[1]}" "${RSS[0]}")
echo "ghee/btrfs-6.19 --init-csum-tree: wall ratio $wall_ratio rss ratio $rss_ratio"
missed=$(awk -v w="$wall_ratio" -v r="$rss_ratio" 'BEGIN {
	m = ""
	if (w == "n/a" || w + 0 > 0.25) m = m " wall " w " > 0.25"
	if (r == "n/a" || r + 0 > 0.25) m = m " rss " r " > 0.25"
	print m }')
if [ -z "$missed" ]; then
	echo "targets (wall <= 0.25x, peak RSS <= 0.25x of btrfs 6.19): met"
else
	echo "targets (wall <= 0.25x, peak RSS <= 0.25x of btrfs 6.19): NOT met:$missed"
	[ "${BENCH_ENFORCE:-0}" = 1 ] && ret=1
fi
exit $ret
