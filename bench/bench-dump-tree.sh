#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-dump-tree.sh: `ghee dump-tree` against
# `btrfs inspect-internal dump-tree` on a kernel-written filesystem with
# 100,000+ files (built once, cached in $BENCH_CACHE, default
# /var/tmp/ghee-bench; needs root and loop devices for that first build).
#
# Checks first that both print the same (all but the first line, which
# names the program version), then warms the page cache with one run of
# each and times BENCH_RUNS (default 3) runs of each, alternating.  Prints
# median wall times, peak RSS (GNU time, package `time`) and
# "ratio: X.XX" (ghee / progs wall time) and "rss ratio: X.XX".
# Without a ghee binary (GHEE, default ./ghee) only progs is timed.
#
# Exit: 0 ok, 1 outputs differ or a command failed, 77 cannot build the
# image here.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

img=$(bench_build_image) || exit
ghee=$(bench_ghee)
echo "image: $img ($(du -h "$img" | cut -f1) allocated, $BENCH_NFILES files)"
echo "btrfs-progs: $(btrfs --version | head -n1)"

BENCH_LABELS=("btrfs inspect dump-tree")
BENCH_CMDS=("$(printf '%q ' btrfs inspect-internal dump-tree "$img")")
if [ -n "$ghee" ] && "$ghee" dump-tree --help >/dev/null 2>&1; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/ghee-bench-out.XXXXXX")
	trap 'rm -rf "$out"' EXIT
	btrfs inspect-internal dump-tree "$img" > "$out/progs" 2>/dev/null ||
		bench_die "btrfs inspect-internal dump-tree failed"
	"$ghee" dump-tree "$img" > "$out/ghee" 2>"$out/ghee.err"
	rc=$?
	[ $rc -eq 0 ] || { head "$out/ghee.err" >&2; bench_die "ghee dump-tree exit $rc"; }
	if ! cmp <(tail -n +2 "$out/progs") <(tail -n +2 "$out/ghee"); then
		diff <(tail -n +2 "$out/progs") <(tail -n +2 "$out/ghee") | head -n 20 >&2
		bench_die "outputs differ"
	fi
	echo "outputs identical: $(wc -l < "$out/progs") lines, $(du -h "$out/progs" | cut -f1)"
	rm -rf "$out"
	BENCH_LABELS+=("ghee dump-tree")
	BENCH_CMDS+=("$(printf '%q ' "$ghee" dump-tree "$img")")
else
	echo "ghee dump-tree not available (GHEE=$GHEE): timing btrfs-progs only"
fi

bench_compare || exit 1
[ "${RC[0]}" -eq 0 ] || bench_die "btrfs inspect-internal dump-tree exit ${RC[0]}"
if [ ${#BENCH_CMDS[@]} -gt 1 ]; then
	[ "${RC[1]}" -eq 0 ] || bench_die "ghee dump-tree exit ${RC[1]}"
	echo "ratio: $(bench_ratio "${WALL[1]}" "${WALL[0]}")"
	echo "rss ratio: $(bench_ratio "${RSS[1]}" "${RSS[0]}")"
fi
exit 0
