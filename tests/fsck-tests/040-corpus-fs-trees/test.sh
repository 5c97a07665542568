#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Corpus images whose verdict rests on phase 7 (filesystem trees): each
# damaged one exits 1 with the phase 7 finding that names its damage (in
# the JSON output); each clean one, including the orphan and half-deleted
# inode cases, gets no phase 7 finding at all.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_corpus
need_progs python3

# image  phase-7 code that must be among the findings (- none at all)
cases="
004-no-dir-index__default_case DIR_INDEX_MISSING
008-bad-dir-index-name__default_case DIR_INDEX_MISSING
011-no-inode-item__default_case INODE_ITEM_MISSING
016-wrong-inode-nbytes__default_case INODE_NBYTES
017-missing-all-file-extent__default_case FILE_EXTENT_HOLE
026-bad-dir-item-name__default_case DIR_ITEM_HASH
034-bad-inode-flags__default_case INODE_FLAGS_INVALID
039-bad-inode-mode__bad_imodes_in_subvolume_tree INODE_MODE_INVALID
043-bad-inode-generation__bad_inode_geneartion INODE_GENERATION_INVALID
043-bad-inode-generation__bad_inode_transid INODE_GENERATION_INVALID
049-dir-hard-link__default DIR_NLINK
064-deprecated-inode-cache__4k_nodesize INODE_CACHE_DEPRECATED
067-dupe-filename__default DIR_ENTRY_DUPLICATE
069-unknown-fs-tree-key__unknown_key_empty FS_TREE_UNKNOWN_KEY
012-leaf-corruption__good -
019-non-skinny-false-alert__default_case -
021-partially-dropped-snapshot-case__dropped-snapshot -
022-qgroup-rescan-halfway__qgroup_rescan_halfway -
023-qgroup-stack-overflow__quota_balance_loop_backref -
029-valid-orphan-item__orphan_inode -
036-rescan-not-kicked-in__no_rescan_kicked_in -
042-half-dropped-inode__default -
054-orphan-directory__default -
"

failed=0
while read -r name code; do
	[ -n "$name" ] || continue
	img=$(corpus_image "$name") || exit
	fs_phase_codes "$img" 2> "$TEST_TMP/findings"
	codes=$(cat "$TEST_TMP/codes")
	if [ "$code" = - ]; then
		if [ -n "$codes" ]; then
			echo "$name: phase 7 findings on a clean image:" >&2
			head -n 10 "$TEST_TMP/findings" >&2
			failed=1
		elif [ "$FS_RC" -ne 0 ]; then
			# another phase's verdict; reported, judged by its own tests
			echo "$name: no phase 7 finding (exit $FS_RC from other phases)"
		else
			echo "$name: clean ok"
		fi
	elif [ "$FS_RC" -ne $CHECK_ERRORS ] || ! grep -qx "$code" <<< "$codes"; then
		echo "$name: exit $FS_RC, phase 7 codes: $(echo $codes), expected $code" >&2
		head -n 10 "$TEST_TMP/findings" >&2
		failed=1
	else
		echo "$name: $code ok ($(echo $codes))"
	fi
done <<< "$cases"
[ $failed -eq 0 ] || fail "some corpus verdicts of phase 7 are wrong"
