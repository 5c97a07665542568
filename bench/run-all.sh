#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the C micro-benchmarks, then print each one's ratio
# (plain / improved, higher is better for the improved way).
#
# usage: bench/run-all.sh [--all] [BUILDDIR]
#   BUILDDIR  a configured build tree to use (make bench runs there);
#             default: a fresh optimised build in a temporary directory,
#             removed afterwards
#   --all     also run the end-to-end bench/bench-*.sh scripts, with the
#             ghee binary of the build (they may need root and images)
#
# A build configured with --enable-sanitizers works but its timings say
# little; the script warns about it.

set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCHES="bench-extent-io-trim bench-free-space-relink bench-merge-before-insert
bench-path-stack bench-contiguous-eb bench-crc32c-lanes"
RUN_SCRIPTS=0
BUILDDIR=
TMPBUILD=

while [ $# -gt 0 ]; do
	case "$1" in
	--all)	RUN_SCRIPTS=1 ;;
	-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*)	echo "run-all.sh: unknown option '$1'" >&2; exit 2 ;;
	*)	BUILDDIR=$1 ;;
	esac
	shift
done

cleanup()
{
	[ -n "$TMPBUILD" ] && rm -rf "$TMPBUILD"
}
trap cleanup EXIT

if [ -z "$BUILDDIR" ]; then
	TMPBUILD=$(mktemp -d /tmp/ghee-bench-build.XXXXXX) || exit 1
	BUILDDIR=$TMPBUILD
	[ -x "$TOP/configure" ] || (cd "$TOP" && autoreconf -fi) || exit 1
	echo "building in $BUILDDIR"
	(cd "$BUILDDIR" && "$TOP/configure" -q) || exit 1
fi
[ -f "$BUILDDIR/Makefile" ] || { echo "run-all.sh: no Makefile in $BUILDDIR" >&2; exit 2; }
if grep -q '^SAN_CFLAGS = .*-fsanitize' "$BUILDDIR/Makefile"; then
	echo "warning: $BUILDDIR is a sanitizer build; timings are not meaningful" >&2
fi
make -s -C "$BUILDDIR" -j"$(nproc)" bench >/dev/null || exit 1

declare -a SUMMARY
status=0
for b in $BENCHES; do
	echo "== $b"
	out=$("$BUILDDIR/bench/$b") || { echo "$b failed" >&2; status=1; continue; }
	echo "$out"
	SUMMARY+=("$(printf '%-28s %s' "$b" "$(echo "$out" | grep '^ratio:')")")
done

if [ "$RUN_SCRIPTS" = 1 ]; then
	for script in "$TOP"/bench/bench-*.sh; do
		[ -x "$script" ] || continue
		name=$(basename "$script" .sh)
		echo "== $name"
		out=$(GHEE="$BUILDDIR/ghee" "$script" 2>&1)
		rc=$?
		echo "$out"
		if [ $rc = 77 ]; then
			SUMMARY+=("$(printf '%-28s skipped' "$name")")
		elif [ $rc != 0 ]; then
			SUMMARY+=("$(printf '%-28s failed' "$name")")
			status=1
		else
			SUMMARY+=("$(printf '%-28s %s' "$name" "$(echo "$out" | grep '^ratio:' | tail -1)")")
		fi
	done
fi

echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
exit $status
