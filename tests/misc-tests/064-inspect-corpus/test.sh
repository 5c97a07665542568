#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dump-free-space, usage and tree-stats on every image of the shared
# corpus (most of them damaged on purpose): no crash, and a non-zero exit
# always comes with a message.  Where btrfs-progs' tree-stats and ghee's
# both read every block of the four trees progs prints (both exit 0),
# the numbers must be equal.
source "$TOP/tests/common.sh"

need_progs btrfs xz
need_corpus

stats_filter()
{
	awk '/^Calculating size of/ { tree = $4 }
	     /Total size:|Inline data:|Levels:|Total nodes:|On level/ {
		line = $0; sub(/^[ \t]+/, "", line); gsub(/[ \t]+/, " ", line)
		print tree ": " line }'
}

mapfile -t names < <(corpus_names "")
corpus_prefetch "${names[@]}"
nr=0
nr_stats=0
for name in "${names[@]}"; do
	img=$(corpus_image "$name") || exit
	nr=$((nr + 1))
	for cmd in "dump-free-space -x --histogram" "dump-free-space --compare extents --format json" \
		   "dump-free-space --source cache" "usage --format json" "tree-stats"; do
		# shellcheck disable=SC2086
		timeout 120 "$GHEE" $cmd "$img" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
		rc=$?
		_status_is_crash $rc && fail "$name: 'ghee $cmd' crashed or hung (status $rc)"
		grep -qE 'Sanitizer|runtime error' "$TEST_TMP/err" && fail "$name: 'ghee $cmd': sanitizer report"
		[ $rc -le 2 ] || fail "$name: 'ghee $cmd' exit status $rc"
		# --compare exits 1 for differences, which it prints on stdout
		[ $rc -eq 0 ] || [ -s "$TEST_TMP/err" ] ||
			{ [[ $cmd == *--compare* ]] && grep -q '"nr_differences": [1-9]' "$TEST_TMP/out"; } ||
			fail "$name: 'ghee $cmd' exits $rc without a message"
	done
	timeout 120 btrfs inspect-internal tree-stats -b "$img" > "$TEST_TMP/progs" 2>/dev/null || continue
	"$GHEE" tree-stats -b -t root -t extent -t csum -t fs "$img" > "$TEST_TMP/ghee" 2>/dev/null || continue
	stats_filter < "$TEST_TMP/progs" > "$TEST_TMP/progs.f"
	stats_filter < "$TEST_TMP/ghee" > "$TEST_TMP/ghee.f"
	compare_outputs "$TEST_TMP/progs.f" "$TEST_TMP/ghee.f" ||
		fail "$name: ghee tree-stats differs from btrfs inspect-internal tree-stats"
	nr_stats=$((nr_stats + 1))
done
echo "$nr images, tree-stats equal to progs on $nr_stats"
exit 0
