#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare-checks.sh OUTDIR
#
# Check the filesystem make-workload-fs.sh built in OUTDIR with ghee check
# and btrfs check 6.19, each with and without --check-data-csum, and
# compare the verdicts.  btrfs check 6.19 is judged by its text (clean is
# "no error found"; it can print "error(s) found" and exit 0); ghee by its
# exit status (0 clean, 4 errors found, 8 could not check).
#
# Writes OUTDIR/ghee{,-csum}.out, OUTDIR/ref{,-csum}.out and OUTDIR/verdict:
# one line per mode,
#   MODE agree clean|errors
#   MODE known CLASS...      a disagreement listed in known-disagreements
#   MODE disagree CLASS...   anything else
# CLASS is ghee:CODE (ghee reports CODE, btrfs check 6.19 is clean),
# ghee:cannot-check, or ref:TEXT (6.19 reports TEXT, ghee is clean).
#
# Exit: 0 every mode agrees or disagrees only in a known way, 1 a new
# disagreement, 2 usage or a checker crashed / timed out, 77 no 6.19.

set -u

OUT=${1:-}
[ -n "$OUT" ] && [ -f "$OUT/devices" ] || { echo "usage: compare-checks.sh OUTDIR" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
: "${BUILDDIR:=$TOP}"
GHEE=${GHEE:-$BUILDDIR/ghee}
REF_DIR=${BTRFS_REF_DIR:-$TOP/../shared/tools/btrfs-progs-6.19}
REF=$REF_DIR/btrfs
CHECK_TIMEOUT=${GHEE_WORKLOAD_CHECK_TIMEOUT:-300}

[ -x "$REF" ] || { echo "SKIP: no btrfs-progs 6.19 at $REF_DIR"; exit 77; }
[ -x "$GHEE" ] || { echo "ghee is not built: $GHEE" >&2; exit 2; }

. "$HERE/known-disagreements.sh"

mapfile -t DEVS < "$OUT/devices"
LOOPS=()

cleanup()
{
	local l

	for l in "${LOOPS[@]}"; do
		"$REF" device scan --forget "$l" >/dev/null 2>&1
		losetup -d "$l" 2>/dev/null
	done
	LOOPS=()
}
trap cleanup EXIT

# btrfs check 6.19 finds the other devices of a filesystem (and a
# sprout's seed) by scanning block devices: give each a read-only loop
ref_devices()
{
	local f l

	if [ ${#DEVS[@]} -eq 1 ] && ! grep -q '^seed=1' "$OUT/tags"; then
		REF_TARGET=${DEVS[0]}
		return 0
	fi
	for f in "${DEVS[@]}"; do
		l=$(losetup --find --show --read-only "$f") || return 1
		LOOPS+=("$l")
	done
	"$REF" device scan "${LOOPS[@]}" >/dev/null 2>&1
	# the last device added is the sprout of a seed, and is the one to open
	if grep -q '^seed=1' "$OUT/tags"; then
		REF_TARGET=${LOOPS[${#LOOPS[@]} - 1]}
	else
		REF_TARGET=${LOOPS[0]}
	fi
}

# ref_error_lines FILE: the lines of a 6.19 check output that are not its
# usual progress and summary lines, i.e. what it found
ref_error_lines()
{
	grep -v -E '^(Opening filesystem to check|Checking filesystem on |UUID: |\[[0-9]/[0-9]\] |found [0-9]+ bytes used, |total (csum|tree|fs tree|extent tree) bytes: |btree space waste bytes: |file data blocks allocated: | referenced [0-9]+|Csum didn.t match|WARNING: (experimental|this option)|NOTE: )' "$1" |
		sed -E 's/^ *referenced [0-9]+//' | grep -v '^$'
}

# ghee_codes FILE: the distinct finding codes ghee reported as errors
ghee_codes()
{
	grep -o -E '^ERROR: \[[A-Z0-9_]+\]' "$1" | sed -E 's/^ERROR: \[(.*)\]/\1/' | sort -u
}

crashed()
{
	[ "$1" -ge 124 ] || [ "$1" -eq 99 ]
}

# compare_mode MODE GHEE_OUT REF_OUT GHEE_RC: one verdict line
compare_mode()
{
	local mode=$1 gout=$2 rout=$3 grc=$4 gclean rclean classes=() c known=1
	local g_other r_other

	if [ "$grc" -eq 0 ]; then
		gclean=1
	elif [ "$grc" -eq 4 ]; then
		gclean=0
	elif [ "$grc" -eq 8 ]; then
		gclean=cannot
	else
		echo "$mode crash ghee exit $grc"
		return 2
	fi
	if grep -q '^no error found' "$rout" || grep -q 'no error found$' "$rout"; then
		rclean=1
	elif grep -q 'error(s) found' "$rout"; then
		rclean=0
	else
		rclean=cannot
	fi

	if [ "$gclean" = cannot ] && [ "$rclean" = cannot ]; then
		echo "$mode agree cannot-check"
		return 0
	fi
	if [ "$gclean" = "$rclean" ]; then
		# both report errors: they must not do so only because one side's
		# finding is the shared mkfs < 6.16 free space orphan and the
		# other's is something else entirely
		if [ "$gclean" = 0 ]; then
			g_other=$(ghee_codes "$gout" | grep -v -x FREE_SPACE_ORPHAN)
			r_other=$(ref_error_lines "$rout" | grep -v -E "$REF_ORPHAN_RE")
			if [ -n "$g_other" ] && [ -z "$r_other" ]; then
				rclean=1
			elif [ -z "$g_other" ] && [ -n "$r_other" ]; then
				gclean=1
			else
				echo "$mode agree errors"
				return 0
			fi
		else
			echo "$mode agree clean"
			return 0
		fi
	fi

	if [ "$gclean" = cannot ]; then
		classes+=("ghee:cannot-check")
	elif [ "$gclean" = 0 ]; then
		for c in $(ghee_codes "$gout" | grep -v -x FREE_SPACE_ORPHAN); do
			classes+=("ghee:$c")
		done
		[ ${#classes[@]} -gt 0 ] || classes+=("ghee:no-code")
	elif [ "$rclean" = cannot ]; then
		classes+=("ref:cannot-check")
	else
		while IFS= read -r c; do
			classes+=("ref:$(ref_class "$c")")
		done < <(ref_error_lines "$rout" | grep -v -E "$REF_ORPHAN_RE" | head -n 5)
		[ ${#classes[@]} -gt 0 ] || classes+=("ref:no-detail")
	fi
	for c in "${classes[@]}"; do
		known_disagreement "$c" "$OUT/tags" "$gout" || known=0
	done
	if [ $known = 1 ]; then
		echo "$mode known ${classes[*]}"
		return 0
	fi
	echo "$mode disagree ${classes[*]}"
	return 1
}

# ref_class LINE: a 6.19 message with its numbers taken out
ref_class()
{
	echo "$1" | sed -E 's/[0-9]+/N/g; s/ +/_/g' | cut -c1-80
}

main()
{
	local mode opt grc rc=0 r

	ref_devices || { echo "cannot attach loop devices" >&2; exit 2; }
	: > "$OUT/verdict"
	for mode in plain csum; do
		opt=
		[ $mode = csum ] && opt=--check-data-csum
		timeout -k 10 "$CHECK_TIMEOUT" "$GHEE" check $opt "${DEVS[@]}" \
			> "$OUT/ghee${opt:+-csum}.out" 2>&1 </dev/null
		grc=$?
		timeout -k 10 "$CHECK_TIMEOUT" "$REF" check --readonly $opt "$REF_TARGET" \
			> "$OUT/ref${opt:+-csum}.out" 2>&1 </dev/null
		r=$?
		if crashed $r; then
			echo "$mode crash btrfs check 6.19 exit $r" >> "$OUT/verdict"
			rc=2
			continue
		fi
		compare_mode $mode "$OUT/ghee${opt:+-csum}.out" "$OUT/ref${opt:+-csum}.out" \
			$grc >> "$OUT/verdict"
		r=$?
		[ $r -gt $rc ] && rc=$r
	done
	cat "$OUT/verdict"
	exit $rc
}

main
