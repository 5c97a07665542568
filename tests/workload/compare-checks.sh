#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare-checks.sh [--rejudge] OUTDIR
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
# CLASS is ghee:CODE (a finding code of ghee), ghee:cannot-check, or
# ref:TEXT (a line of 6.19, numbers as N, hex as X).  Each side's classes
# that known-disagreements.sh lists for this filesystem are set aside;
# the modes disagree when what is left is empty on one side only.  The
# free space tree entries mkfs.btrfs < 6.16 leaves are reported by both
# (ghee FREE_SPACE_ORPHAN): they only have to be on both sides or neither.
#
# --rejudge compares the outputs already in OUTDIR again (after a change
# of this script or of known-disagreements.sh) without running a checker.
#
# Exit: 0 every mode agrees or disagrees only in a known way, 1 a new
# disagreement, 2 usage or a checker crashed / timed out, 77 no 6.19.

set -u

REJUDGE=0
if [ "${1:-}" = --rejudge ]; then
	REJUDGE=1
	shift
fi
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
	grep -v -E '^(ERROR: cannot scan /dev/[a-z0-9]+: |Opening filesystem to check|Checking filesystem on |UUID: |\[[0-9]/[0-9]\] |found [0-9]+ bytes used, |total (csum|tree|fs tree|extent tree) bytes: |btree space waste bytes: |file data blocks allocated: | referenced [0-9]+|Csum didn.t match|WARNING: (experimental|this option)|NOTE: )' "$1" |
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

# side_classes SIDE OUT RC: the finding classes of one checker, one a
# line, the free space orphans mkfs.btrfs < 6.16 leaves left out (both
# checkers report them: agreement, see REF_ORPHAN_RE); "clean" when none
ghee_classes()
{
	local out=$1 rc=$2

	case $rc in
	0)	echo clean ;;
	4)	ghee_codes "$out" | grep -v -x FREE_SPACE_ORPHAN | sed 's/^/ghee:/'
		ghee_codes "$out" | grep -q -x FREE_SPACE_ORPHAN && echo orphans ;;
	8)	echo ghee:cannot-check ;;
	*)	echo "ghee:crash-$rc" ;;
	esac
}

# ref_findings FILE: 6.19's error lines less the orphans and the detail
# lines of a qgroup difference (our:/disk:/diff:); when 6.19 says a
# rescan had not been started the qgroup differences are not errors to it
# (it says "no error found" if nothing else is wrong), so they go too
ref_findings()
{
	local skip_qgroups='^(our|disk|diff):'

	grep -q "^Rescan hasn't been init" "$1" &&
		skip_qgroups="^(our|disk|diff):|^Counts for qgroup id: |^Rescan hasn't been init"
	ref_error_lines "$1" | grep -v -E "$REF_ORPHAN_RE" | grep -v -E "$skip_qgroups"
}

ref_classes()
{
	local out=$1 line

	if grep -q 'no error found$' "$out"; then
		echo clean
	elif grep -q 'error(s) found' "$out"; then
		ref_findings "$out" |
			while IFS= read -r line; do
				echo "ref:$(ref_class "$line")"
			done | sort -u
		ref_error_lines "$out" | grep -q -E "$REF_ORPHAN_RE" && echo orphans
	else
		echo ref:cannot-check
	fi
}

# pair_qgroups GHEE_OUT REF_OUT: when both checkers find the counts of
# the same qgroups wrong they agree: take both classes out of g and r
pair_qgroups()
{
	local gq rq i

	gq=$(grep -o -E '^ERROR: \[QGROUP_COUNTS\] qgroup [0-9]+/[0-9]+' "$1" |
		awk '{ print $NF }' | sort -u)
	rq=$(grep -o -E '^Counts for qgroup id: [0-9]+/[0-9]+' "$2" | awk '{ print $NF }' | sort -u)
	[ -n "$gq" ] && [ "$gq" = "$rq" ] || return 0
	for i in "${!g[@]}"; do
		[ "${g[i]}" = ghee:QGROUP_COUNTS ] && g[i]=paired
	done
	for i in "${!r[@]}"; do
		[ "${r[i]}" = "ref:Counts_for_qgroup_id:_N/N_are_different" ] && r[i]=paired
	done
}

