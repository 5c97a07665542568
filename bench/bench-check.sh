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
# Exit: 0 ok, 1 original mode or ghee check failed (the image is clean, so
# any non-zero exit is a failure; a lowmem failure is only reported),
# 77 cannot build the image here.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

img=$(bench_build_image) || exit
ghee=$(bench_ghee)
echo "image: $img ($(du -h "$img" | cut -f1) allocated, $BENCH_NFILES files)"
echo "btrfs-progs: $(btrfs --version | head -n1)"

BENCH_LABELS=("btrfs check (original)" "btrfs check --mode=lowmem")
BENCH_CMDS=("$(printf '%q ' btrfs check --readonly "$img")"
	    "$(printf '%q ' btrfs check --readonly --mode=lowmem "$img")")
if [ -n "$ghee" ] && "$ghee" check --help >/dev/null 2>&1; then
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
	[ "$i" -eq 1 ] || ret=1
done
echo "lowmem/original ratio: $(bench_ratio "${WALL[1]}" "${WALL[0]}")" \
	"rss ratio: $(bench_ratio "${RSS[1]}" "${RSS[0]}")"
if [ ${#BENCH_CMDS[@]} -gt 2 ]; then
	echo "ghee/original ratio: $(bench_ratio "${WALL[2]}" "${WALL[0]}")" \
		"rss ratio: $(bench_ratio "${RSS[2]}" "${RSS[0]}")"
	echo "ghee/lowmem ratio: $(bench_ratio "${WALL[2]}" "${WALL[1]}")" \
		"rss ratio: $(bench_ratio "${RSS[2]}" "${RSS[1]}")"
fi
exit $ret
