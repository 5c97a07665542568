#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-dump-free-space.sh: times `btrfs inspect-internal dump-tree
# -t free-space` against `ghee dump-free-space` (default source, the free
# space tree, with every free extent listed: -x) on the benchmark image of
# bench-check.sh (>= 100,000 files written by the kernel, same cache,
# $BENCH_CACHE); for information also ghee with --histogram and with the
# extent tree as source.  Each command runs once to warm the page cache,
# then BENCH_RUNS (default 3) times, alternating.  Prints median wall
# times, peak RSS and the ratio ghee / progs.
#
# Target: ghee dump-free-space -x at most 0.30x the wall time of progs'
# dump of the free space tree.  BENCH_ENFORCE=1 makes a miss exit 1.
# Exit: 0 ok, 1 a command failed (or a missed target under BENCH_ENFORCE=1),
# 77 the image cannot be built here.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

img=$(bench_build_image) || exit
ghee=$(bench_ghee)
[ -n "$ghee" ] && "$ghee" dump-free-space --help >/dev/null 2>&1 ||
	bench_skip "ghee dump-free-space not available"
echo "image: $img ($(du -h "$img" | cut -f1) allocated, $BENCH_NFILES files)"
echo "btrfs-progs: $(btrfs --version | head -n1)"

BENCH_LABELS=("progs dump-tree -t free-space" "ghee dump-free-space -x"
	      "ghee ... --histogram" "ghee ... --source extents")
BENCH_CMDS=("$(printf '%q ' btrfs inspect-internal dump-tree -t free-space "$img")"
	    "$(printf '%q ' "$ghee" dump-free-space -x "$img")"
	    "$(printf '%q ' "$ghee" dump-free-space --histogram "$img")"
	    "$(printf '%q ' "$ghee" dump-free-space --source extents "$img")")

bench_compare || exit 1
ret=0
for i in "${!RC[@]}"; do
	[ "${RC[i]}" -eq 0 ] && continue
	echo "bench: ${BENCH_LABELS[i]} exit ${RC[i]} on a clean image" >&2
	ret=1
done
for i in 1 2 3; do
	echo "${BENCH_LABELS[i]} / progs ratio: $(bench_ratio "${WALL[i]}" "${WALL[0]}")" \
		"rss ratio: $(bench_ratio "${RSS[i]}" "${RSS[0]}")"
done
ratio=$(bench_ratio "${WALL[1]}" "${WALL[0]}")
if awk -v w="$ratio" 'BEGIN { exit !(w != "n/a" && w + 0 <= 0.30) }'; then
	echo "ratio: $ratio (target <= 0.30x): met"
else
	echo "ratio: $ratio (target <= 0.30x): NOT met"
	[ "${BENCH_ENFORCE:-0}" = 1 ] && ret=1
fi
exit $ret
