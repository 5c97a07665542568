#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Corpus images whose verdict rests on phases 3, 5 and 6 (tree blocks,
# extents and back references, free space): clean ones exit 0, damaged
# ones exit 1 with the finding that names their damage.

source "$TOP/tests/common.sh"
need_corpus

# image  expected-exit  finding code that must be among the findings (- none)
cases="
001-bad-file-extent-bytenr__default_case 4 EXTENT_ITEM_UNUSED
002-bad-transid__default_case 4 TREE_BLOCK_INVALID
003-shift-offsets__default_case 4 TREE_BLOCK_INVALID
006-bad-root-items__default_case 4 EXTENT_ITEM_MISSING
006-bad-root-items__skinny_case 4 EXTENT_BACKREF_MISSING
007-bad-offset-snapshots__default_case 4 TREE_BLOCK_INVALID
012-leaf-corruption__good 0 -
012-leaf-corruption__good-leafcorrupt 4 TREE_BLOCK_UNREADABLE
014-no-extent-info__no_extent 4 EXTENT_ITEM_MISSING
014-no-extent-info__no_extent_bad_dev 4 EXTENT_ITEM_MISSING
018-leaf-crossing-stripes__default_case 4 EXTENT_OUTSIDE_BLOCK_GROUP
019-non-skinny-false-alert__default_case 0 -
021-partially-dropped-snapshot-case__dropped-snapshot 0 -
027-bad-extent-inline-ref-type__bad-extent-inline-ref-type 4 EXTENT_ITEM_INVALID
038-missing-one-file-extent__default_case 4 EXTENT_REF_MISMATCH
039-bad-inode-mode__bad_free_space_cache_imode 4 FREE_SPACE_CACHE_INVALID
041-invalid-root-generation__default_case 4 TREE_BLOCK_INVALID
044-invalid-extent-item-generation__bad_extent_item_gen_for_data 4 EXTENT_ITEM_INVALID
044-invalid-extent-item-generation__bad_extent_item_gen_for_tree_block 4 EXTENT_ITEM_INVALID
053-bad-metadata-level__default 4 EXTENT_ITEM_INVALID
058-bad-free-space-tree-entry__corrupt-free-space-tree 4 FREE_SPACE_ORPHAN
058-bad-free-space-tree-entry__corrupt-free-space-tree2 4 FREE_SPACE_ORPHAN
061-out-of-order-inline-backref__btrfs_image 4 EXTENT_ITEM_INVALID
071-orphan-fst-entry__orphan_fst_entries 4 FREE_SPACE_ORPHAN
"

failed=0
while read -r name want code; do
	[ -n "$name" ] || continue
	img=$(corpus_image "$name") || exit
	out=$("$GHEE" check -q "$img" 2>&1)
	rc=$?
	if _status_is_crash $rc; then
		echo "$name: crash or sanitizer error (status $rc)" >&2
		failed=1
	elif [ $rc -ne "$want" ]; then
		echo "$name: exit $rc, expected $want" >&2
		echo "$out" | head -n 10 >&2
		failed=1
	elif [ "$code" != - ] && ! grep -q "^ERROR: \[$code\]" <<< "$out"; then
		echo "$name: no $code finding" >&2
		echo "$out" | head -n 10 >&2
		failed=1
	else
		echo "$name: exit $rc ok"
	fi
done <<< "$cases"
[ $failed -eq 0 ] || fail "some corpus verdicts are wrong"
