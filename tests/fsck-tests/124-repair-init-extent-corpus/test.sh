#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --init-extent-tree on the corpus images: one without skinny metadata
# (019: EXTENT_ITEMs with tree block info), a snapshot whose deletion was
# interrupted (021: the subtrees it freed already are left out), and
# extent tree damage: missing extent items (014), a bad inline ref type
# (027), extent item generations from the future (044), inline refs out
# of order (061), a wild superblock bytes_used (051) come out clean for
# all three checkers.  On
# images it cannot rebuild (a misaligned file extent, a corrupt leaf, a
# data extent in a metadata block group) it never crashes and never leaves
# more findings than before.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_corpus
need_progs python3

nr_findings()
{
	"$GHEE" check -q "$1" 2>/dev/null | grep -c '^ERROR: \['
}

for name in 021-partially-dropped-snapshot-case__dropped-snapshot \
	    019-non-skinny-false-alert__default_case \
	    014-no-extent-info__no_extent \
	    027-bad-extent-inline-ref-type__bad-extent-inline-ref-type \
	    044-invalid-extent-item-generation__bad_extent_item_gen_for_data \
	    044-invalid-extent-item-generation__bad_extent_item_gen_for_tree_block \
	    061-out-of-order-inline-backref__btrfs_image \
	    051-invalid-super-bytes-used__default; do
	img=$(corpus_image "$name") || exit
	cp --sparse=always "$img" "$TEST_TMP/img"
	"$GHEE" check --repair --init-extent-tree "$TEST_TMP/img" > "$TEST_TMP/out" 2>&1
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/out" >&2; fail "$name: crash"; }
	want=$CHECK_CORRECTED
	case $name in 019-*|021-*) want=$CHECK_CLEAN ;; esac	# clean before, too
	[ $rc -eq "$want" ] || { cat "$TEST_TMP/out" >&2; fail "$name: status $rc"; }
	grep -q "rebuilt the extent tree" "$TEST_TMP/out" || fail "$name: no rebuild"
	expect_all_clean "$TEST_TMP/img"
done

for name in 001-bad-file-extent-bytenr__default_case \
	    007-bad-offset-snapshots__default_case \
	    018-leaf-crossing-stripes__default_case; do
	img=$(corpus_image "$name") || exit
	cp --sparse=always "$img" "$TEST_TMP/img"
	before=$(nr_findings "$TEST_TMP/img")
	timeout 60 "$GHEE" check --repair --init-extent-tree "$TEST_TMP/img" > "$TEST_TMP/out" 2>&1
	rc=$?
	[ $rc -eq 124 ] && fail "$name: the rebuild hangs"
	_status_is_crash $rc && { cat "$TEST_TMP/out" >&2; fail "$name: crash"; }
	after=$(nr_findings "$TEST_TMP/img")
	[ "$after" -le "$before" ] || fail "$name: $before findings before, $after after"
done
