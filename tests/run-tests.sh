#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run ghee's test suite: the Check unit tests, then every image test
# tests/{cli,misc,mkfs,fsck,fuzz,workload}-tests/NNN-name/test.sh in that order.
#
# usage: tests/run-tests.sh [--builddir DIR] [--filter GLOB] [--sanitizers]
#                           [--timeout SEC] [--jobs N]
#
#   --builddir DIR  the build tree holding ./ghee and tests/unit/unit-tests
#                   (default: the current directory if it holds a built
#                   ghee, else the source tree)
#   --filter GLOB   run only the tests whose name (cli-tests/001-help,
#                   unit/csum) or short name (001-help, csum) matches GLOB
#   --sanitizers    strict ASan/UBSan settings, longer Check timeouts; use
#                   with a tree configured with --enable-sanitizers
#   --timeout SEC   time limit of one image test (default 300, or
#                   $GHEE_TEST_TIMEOUT)
#   --jobs N        image tests run side by side (default: the number of
#                   CPUs, or $GHEE_SUITE_JOBS); a test whose test.sh has
#                   the line "# ghee-test: exclusive" runs alone.  Results
#                   are printed in test order all the same.
#
# Every unit test function counts as one result; every test.sh counts as
# one.  A test.sh exits 0 (pass), 77 (skip, after printing "SKIP: reason")
# or anything else (fail).  Logs go to BUILDDIR/tests/results/.  The last
# line printed is always "N passed, N failed, N skipped"; the exit status
# is 1 when anything failed.
#
# GHEE_SHARE_CACHE=DIR: another build's test cache (./run-tests.sh
# --sanitizers passes build/tests/cache); the parts that do not depend on
# the build (restored corpus images, kernel-written images, the
# fault-injection and libFuzzer builds of the same sources) are used
# through symlinks instead of being made again.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILDDIR=
FILTER=
SANITIZERS=0
TIMEOUT=${GHEE_TEST_TIMEOUT:-300}
JOBS=${GHEE_SUITE_JOBS:-}
CATEGORIES="cli misc mkfs fsck fuzz workload"
# exit code sanitizers use, so tests can tell a sanitizer report from an
# ordinary failure exit
SAN_EXITCODE=99

NR_PASS=0
NR_FAIL=0
NR_SKIP=0
FAILED_NAMES=()

usage()
{
	sed -n '/^# usage:/,/^# Every/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}

parse_args()
{
	while [ $# -gt 0 ]; do
		case "$1" in
		--builddir)	BUILDDIR=${2:?--builddir needs a directory}; shift ;;
		--builddir=*)	BUILDDIR=${1#*=} ;;
		--filter)	FILTER=${2:?--filter needs a glob}; shift ;;
		--filter=*)	FILTER=${1#*=} ;;
		--sanitizers)	SANITIZERS=1 ;;
		--timeout)	TIMEOUT=${2:?--timeout needs seconds}; shift ;;
		--timeout=*)	TIMEOUT=${1#*=} ;;
		--jobs)		JOBS=${2:?--jobs needs a number}; shift ;;
		--jobs=*)	JOBS=${1#*=} ;;
		-h|--help)	usage; exit 0 ;;
		*)		echo "run-tests.sh: unknown argument '$1'" >&2
				usage >&2; exit 2 ;;
		esac
		shift
	done
}

pick_builddir()
{
	if [ -z "$BUILDDIR" ]; then
		if [ -x "$PWD/ghee" ] && [ -f "$PWD/Makefile" ]; then
			BUILDDIR=$PWD
		else
			BUILDDIR=$TOP
		fi
	fi
	if ! BUILDDIR=$(cd "$BUILDDIR" 2>/dev/null && pwd); then
		echo "run-tests.sh: no build directory '$BUILDDIR'" >&2
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
}

setup_env()
{
	local corpus=${GHEE_CORPUS:-$TOP/../shared/corpus}

	[ -d "$corpus" ] && corpus=$(cd "$corpus" && pwd)
	export TOP BUILDDIR
	export GHEE=$BUILDDIR/ghee
	export CORPUS=$corpus
	export CACHE=${GHEE_CACHE:-$BUILDDIR/tests/cache}
	export RESULTS=$BUILDDIR/tests/results
	export LC_ALL=C TZ=UTC
	export GHEE_TEST_TIMEOUT=$TIMEOUT
	export ASAN_OPTIONS="exitcode=$SAN_EXITCODE${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="exitcode=$SAN_EXITCODE:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
	export GHEE_SAN_EXITCODE=$SAN_EXITCODE
	if [ "$SANITIZERS" = 1 ]; then
		export GHEE_SANITIZERS=1
		ASAN_OPTIONS+=":detect_leaks=1:halt_on_error=1:abort_on_error=0"
		ASAN_OPTIONS+=":check_initialization_order=1:strict_init_order=1"
		UBSAN_OPTIONS+=":halt_on_error=1"
		export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}
	fi
	mkdir -p "$CACHE"
	share_cache
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS"
}

