# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the dump-tree tests (020, 021, 022): run btrfs-progs and ghee
# on the same filesystem and compare.  Source after tests/common.sh.

DT_DIR=$TOP/tests/misc-tests/020-dump-tree-mkfs-matrix
DT_PASS=0
DT_FAIL=0
DT_FAILED=()
DT_NJSON=0
DT_WORK=$TEST_TMP/dt
DT_LAST_TEXT_KEY=

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
	# kept for a dt_json of the same options and devices next
	mkdir -p "$DT_WORK" && cp "$g" "$DT_WORK/last.txt" &&
		DT_LAST_TEXT_KEY="$opts $*"
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

# dt_slug OPTS: a file name part for an option set
dt_slug()
{
	local s=${1:-default}

	s=${s// /_}
	echo "${s//\//_}"
}

# dt_json LABEL OPTS DEV...: the JSON document must be valid and hold the
# blocks and items of the text dump.  ghee runs now (a crash fails at
# once); the comparison is queued for dt_json_batch, which checks every
# queued pair in one Python process.  The text dump dt_compare made of the
# same options is reused.
dt_json()
{
	local label=$1 opts=$2 rc n t j

	shift 2
	mkdir -p "$DT_WORK" || fail "cannot create $DT_WORK"
	DT_NJSON=$((DT_NJSON + 1))
	n=$DT_NJSON
	t=$DT_WORK/$n.txt
	j=$DT_WORK/$n.json
	if [ "$DT_LAST_TEXT_KEY" = "$opts $*" ] && [ -f "$DT_WORK/last.txt" ]; then
		mv "$DT_WORK/last.txt" "$t"
	else
		# shellcheck disable=SC2086
		"$GHEE" dump-tree $opts "$@" > "$t" 2>/dev/null
	fi
	DT_LAST_TEXT_KEY=
	# shellcheck disable=SC2086
	"$GHEE" dump-tree --format json $opts "$@" > "$j" 2> "$TEST_TMP/ghee.err"
	rc=$?
	if _status_is_crash $rc; then
		echo "JSON $label [$opts] status $rc" >&2
		DT_FAIL=$((DT_FAIL + 1))
		DT_FAILED+=("json $label [$opts]")
		rm -f "$t" "$j"
		return 1
	fi
	printf '%s\t%s\t%s\n' "json $label [$opts]" "$t" "$j" >> "$DT_WORK/pairs"
}

# dt_json_batch: check the queued JSON documents, add to the counts
dt_json_batch()
{
	local out line done=0

	[ -s "$DT_WORK/pairs" ] || return 0
	out=$(python3 "$DT_DIR/json-skeleton.py" --batch "$DT_WORK/pairs" 2>&1)
	while IFS= read -r line; do
		case $line in
		*" agree, "*" differ")
			DT_PASS=$((DT_PASS + ${line%% agree*}))
			done=1 ;;
		*)	echo "$line" >&2
			DT_FAIL=$((DT_FAIL + 1))
			DT_FAILED+=("${line%%: *}") ;;
		esac
	done <<< "$out"
	if [ $done = 0 ]; then
		DT_FAIL=$((DT_FAIL + 1))
		DT_FAILED+=("json-skeleton.py --batch did not finish")
	fi
	while IFS=$'\t' read -r _ t j; do
		rm -f "$t" "$j"
	done < "$DT_WORK/pairs"
	rm -f "$DT_WORK/pairs"
}

# dt_parallel FUNC ITEM...: FUNC ITEM for every item, spread over one
# worker per CPU; each worker has its own DT_WORK and TEST_TMP, checks its
# JSON queue at its end and leaves its counts, which are added up here.
# Worker logs are printed one after the other, not interleaved.
dt_parallel()
{
	local func=$1 jobs w i items pass fail
	local base=$TEST_TMP

	shift
	items=("$@")
	jobs=$(nproc 2>/dev/null || echo 2)
	[ "$jobs" -gt ${#items[@]} ] && jobs=${#items[@]}
	for ((w = 0; w < jobs; w++)); do
		(
			TEST_TMP=$base/worker.$w
			DT_WORK=$TEST_TMP/dt
			DT_PASS=0 DT_FAIL=0 DT_FAILED=()
			mkdir -p "$DT_WORK" || exit 1
			for ((i = w; i < ${#items[@]}; i += jobs)); do
				"$func" "${items[i]}"
			done
			dt_json_batch
			echo "$DT_PASS $DT_FAIL" > "$TEST_TMP/counts"
			if [ ${#DT_FAILED[@]} -gt 0 ]; then
				printf '%s\n' "${DT_FAILED[@]}"
			fi > "$TEST_TMP/failed"
		) > "$base/worker.$w.log" 2>&1 &
	done
	wait
	for ((w = 0; w < jobs; w++)); do
		cat "$base/worker.$w.log"
		read -r pass fail < "$base/worker.$w/counts" ||
			fail "worker $w of $func did not finish"
		DT_PASS=$((DT_PASS + pass))
		DT_FAIL=$((DT_FAIL + fail))
		mapfile -t -O ${#DT_FAILED[@]} DT_FAILED < "$base/worker.$w/failed"
		rm -rf "$base/worker.$w"
	done
}

# dt_all_modes LABEL DEV...: every mode of DT_MODES (a test may set its
# own list; the first is the plain dump, whose text the first JSON check
# reuses), then JSON twice
dt_all_modes()
{
	local label=$1 mode

	shift
	for mode in "${DT_MODES[@]:1}"; do
		dt_compare "$label" "$mode" "$@"
	done
	dt_compare "$label" "${DT_MODES[0]}" "$@"
	dt_json "$label" "${DT_MODES[0]}" "$@"
	dt_json "$label" "-e --csum-items" "$@"
}

# dt_summary WHAT: print the counts; fail when anything differed
dt_summary()
{
	dt_json_batch
	echo "$1: $DT_PASS identical, $DT_FAIL different"
	if [ "$DT_FAIL" -ne 0 ]; then
		printf '  %s\n' "${DT_FAILED[@]}" >&2
		fail "$DT_FAIL of $((DT_PASS + DT_FAIL)) dumps differ"
	fi
}
