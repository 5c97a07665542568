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
nr_dumped=0
nr_refused=0
for name in "${names[@]}"; do
	img=$(corpus_image "$name") || exit
	lines=$(timeout 120 btrfs inspect-internal dump-tree "$img" 2>/dev/null | wc -l)
	if [ "$lines" -gt 1 ]; then
		nr_dumped=$((nr_dumped + 1))
		dt_all_modes "$name" "$img"
		continue
	fi
	nr_refused=$((nr_refused + 1))
	"$GHEE" dump-tree "$img" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
	rc=$?
	_status_is_crash $rc && fail "$name: ghee crashed (status $rc)"
	[ $rc -ne 0 ] || fail "$name: progs cannot dump it, ghee exits 0"
	[ -s "$TEST_TMP/err" ] || fail "$name: ghee failed without a message"
	echo "$name: progs cannot open it; ghee exits $rc: $(head -n1 "$TEST_TMP/err")"
	"$GHEE" dump-tree --format json "$img" > "$TEST_TMP/out" 2>/dev/null
	rc=$?
	_status_is_crash $rc && fail "$name: ghee --format json crashed (status $rc)"
done
echo "$nr_dumped images compared, $nr_refused refused by progs"
dt_summary "corpus"
exit 0
