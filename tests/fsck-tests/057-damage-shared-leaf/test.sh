#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A wrong link count in a leaf a subvolume shares with its snapshot: the
# finding must come for both trees.  Phase 3 checks the subvolume (walked
# first, read whole) from the leaves it reads and phase 7 reports it; the
# snapshot shares blocks already walked, so phase 7 reads it itself.  The
# two ways must say the same, in phase 7; also when phase 3 gives the
# subvolume up for holding more findings than it keeps.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

SUBVOL=256
SNAP=257
INO=400		# sv/g144: the snapshot changed g7 and data only

IMG=$(fsck_base_image) || exit
leaf_sv=$(python3 "$EDIT" "$IMG" leaf-of $SUBVOL $INO 1 0) || fail "no inode $INO in tree $SUBVOL"
leaf_snap=$(python3 "$EDIT" "$IMG" leaf-of $SNAP $INO 1 0) || fail "no inode $INO in tree $SNAP"
[ "$leaf_sv" = "$leaf_snap" ] ||
	fail "the base image does not share the leaf of inode $INO ($leaf_sv, $leaf_snap)"

nlink=$(fs_item_field $SUBVOL $INO 1 0 40 4)
fs_edit set-item $SUBVOL $INO 1 0 40 4 $((nlink + 1))
expect_fs_codes "$IMG" INODE_NLINK
for root in $SUBVOL $SNAP; do
	grep -q "root $root inode $INO: link count wrong, have $((nlink + 1)) expect $nlink" \
		"$TEST_TMP/check.json" || fail "no link count finding for root $root"
done
# text output: the findings come under phase 7's heading, subvolume first
"$GHEE" check "$IMG" > "$TEST_TMP/check.txt" 2>&1
[ $? -eq $CHECK_ERRORS ] || fail "ghee check did not exit $CHECK_ERRORS"
awk '/^\[7\/9\]/ { p = 1; next } /^\[8\/9\]/ { p = 0 } p && /INODE_NLINK/ { print $4 }' \
	"$TEST_TMP/check.txt" > "$TEST_TMP/roots"
[ "$(tr '\n' ' ' < "$TEST_TMP/roots")" = "$SUBVOL $SNAP " ] ||
	{ cat "$TEST_TMP/check.txt" >&2; fail "phase 7 text findings not for roots $SUBVOL then $SNAP"; }
# a tree with more findings than phase 3 holds is checked by phase 7 again:
# the same output
GHEE_CHECK_DEFERRED_MAX=0 "$GHEE" check "$IMG" > "$TEST_TMP/check-max0.txt" 2>&1
[ $? -eq $CHECK_ERRORS ] || fail "ghee check with GHEE_CHECK_DEFERRED_MAX=0 did not exit $CHECK_ERRORS"
cmp -s "$TEST_TMP/check.txt" "$TEST_TMP/check-max0.txt" ||
	{ diff "$TEST_TMP/check.txt" "$TEST_TMP/check-max0.txt" >&2; fail "output differs when phase 7 re-checks the trees"; }