# link the build-independent parts of $GHEE_SHARE_CACHE into $CACHE
share_cache()
{
	local src=${GHEE_SHARE_CACHE:-} d

	[ -n "$src" ] && [ -d "$src" ] || return 0
	src=$(cd "$src" && pwd)
	[ "$src" = "$(cd "$CACHE" && pwd)" ] && return 0
	for d in corpus images fsck-extents fsck-fs-trees mkfs-fault-build fuzz; do
		[ -d "$src/$d" ] || mkdir -p "$src/$d" || continue
		[ -e "$CACHE/$d" ] || [ -L "$CACHE/$d" ] || ln -s "$src/$d" "$CACHE/$d"
	done
}

print_header()
{
	echo "ghee tests: builddir $BUILDDIR"
	echo "corpus: $CORPUS$([ -d "$CORPUS" ] || echo ' (absent)')"
	[ -x "$GHEE" ] || echo "warning: $GHEE is not built; image tests will fail"
	if [ "$SANITIZERS" = 1 ] && [ -x "$GHEE" ] &&
	   ! grep -q __asan_init "$GHEE" 2>/dev/null; then
		echo "warning: --sanitizers given but $GHEE is not built with ASan"
	fi
}

# true when the test named $1 (short name $2) is selected by --filter
selected()
{
	[ -z "$FILTER" ] && return 0
	# shellcheck disable=SC2053
	[[ $1 == $FILTER || $2 == $FILTER ]]
}

record_pass()
{
	NR_PASS=$((NR_PASS + 1))
	echo "PASS  $1${2:+ ($2)}"
}

record_skip()
{
	NR_SKIP=$((NR_SKIP + 1))
	echo "SKIP  $1: ${2:-no reason given}"
}

# record_fail NAME REASON [LOG]: the log's tail goes with the failure
record_fail()
{
	NR_FAIL=$((NR_FAIL + 1))
	FAILED_NAMES+=("$1")
	echo "FAIL  $1: $2"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		echo "----- last 30 lines of $3"
		tail -n 30 "$3"
		echo "-----"
	fi
}

