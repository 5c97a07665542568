#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-dump-extents.sh: times `ghee dump-extents --data` (the owner
# path of every data extent resolved: keyed and shared refs, the trees
# that reach each leaf, INODE_REF walks) against `ghee check` on the
# benchmark image of bench-dump-tree.sh / bench-check.sh (100,000 files
# written by the kernel; same cache, $BENCH_CACHE), with
# `btrfs inspect-internal dump-tree -t extent` (the raw items, no
# resolution) as a reference.  Each command runs once to warm the page
# cache, then BENCH_RUNS (default 3) times, alternating.
#
# Targets: dump-extents at most 2.0x the wall time of ghee check, peak RSS
# under 64 MiB; the last line says whether they are met.  BENCH_ENFORCE=1
# makes a missed target exit 1.  The output is checked too: every data
# extent has an owner with a path, none is unresolved.
#
# Exit: 0 ok, 1 a command failed or (BENCH_ENFORCE=1) a target was
# missed, 77 cannot build the image here.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

img=$(bench_build_image) || exit
ghee=$(bench_ghee)
[ -n "$ghee" ] || bench_skip "no ghee binary at $GHEE"
echo "image: $img ($(du -h "$img" | cut -f1) allocated, $BENCH_NFILES files)"

out=$(mktemp "${TMPDIR:-/tmp}"/ghee-bench-de.XXXXXX)
trap 'rm -f "$out"' EXIT
"$ghee" dump-extents --data "$img" > "$out" 2>/dev/null || bench_die "ghee dump-extents failed"
summary=$(tail -n 1 "$out")
echo "dump-extents: $summary"
case $summary in
*", 0 unresolved") ;;
*) bench_die "owners left unresolved" ;;
esac

BENCH_LABELS=("ghee check" "ghee dump-extents --data" "btrfs dump-tree -t extent")
BENCH_CMDS=("$(printf '%q ' "$ghee" check "$img")"
	    "$(printf '%q ' "$ghee" dump-extents --data "$img")"
	    "$(printf '%q ' btrfs inspect-internal dump-tree -t extent "$img")")
bench_compare || exit 1
ret=0
for i in 0 1; do
	[ "${RC[i]}" -eq 0 ] || { echo "bench: ${BENCH_LABELS[i]} exit ${RC[i]}" >&2; ret=1; }
done
wall_ratio=$(bench_ratio "${WALL[1]}" "${WALL[0]}")
echo "dump-extents/check ratio: $wall_ratio, dump-extents peak RSS ${RSS[1]} KiB"
echo "dump-extents/progs dump-tree -t extent ratio: $(bench_ratio "${WALL[1]}" "${WALL[2]}")"
missed=$(awk -v w="$wall_ratio" -v r="${RSS[1]}" 'BEGIN {
	m = ""
	if (w == "n/a" || w + 0 > 2.0) m = m " wall " w " > 2.0"
	if (r == "n/a" || r + 0 >= 65536) m = m " rss " r " KiB >= 64 MiB"
	print m }')
if [ -z "$missed" ]; then
	echo "targets (wall <= 2.0x ghee check, peak RSS < 64 MiB): met"
else
	echo "targets (wall <= 2.0x ghee check, peak RSS < 64 MiB): NOT met:$missed"
	[ "${BENCH_ENFORCE:-0}" = 1 ] && ret=1
fi
exit $ret
