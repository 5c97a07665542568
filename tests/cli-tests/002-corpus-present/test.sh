#!/bin/bash
# The shared corpus is where the tests expect it, every MANIFEST.tsv row has
# its image, and each image restores to its manifest size with a btrfs
# superblock magic at 64 KiB.
source "$TOP/tests/common.sh"

need_corpus
need_progs xz

mapfile -t names < <(corpus_names "")
nr=${#names[@]}
[ "$nr" -gt 0 ] || fail "MANIFEST.tsv lists no images"
nr_files=$(find "$CORPUS/fsck" -name '*.raw.xz' | wc -l)
[ "$nr_files" -eq "$nr" ] || fail "MANIFEST.tsv has $nr rows but fsck/ has $nr_files images"

corpus_prefetch "${names[@]}"
for name in "${names[@]}"; do
	img=$(corpus_image "$name") || exit
	want=$(corpus_field "$name" size_bytes)
	got=$(stat -c %s "$img")
	[ "$got" = "$want" ] || fail "$name: restored size $got, manifest says $want"
	magic=$(dd if="$img" bs=1 skip=$((65536 + 64)) count=8 status=none)
	[ "$magic" = "_BHRfS_M" ] || fail "$name: no btrfs magic in the primary superblock"
	echo "ok $name ($got bytes)"
done
echo "$nr images restored"
exit 0
