#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee mkfs against mkfs.btrfs: making a filesystem on a 1 TiB sparse
# image file, same options (-f -q, default profiles and features), timed
# alternately in one run.  Target: ghee takes at most half the time.
#
# usage: bench/bench-mkfs.sh [--runs N] [--size SIZE] [--hyperfine]
#   GHEE=path/to/ghee (default ./ghee), BENCH_RUNS=N (default 15)
#
# Most of either command's time is fsync, which on a shared machine drifts
# with the load, so by default the two commands alternate run by run
# (bench_compare in lib.sh) and the medians are compared.  --hyperfine
# uses hyperfine instead (warmup 3, N runs of one command, then the
# other).  Prints one line per command and finally "ratio: X.XX" (ghee
# median / mkfs.btrfs median).

# lib.sh defaults to 3 runs; fsync times on a busy disk need more
BENCH_RUNS=${BENCH_RUNS:-15}
source "$(dirname "$0")/lib.sh"

SIZE=1T
USE_HYPERFINE=0

while [ $# -gt 0 ]; do
	case "$1" in
	--runs)	BENCH_RUNS=$2; shift ;;
	--size)	SIZE=$2; shift ;;
	--hyperfine) USE_HYPERFINE=1 ;;
	-h|--help) sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*)	bench_die "unknown argument '$1'" ;;
	esac
	shift
done

GHEE_BIN=$(bench_ghee)
[ -n "$GHEE_BIN" ] || bench_skip "ghee not found at $GHEE (set GHEE=)"
"$GHEE_BIN" mkfs --help >/dev/null 2>&1 || bench_skip "$GHEE_BIN has no mkfs"
command -v mkfs.btrfs >/dev/null 2>&1 || bench_skip "mkfs.btrfs not installed"

TMPD=$(mktemp -d /tmp/ghee-bench-mkfs.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT
IMG_G=$TMPD/ghee.img
IMG_P=$TMPD/progs.img
truncate -s "$SIZE" "$IMG_G" "$IMG_P" || bench_die "cannot create $SIZE images"

echo "mkfs of a $SIZE sparse image, $BENCH_RUNS runs each"
CMD_G="$(printf '%q' "$GHEE_BIN") mkfs -f -q $(printf '%q' "$IMG_G")"
CMD_P="mkfs.btrfs -f -q $(printf '%q' "$IMG_P")"

if [ "$USE_HYPERFINE" = 1 ]; then
	command -v hyperfine >/dev/null 2>&1 || bench_skip "hyperfine not installed"
	hyperfine -N --warmup 3 --runs "$BENCH_RUNS" --export-json "$TMPD/h.json" \
		--command-name "ghee mkfs" "$CMD_G" \
		--command-name "mkfs.btrfs" "$CMD_P" > "$TMPD/h.out" 2>&1 ||
		{ cat "$TMPD/h.out" >&2; bench_die "hyperfine failed"; }
	read -r G P < <(python3 - "$TMPD/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join("%.6f" % x["median"] for x in r))
PY
)
	printf '%-14s median %.4fs\n' "ghee mkfs" "$G" "mkfs.btrfs" "$P"
else
	BENCH_CMDS=("$CMD_G" "$CMD_P")
	BENCH_LABELS=("ghee mkfs" "mkfs.btrfs")
	bench_compare
	G=${WALL[0]}
	P=${WALL[1]}
fi
echo "ratio: $(bench_ratio "$G" "$P")"