# one TAP line of Check: "ok 3 - FILE:TCASE:TEST: MESSAGE"
record_tap_line()
{
	local suite=$1 line=$2 log=$3 rest tcase test msg

	rest=${line#* - }
	rest=${rest#*:}
	tcase=${rest%%:*}
	rest=${rest#*:}
	test=${rest%%:*}
	msg=${rest#*:}
	msg=${msg# }
	case "$line" in
	"ok "*)		record_pass "unit/$suite/$tcase/$test" ;;
	"not ok "*)	record_fail "unit/$suite/$tcase/$test" "$msg" ;;
	esac
}

run_unit_suite()
{
	local unit=$1 suite=$2
	local log=$RESULTS/unit/$2.log tap=$RESULTS/unit/$2.tap
	local rc nr_failed=$NR_FAIL line

	mkdir -p "$RESULTS/unit"
	(cd "$TMPDIR_BASE" && exec timeout -k 10 "$TIMEOUT" "$unit" --tap "$tap" "$suite") \
		>"$log" 2>&1 </dev/null
	rc=$?
	if [ -f "$tap" ]; then
		while IFS= read -r line; do
			record_tap_line "$suite" "$line" "$log"
		done < "$tap"
	fi
	if [ "$NR_FAIL" -gt "$nr_failed" ]; then
		echo "----- last 30 lines of $log"
		tail -n 30 "$log"
		echo "-----"
	elif [ "$rc" -ne 0 ]; then
		# the runner itself died, or no TAP file was written
		record_fail "unit/$suite" "unit-tests exited with status $rc" "$log"
	fi
}

run_unit_tests()
{
	local unit=$BUILDDIR/tests/unit/unit-tests suite suites

	if [ ! -x "$unit" ]; then
		selected unit unit &&
			record_skip unit "$unit not built (is Check installed?)"
		return
	fi
	if ! suites=$("$unit" --list 2>&1); then
		record_fail unit "unit-tests --list failed: $suites"
		return
	fi
	for suite in $suites; do
		selected "unit/$suite" "$suite" || continue
		run_unit_suite "$unit" "$suite"
	done
}

# unmount and detach whatever a killed test left behind in its temp dir
cleanup_test_tmp()
{
	local dir=$1 mnt dev back

	awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
	while read -r mnt; do
		umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	done
	if command -v losetup >/dev/null; then
		losetup -n -l -O NAME,BACK-FILE 2>/dev/null |
		while read -r dev back; do
			case "$back" in
			"$dir"/*) losetup -d "$dev" 2>/dev/null ;;
			esac
		done
	fi
	rm -rf --one-file-system "$dir"
}

skip_reason()
{
	grep -m1 -o 'SKIP: .*' "$1" 2>/dev/null | sed 's/^SKIP: //'
}

# exec_image_test DIR NAME STATUS-FILE: run one test.sh; its result goes
# to STATUS-FILE as "RC SECONDS" (run in the background with --jobs)
exec_image_test()
{
	local dir=$1 name=$2 status=$3 base log tmp rc start ms

	base=$(basename "$dir")
	log=$RESULTS/$name.log
	mkdir -p "$(dirname "$log")"
	tmp=$(mktemp -d "$TMPDIR_BASE/$base.XXXXXX")
	start=$(date +%s%N)
	(cd "$tmp" && TEST_TMP=$tmp TEST_DIR=$dir TEST_NAME=$name \
		exec timeout -k 10 "$TIMEOUT" bash "$dir/test.sh") >"$log" 2>&1 </dev/null
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	cleanup_test_tmp "$tmp"
	printf '%d %d.%01ds\n' $rc $((ms / 1000)) $((ms % 1000 / 100)) > "$status.tmp"
	mv -f "$status.tmp" "$status"
}

# report_image_test NAME STATUS-FILE: count and print a finished test
report_image_test()
{
	local name=$1 rc secs log=$RESULTS/$1.log

	read -r rc secs < "$2"
	case $rc in
	0)	record_pass "$name" "$secs" ;;
	77)	record_skip "$name" "$(skip_reason "$log")" ;;
	124|137) record_fail "$name" "timed out after ${TIMEOUT}s" "$log" ;;
	*)	record_fail "$name" "exit status $rc" "$log" ;;
	esac
}

# the selected image tests, as "DIR NAME" lines in run order
list_image_tests()
{
	local cat dir base

	for cat in $CATEGORIES; do
		[ -d "$TOP/tests/$cat-tests" ] || continue
		for dir in "$TOP/tests/$cat-tests"/[0-9]*/; do
			dir=${dir%/}
			base=$(basename "$dir")
			[ -f "$dir/test.sh" ] || continue
			selected "$cat-tests/$base" "$base" || continue
			printf '%s\t%s\n' "$dir" "$cat-tests/$base"
		done
	done
}

is_exclusive()
{
	grep -q '^# ghee-test: exclusive' "$1/test.sh"
}

# print, in list order, the results of the tests that have finished
# since; NEXT_REPORT is the first not printed yet
report_finished()
{
	while [ "$NEXT_REPORT" -lt ${#TEST_NAMES[@]} ] &&
	      [ -f "$STATUS_DIR/$NEXT_REPORT" ]; do
		report_image_test "${TEST_NAMES[NEXT_REPORT]}" "$STATUS_DIR/$NEXT_REPORT"
		NEXT_REPORT=$((NEXT_REPORT + 1))
	done
}

# wait_for_jobs MAX: wait until at most MAX tests run, printing results
wait_for_jobs()
{
	while [ "$(jobs -rp | wc -l)" -gt "$1" ]; do
		wait -n
		report_finished
	done
	report_finished
}

run_image_tests()
{
	local dir name i=0 dirs=()

	TEST_NAMES=()
	NEXT_REPORT=0
	STATUS_DIR=$TMPDIR_BASE/.status
	mkdir -p "$STATUS_DIR"
	while IFS=$'\t' read -r dir name; do
		dirs+=("$dir")
		TEST_NAMES+=("$name")
	done < <(list_image_tests)
	for ((i = 0; i < ${#dirs[@]}; i++)); do
		if [ "$JOBS" -le 1 ] || is_exclusive "${dirs[i]}"; then
			wait_for_jobs 0
			exec_image_test "${dirs[i]}" "${TEST_NAMES[i]}" "$STATUS_DIR/$i"
		else
			wait_for_jobs $((JOBS - 1))
			exec_image_test "${dirs[i]}" "${TEST_NAMES[i]}" "$STATUS_DIR/$i" &
		fi
		report_finished
	done
	wait_for_jobs 0
}

main()
{
	local name

	parse_args "$@"
	[ -n "$JOBS" ] || JOBS=$(nproc 2>/dev/null || echo 1)
	[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "run-tests.sh: --jobs needs a positive number" >&2; exit 2; }
	pick_builddir
	setup_env
	TMPDIR_BASE=$(mktemp -d "${TMPDIR:-/tmp}/ghee-tests.XXXXXX")
	# tests still running in the background (--jobs) are stopped first
	trap 'jobs -p | xargs -r kill 2>/dev/null; wait; rm -rf --one-file-system "$TMPDIR_BASE"' EXIT
	print_header
	run_unit_tests
	run_image_tests
	if [ "$NR_FAIL" -gt 0 ]; then
		echo "failed:"
		for name in "${FAILED_NAMES[@]}"; do
			echo "  $name"
		done
	fi
	echo "logs: $RESULTS"
	echo "$NR_PASS passed, $NR_FAIL failed, $NR_SKIP skipped"
	[ "$NR_FAIL" -eq 0 ]
}

main "$@"
