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
NR_SAME=0
NR_DIFF=0
NR_IMAGES=0

compare()
{
	local prc grc ok=1

	btrfs inspect-internal dump-super "$@" >"$TEST_TMP/p.out" 2>"$TEST_TMP/p.err"
	prc=$?
	"$GHEE" dump-super "$@" >"$TEST_TMP/g.out" 2>"$TEST_TMP/g.err"
	grc=$?
	_status_is_crash $grc && fail "ghee crashed (status $grc): dump-super $*"
	compare_outputs "$TEST_TMP/p.out" "$TEST_TMP/g.out" || ok=0
	compare_outputs "$TEST_TMP/p.err" "$TEST_TMP/g.err" || ok=0
	if [ "$prc" != "$grc" ]; then
		echo "exit status: progs $prc, ghee $grc" >&2
		ok=0
	fi
	if [ $ok = 1 ]; then
		NR_SAME=$((NR_SAME + 1))
	else
		echo "DIFFERS: dump-super $*" >&2
		NR_DIFF=$((NR_DIFF + 1))
	fi
}

# shellcheck disable=SC2119 # no arguments: every image
corpus_prefetch
while read -r name; do
	img=$(corpus_image "$name") || exit
	NR_IMAGES=$((NR_IMAGES + 1))
	for args in "${ARGSETS[@]}"; do
		# shellcheck disable=SC2086 # word splitting of the options wanted
		compare $args "$img"
	done
	"$GHEE" dump-super --format json -f -a "$img" >"$TEST_TMP/j.json" 2>/dev/null
	python3 -m json.tool "$TEST_TMP/j.json" >/dev/null 2>&1 ||
		fail "invalid JSON for $name"
done < <(corpus_names)

[ $NR_IMAGES -gt 0 ] || fail "the corpus lists no image"
echo "$NR_SAME of $((NR_SAME + NR_DIFF)) comparisons identical ($NR_IMAGES corpus images)"
[ $NR_DIFF -eq 0 ] || fail "$NR_DIFF comparisons differ"
exit 0
