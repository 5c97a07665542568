# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the dump-tree tests (020, 021, 022): run btrfs-progs and ghee
# on the same filesystem and compare.  Source after tests/common.sh.

DT_DIR=$TOP/tests/misc-tests/020-dump-tree-mkfs-matrix
DT_PASS=0
DT_FAIL=0
DT_FAILED=()

# the option sets every image is dumped with
DT_MODES=(
	""
	"-e"
	"-d"
	"-r"
	"-R"
	"-u"
	"-t root"
	"-t chunk"
	"-t extent"
	"-t dev"
	"-t fs"
	"-t csum"
	"-t free_space"
	"-t uuid"
	"-t quota"
	"--dfs"
	"--hide-names"
	"--csum-items"
	"--csum-headers --bfs"
)

# dt_compare LABEL OPTS DEV...: progs and ghee print the same (but for the
# first line, which names the program); ghee does not crash.  Counts.
dt_compare()
{
	local label=$1 opts=$2 rc
	local p=$TEST_TMP/progs.out g=$TEST_TMP/ghee.out

	shift 2
	# shellcheck disable=SC2086 # OPTS is a list of words
	btrfs inspect-internal dump-tree $opts "$@" > "$p" 2> "$TEST_TMP/progs.err"
	# shellcheck disable=SC2086
	"$GHEE" dump-tree $opts "$@" > "$g" 2> "$TEST_TMP/ghee.err"
	rc=$?
	if _status_is_crash $rc; then
		echo "CRASH $label [$opts] status $rc" >&2
		cat "$TEST_TMP/ghee.err" >&2
		DT_FAIL=$((DT_FAIL + 1))
		DT_FAILED+=("$label [$opts]")
		return 1
	fi
	if cmp -s <(tail -n +2 "$p") <(tail -n +2 "$g"); then
		DT_PASS=$((DT_PASS + 1))
		return 0
	fi
	echo "DIFF $label [$opts]" >&2
	diff -u <(tail -n +2 "$p") <(tail -n +2 "$g") | head -n 20 >&2
	DT_FAIL=$((DT_FAIL + 1))
	DT_FAILED+=("$label [$opts]")
	return 1
}

# dt_json LABEL OPTS DEV...: the JSON document is valid and holds the
# blocks and items of the text dump
dt_json()
{
	local label=$1 opts=$2 rc
	local t=$TEST_TMP/ghee.out j=$TEST_TMP/ghee.json

	shift 2
	# shellcheck disable=SC2086
	"$GHEE" dump-tree $opts "$@" > "$t" 2>/dev/null
	# shellcheck disable=SC2086
	"$GHEE" dump-tree --format json $opts "$@" > "$j" 2> "$TEST_TMP/ghee.err"
	rc=$?
	if ! _status_is_crash $rc &&
	   python3 "$DT_DIR/json-skeleton.py" "$t" "$j" >&2; then
		DT_PASS=$((DT_PASS + 1))
		return 0
	fi
	echo "JSON $label [$opts] status $rc" >&2
	DT_FAIL=$((DT_FAIL + 1))
	DT_FAILED+=("json $label [$opts]")
	return 1
}

# dt_all_modes LABEL DEV...: every mode of DT_MODES (a test may set its
# own list), then JSON twice
dt_all_modes()
{
	local label=$1 mode

	shift
	for mode in "${DT_MODES[@]}"; do
		dt_compare "$label" "$mode" "$@"
	done
	dt_json "$label" "" "$@"
	dt_json "$label" "-e --csum-items" "$@"
}

# dt_summary WHAT: print the counts; fail when anything differed
dt_summary()
{
	echo "$1: $DT_PASS identical, $DT_FAIL different"
	if [ "$DT_FAIL" -ne 0 ]; then
		printf '  %s\n' "${DT_FAILED[@]}" >&2
		fail "$DT_FAIL of $((DT_PASS + DT_FAIL)) dumps differ"
	fi
}
