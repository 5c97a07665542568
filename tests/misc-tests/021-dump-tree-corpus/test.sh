#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee dump-tree against btrfs-progs 6.2 on every image of the shared
# corpus.  Where progs can dump the filesystem (it prints more than its
# version line), every dump mode must print the same text and the JSON
# must hold the same blocks and items; broken blocks are skipped the same
# way.  Where progs cannot even open it, ghee must not crash and must
# exit non-zero with a message (it prints what it can read first).
source "$TOP/tests/common.sh"
source "$TOP/tests/misc-tests/020-dump-tree-mkfs-matrix/dump-tree-lib.sh"

need_progs_version
need_progs python3 xz
need_corpus

# the trees one by one add little over the whole dump here: keep it quick
DT_MODES=("" "-e" "-d" "-r" "-R" "-u" "-t fs" "--dfs" "--hide-names"
	  "--csum-items" "--csum-headers --bfs")
mapfile -t names < <(corpus_names "")
corpus_prefetch "${names[@]}"
# one image; a worker of dt_parallel.  Progs stops at its second line
# (SIGPIPE): enough to tell whether it can dump the image at all.
one_image()
{
	local name=$1 img lines rc

	img=$(corpus_image "$name") || exit
	lines=$(timeout 120 btrfs inspect-internal dump-tree "$img" 2>/dev/null |
		head -n 2 | wc -l)
	if [ "$lines" -gt 1 ]; then
		echo "$name: compared"
		dt_all_modes "$name" "$img"
		return
	fi
	"$GHEE" dump-tree "$img" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
	rc=$?
	if _status_is_crash $rc || [ $rc -eq 0 ] || ! [ -s "$TEST_TMP/err" ]; then
		echo "$name: progs cannot dump it; ghee exits $rc (must be non-zero, with a message, no crash)" >&2
		DT_FAIL=$((DT_FAIL + 1))
		DT_FAILED+=("$name refused by progs")
	else
		echo "$name: refused by progs; ghee exits $rc: $(head -n1 "$TEST_TMP/err")"
		DT_PASS=$((DT_PASS + 1))
	fi
	"$GHEE" dump-tree --format json "$img" > "$TEST_TMP/out" 2>/dev/null
	rc=$?
	if _status_is_crash $rc; then
		echo "$name: ghee --format json crashed (status $rc)" >&2
		DT_FAIL=$((DT_FAIL + 1))
		DT_FAILED+=("$name json refused by progs")
	fi
}

dt_parallel one_image "${names[@]}" > "$TEST_TMP/log" 2>&1
cat "$TEST_TMP/log"
nr_dumped=$(grep -c ': compared$' "$TEST_TMP/log")
nr_refused=$(grep -c ': refused by progs;' "$TEST_TMP/log")
echo "$nr_dumped images compared, $nr_refused refused by progs"
[ $((nr_dumped + nr_refused)) -eq ${#names[@]} ] ||
	fail "$((${#names[@]} - nr_dumped - nr_refused)) of ${#names[@]} images neither compared nor refused cleanly"
dt_summary "corpus"
exit 0