# compare_mode MODE GHEE_OUT REF_OUT GHEE_RC: one verdict line.  Each
# side's classes less the known false alarms of that side must be empty
# on both sides or on neither (then both found real damage: agreement);
# the orphans must be on both sides or on neither.
compare_mode()
{
	local mode=$1 gout=$2 rout=$3 grc=$4 c g=() r=() g_rest=() r_rest=() known=()
	local g_orph=0 r_orph=0 g_clean=0 r_clean=0

	mapfile -t g < <(ghee_classes "$gout" "$grc")
	mapfile -t r < <(ref_classes "$rout")
	pair_qgroups "$gout" "$rout"
	case " ${g[*]} " in *" ghee:crash-"*)
		echo "$mode crash ghee exit $grc"; return 2 ;; esac
	for c in "${g[@]}"; do
		case $c in
		clean)	g_clean=1 ;;
		orphans) g_orph=1 ;;
		paired)	;;
		*)	if known_disagreement "$c" "$OUT/tags" "$gout" "$rout"; then
				known+=("$c")
			else
				g_rest+=("$c")
			fi ;;
		esac
	done
	for c in "${r[@]}"; do
		case $c in
		clean)	r_clean=1 ;;
		orphans) r_orph=1 ;;
		paired)	;;
		*)	if known_disagreement "$c" "$OUT/tags" "$gout" "$rout"; then
				known+=("$c")
			else
				r_rest+=("$c")
			fi ;;
		esac
	done
	# a side that could not check has no say on the orphans
	case " ${g[*]} ${r[*]} " in
	*" ghee:cannot-check "*|*" ref:cannot-check "*) g_orph=$r_orph ;;
	esac
	if [ $g_orph != $r_orph ]; then
		[ $g_orph = 1 ] && c=ghee:FREE_SPACE_ORPHAN || c=ref:free-space-orphan
		echo "$mode disagree $c (one side only)${g_rest[*]:+ ${g_rest[*]}}${r_rest[*]:+ ${r_rest[*]}}"
		return 1
	fi
	# when ghee cannot check (known), there is no verdict to compare
	case " ${known[*]} " in
	*" ghee:cannot-check "*) r_rest=() ;;
	esac
	if [ ${#g_rest[@]} -gt 0 ] && [ ${#r_rest[@]} -gt 0 ]; then
		echo "$mode agree errors"
		return 0
	fi
	if [ ${#g_rest[@]} -gt 0 ] || [ ${#r_rest[@]} -gt 0 ]; then
		echo "$mode disagree ${g_rest[*]}${r_rest[*]}${known[*]:+ (known: ${known[*]})}"
		return 1
	fi
	if [ ${#known[@]} -gt 0 ]; then
		echo "$mode known ${known[*]}"
	elif [ $g_clean = 1 ] && [ $r_clean = 1 ]; then
		echo "$mode agree clean"
	else
		echo "$mode agree errors"
	fi
	return 0
}

# ref_class LINE: a 6.19 message with its numbers taken out
ref_class()
{
	echo "$1" | sed -E 's/0x[0-9a-f]+/X/g; s/[0-9]+/N/g; s/[[:space:]]+/_/g' | cut -c1-80
}

# run_ref OUT [OPT]: btrfs check 6.19; once more when it gave no verdict
# (seen once: "could not check mount status: No such device or address"
# on a busy machine shared with other tests' loop devices)
run_ref()
{
	local out=$1 opt=${2:-} try r

	for try in 1 2 3; do
		timeout -k 10 "$CHECK_TIMEOUT" "$REF" check --readonly $opt "$REF_TARGET" \
			> "$out" 2>&1 </dev/null
		r=$?
		echo $r > "$out.rc"
		grep -q -E 'no error found$|error\(s\) found' "$out" && break
		echo "btrfs check 6.19 gave no verdict (try $try): $(head -n1 "$out")" >&2
		sleep 1
	done
}

# ghee_rc OUT_FILE: the exit status saved beside an output, or (outputs of
# older runs) read from its text
ghee_rc()
{
	if [ -f "$1.rc" ]; then
		cat "$1.rc"
	elif grep -q '^ghee check: cannot check' "$1"; then
		echo 8
	elif grep -q '^ERROR: \[' "$1"; then
		echo 4
	else
		echo 0
	fi
}

main()
{
	local mode opt grc rc=0 r gout rout

	[ "$REJUDGE" = 1 ] || ref_devices || { echo "cannot attach loop devices" >&2; exit 2; }
	: > "$OUT/verdict"
	for mode in plain csum; do
		opt=
		[ $mode = csum ] && opt=--check-data-csum
		gout=$OUT/ghee${opt:+-csum}.out
		rout=$OUT/ref${opt:+-csum}.out
		if [ "$REJUDGE" = 1 ]; then
			grc=$(ghee_rc "$gout")
		else
			timeout -k 10 "$CHECK_TIMEOUT" "$GHEE" check $opt "${DEVS[@]}" \
				> "$gout" 2>&1 </dev/null
			grc=$?
			echo $grc > "$gout.rc"
			run_ref "$rout" $opt
		fi
		r=$(cat "$rout.rc" 2>/dev/null || echo 0)
		if crashed "$r"; then
			echo "$mode crash btrfs check 6.19 exit $r" >> "$OUT/verdict"
			rc=2
			continue
		fi
		compare_mode $mode "$gout" "$rout" "$grc" >> "$OUT/verdict"
		r=$?
		[ $r -gt $rc ] && rc=$r
	done
	cat "$OUT/verdict"
	exit $rc
}

main
