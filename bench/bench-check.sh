#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-check.sh: times `btrfs check --readonly` (original mode),
# `btrfs check --readonly --mode=lowmem` and, once it exists,
# `ghee check` on the benchmark image of bench-dump-tree.sh (same cache,
# $BENCH_CACHE).  Each command is run once to warm the page cache, then
# BENCH_RUNS (default 3) times, alternating.  Prints median wall times,
# peak RSS and the ratios against the original mode.
#
# Targets of ghee check against the original mode: median wall time at
# most 0.50x and peak RSS at most 0.25x; the last line says whether they
# are met.  BENCH_ENFORCE=1 makes a missed target exit 1.
# BENCH_SKIP_LOWMEM=1 leaves out lowmem mode (about 20 s a run).
#
# Exit: 0 ok, 1 original mode or ghee check failed (the image is clean, so
# any non-zero exit is a failure; a lowmem failure is only reported) or a
# target was missed under BENCH_ENFORCE=1, 77 cannot build the image here.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

img=$(bench_build_image) || exit
ghee=$(bench_ghee)
echo "image: $img ($(du -h "$img" | cut -f1) allocated, $BENCH_NFILES files)"
echo "btrfs-progs: $(btrfs --version | head -n1)"

BENCH_LABELS=("btrfs check (original)")
BENCH_CMDS=("$(printf '%q ' btrfs check --readonly "$img")")
LOWMEM=-1
GHEE_I=-1
if [ "${BENCH_SKIP_LOWMEM:-0}" != 1 ]; then
	LOWMEM=${#BENCH_CMDS[@]}
	BENCH_LABELS+=("btrfs check --mode=lowmem")
	BENCH_CMDS+=("$(printf '%q ' btrfs check --readonly --mode=lowmem "$img")")
fi
if [ -n "$ghee" ] && "$ghee" check --help >/dev/null 2>&1; then
	GHEE_I=${#BENCH_CMDS[@]}
	BENCH_LABELS+=("ghee check")
	BENCH_CMDS+=("$(printf '%q ' "$ghee" check "$img")")
else
	echo "ghee check not available"
fi

bench_compare || exit 1
ret=0
for i in "${!RC[@]}"; do
	[ "${RC[i]}" -eq 0 ] && continue
	echo "bench: ${BENCH_LABELS[i]} exit ${RC[i]} on a clean image" >&2
	# lowmem is only a reference for timing; its verdict is not ours
	[ "$i" -eq "$LOWMEM" ] || ret=1
done
if [ "$LOWMEM" -ge 0 ]; then
	echo "lowmem/original ratio: $(bench_ratio "${WALL[LOWMEM]}" "${WALL[0]}")" \
		"rss ratio: $(bench_ratio "${RSS[LOWMEM]}" "${RSS[0]}")"
fi
if [ "$GHEE_I" -ge 0 ]; then
	wall_ratio=$(bench_ratio "${WALL[GHEE_I]}" "${WALL[0]}")
	rss_ratio=$(bench_ratio "${RSS[GHEE_I]}" "${RSS[0]}")
	echo "ghee/original ratio: $wall_ratio rss ratio: $rss_ratio"
	if [ "$LOWMEM" -ge 0 ]; then
		echo "ghee/lowmem ratio: $(bench_ratio "${WALL[GHEE_I]}" "${WALL[LOWMEM]}")" \
			"rss ratio: $(bench_ratio "${RSS[GHEE_I]}" "${RSS[LOWMEM]}")"
	fi
	missed=$(awk -v w="$wall_ratio" -v r="$rss_ratio" 'BEGIN {
		m = ""
		if (w == "n/a" || w + 0 > 0.50) m = m " wall " w " > 0.50"
		if (r == "n/a" || r + 0 > 0.25) m = m " rss " r " > 0.25"
		print m }')
	if [ -z "$missed" ]; then
		echo "targets (wall <= 0.50x, peak RSS <= 0.25x of original): met"
	else
		echo "targets (wall <= 0.50x, peak RSS <= 0.25x of original): NOT met:$missed"
		[ "${BENCH_ENFORCE:-0}" = 1 ] && ret=1
	fi
fi
exit $ret
