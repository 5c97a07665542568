#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-repair-rebuild.sh: `ghee check --repair --init-csum-tree` and
# `--init-extent-tree` against btrfs-progs 6.19's same options on the
# 100,000-file benchmark image of bench-dump-tree.sh (same cache,
# $BENCH_CACHE): its csum tree damaged (the first checksum item moved off
# its data, so the data it covered has no checksums), and separately its
# extent tree (a data extent's ref count).  Every run works on a fresh copy
# of the damaged image (the copy is not timed); the tools alternate,
# BENCH_RUNS (default 2) runs each for the csum tree, BENCH_EXTENT_RUNS
# (default 1: 6.19 takes minutes) for the extent tree.  After the last run
# of each tool its result is judged by ghee check --check-data-csum, btrfs
# check 6.2 and btrfs check 6.19 ("no error found").
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

csum_damaged=$work/csum-damaged.img
cp --sparse=always "$img" "$csum_damaged" || bench_die "cannot copy $img"
read -r obj type off < <(python3 "$EDIT" "$csum_damaged" first 7 128) || bench_die "no csum item"
python3 "$EDIT" "$csum_damaged" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 ||
	bench_die "damaging the csum tree failed"

# btrfs-progs 6.19's --init-extent-tree fails on a free space tree (it
# cannot find the refs of that tree's blocks): both tools get a copy
# without it (6.19's --clear-space-cache v2, not timed)
ext_fst=$work/extent-fst.img
ext_damaged=$work/extent-damaged.img
cp --sparse=always "$img" "$ext_fst" || bench_die "cannot copy $img"
read -r dobj _ doff < <(python3 "$EDIT" "$ext_fst" first 2 168) || bench_die "no data extent item"
python3 "$EDIT" "$ext_fst" add-item 2 "$dobj" 168 "$doff" 0 8 1 || bench_die "damaging the extent tree failed"
cp --sparse=always "$ext_fst" "$ext_damaged"
"$PROGS619" check --repair --force --clear-space-cache v2 "$ext_damaged" < /dev/null > /dev/null 2>&1 ||
	bench_die "cannot drop the free space tree of the extent tree copy"

echo "image: $img ($BENCH_NFILES files)"
echo "  csum tree damage: the checksum item at $off moved to 0"
echo "  extent tree damage: refs of the data extent at $dobj + 1 (copy without free space tree)"
echo "btrfs-progs: $("$PROGS619" --version | head -n1)"

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

ret=0

# compare NAME DAMAGED_IMG RUNS: btrfs 6.19 and ghee with --NAME, alternating
compare()
{
	local name=$1 damaged=$2 runs=$3 r i wall_ratio rss_ratio missed
	local -a labels cmds walls rsss rcs wall rss

	labels=("btrfs 6.19 --$name" "ghee --$name")
	cmds=("$PROGS619 check --repair --force --$name" "$ghee check --repair -y --$name")
	for ((r = 0; r < runs; r++)); do
		for i in "${!cmds[@]}"; do
			cp --sparse=always "$damaged" "$work/run.img" || bench_die "copy failed"
			sync
			bench_run1 /dev/null bash -c "exec ${cmds[i]} $work/run.img < /dev/null"
			walls[i]+=" $BENCH_WALL"
			rsss[i]+=" $BENCH_RSS"
			rcs[i]=$BENCH_RC
			if [ $r -eq $((runs - 1)) ]; then
				judge "$work/run.img" "${labels[i]}" || ret=1
			fi
		done
	done
	for i in "${!cmds[@]}"; do
		wall[i]=$(bench_median ${walls[i]})
		if [[ ${rsss[i]} == *n/a* ]]; then rss[i]=n/a; else rss[i]=$(bench_median ${rsss[i]} | cut -d. -f1); fi
		printf '%-30s median %9ss  peak RSS %8s KiB  exit %s  (runs:%s)\n' \
			"${labels[i]}" "${wall[i]}" "${rss[i]}" "${rcs[i]}" "${walls[i]}"
	done
	wall_ratio=$(bench_ratio "${wall[1]}" "${wall[0]}")
	rss_ratio=$(bench_ratio "${rss[1]}" "${rss[0]}")
	echo "ghee/btrfs-6.19 --$name: wall ratio $wall_ratio rss ratio $rss_ratio"
	missed=$(awk -v w="$wall_ratio" -v r="$rss_ratio" 'BEGIN {
		m = ""
		if (w == "n/a" || w + 0 > 0.25) m = m " wall " w " > 0.25"
		if (r == "n/a" || r + 0 > 0.25) m = m " rss " r " > 0.25"
		print m }')
	if [ -z "$missed" ]; then
		echo "targets --$name (wall <= 0.25x, peak RSS <= 0.25x of btrfs 6.19): met"
	else
		echo "targets --$name (wall <= 0.25x, peak RSS <= 0.25x of btrfs 6.19): NOT met:$missed"
		[ "${BENCH_ENFORCE:-0}" = 1 ] && ret=1
	fi
}

compare init-csum-tree "$csum_damaged" "$BENCH_RUNS"
# 6.19 needs minutes here: one run each unless BENCH_EXTENT_RUNS says more
compare init-extent-tree "$ext_damaged" "${BENCH_EXTENT_RUNS:-1}"

# on the image with its free space tree: ghee rebuilds it, 6.19 fails
cp --sparse=always "$ext_fst" "$work/run.img"
"$PROGS619" check --repair --force --init-extent-tree "$work/run.img" < /dev/null > "$work/fst.out" 2>&1
echo "btrfs 6.19 --init-extent-tree with a free space tree: exit $? $(grep -m1 -o 'unable to find ref.*' "$work/fst.out")"
cp --sparse=always "$ext_fst" "$work/run.img"
bench_run1 /dev/null "$ghee" check --repair -y --init-extent-tree "$work/run.img"
echo "ghee --init-extent-tree with a free space tree: exit $BENCH_RC, ${BENCH_WALL}s, peak RSS $BENCH_RSS KiB"
judge "$work/run.img" "ghee --init-extent-tree (free space tree)" || ret=1
exit $ret
