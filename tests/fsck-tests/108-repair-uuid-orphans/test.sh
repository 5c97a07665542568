#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the uuid tree and of link counts of 0: a uuid entry pointed at
# a root that does not exist (UUID_ITEM_STALE, and UUID_ITEM_MISSING for
# the subvolume that lost its entry: the id is dropped, the entry added
# back); a file's link count set to 0 while it keeps its name
# (INODE_NO_ORPHAN: the count comes back, no orphan item is added).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$IMG" first 9 251) || fail "no uuid subvol item"
sub=$(fs_item_field 9 "$obj" 251 "$off" 0 8)
fs_edit set-item 9 "$obj" 251 "$off" 0 8 999
"$GHEE" check "$IMG" > "$TEST_TMP/check.out"
grep -q "\[UUID_ITEM_STALE\]" "$TEST_TMP/check.out" || { cat "$TEST_TMP/check.out" >&2; fail "no UUID_ITEM_STALE"; }
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" "UUID_ITEM_STALE | delete uuid tree item ($obj UUID_KEY_SUBVOL $off) (root 999)"
[ "$(fs_item_field 9 "$obj" 251 "$off" 0 8)" = "$sub" ] || fail "the uuid entry does not point to root $sub again"

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_INLINE" 1 0 40 4 0
expect_repaired "$IMG"
[ "$(fs_item_field 5 "$FS_INO_INLINE" 1 0 40 4)" = 1 ] || fail "the link count is not 1 again"
python3 "$EDIT" "$IMG" find 5 $((2**64 - 5)) 48 "$FS_INO_INLINE" > /dev/null 2>&1 &&
	fail "an orphan item was added for a file that has its name"
expect_second_repair_noop "$IMG"
