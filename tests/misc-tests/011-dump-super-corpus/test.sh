#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee dump-super against btrfs-progs 6.2 on every image of the shared
# corpus (real filesystems, several of them damaged, apparent sizes up to
# 2.7 TiB so the 256 GiB copy exists on some): stdout, stderr and the exit
# status must be identical for each argument set, and --format json must
# parse.
source "$TOP/tests/common.sh"

need_progs_version
need_corpus
need_progs python3

ARGSETS=("-f" "-a" "-s 1" "--bytenr 67108864" "-a -f -F")

# compare ARGS...: progs and ghee print the same and exit the same; prints
# SAME or DIFFERS
compare()
{
	local prc grc ok=1

	btrfs inspect-internal dump-super "$@" >"$TEST_TMP/p.out" 2>"$TEST_TMP/p.err"
	prc=$?
	"$GHEE" dump-super "$@" >"$TEST_TMP/g.out" 2>"$TEST_TMP/g.err"
	grc=$?
	if _status_is_crash $grc; then
		echo "CRASH: ghee crashed (status $grc): dump-super $*"
		return 1
	fi
	compare_outputs "$TEST_TMP/p.out" "$TEST_TMP/g.out" || ok=0
	compare_outputs "$TEST_TMP/p.err" "$TEST_TMP/g.err" || ok=0
	if [ "$prc" != "$grc" ]; then
		echo "exit status: progs $prc, ghee $grc"
		ok=0
	fi
	if [ $ok = 1 ]; then
		echo "SAME: dump-super $*"
	else
		echo "DIFFERS: dump-super $*"
	fi
}

# one image, in a run_parallel job; its JSON is kept for one validation
# pass at the end (a Python start per image costs more than the dumps)
one_image()
{
	local name=$1 img args

	img=$(corpus_image "$name") || exit
	for args in "${ARGSETS[@]}"; do
		# shellcheck disable=SC2086 # word splitting of the options wanted
		compare $args "$img" || return 1
	done
	"$GHEE" dump-super --format json -f -a "$img" >"$JSON_DIR/$name.json" 2>/dev/null
	_status_is_crash $? && { echo "CRASH: ghee --format json on $name"; return 1; }
	return 0
}

mapfile -t names < <(corpus_names)
[ ${#names[@]} -gt 0 ] || fail "the corpus lists no image"
JSON_DIR=$TEST_TMP/json
mkdir -p "$JSON_DIR" || fail "mkdir"
corpus_prefetch "${names[@]}"
run_parallel one_image "${names[@]}" > "$TEST_TMP/log"
rc=$?
grep -v '^SAME: ' "$TEST_TMP/log"
[ $rc -eq 0 ] || fail "ghee crashed"
NR_SAME=$(grep -c '^SAME: ' "$TEST_TMP/log")
NR_DIFF=$(grep -c '^DIFFERS: ' "$TEST_TMP/log")
python3 - "$JSON_DIR"/*.json <<'PY' || fail "invalid JSON"
import json, sys
bad = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            json.load(f)
    except ValueError as e:
        print("invalid JSON for %s: %s" % (path, e))
        bad += 1
sys.exit(1 if bad else 0)
PY
[ "$(ls "$JSON_DIR" | wc -l)" -eq ${#names[@]} ] || fail "a JSON dump is missing"
echo "$NR_SAME of $((NR_SAME + NR_DIFF)) comparisons identical (${#names[@]} corpus images)"
[ $((NR_SAME + NR_DIFF)) -eq $((${#names[@]} * ${#ARGSETS[@]})) ] ||
	fail "$((NR_SAME + NR_DIFF)) comparisons made, expected $((${#names[@]} * ${#ARGSETS[@]}))"
[ "$NR_DIFF" -eq 0 ] || fail "$NR_DIFF comparisons differ"
exit 0
