#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Swap the keys of two neighbouring items of a subvolume leaf (checksum
# fixed): the leaf breaks the key order, is reported, and the check goes on
# with the rest of the filesystem.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
# an inode in the middle of the fs tree: its inode item and inode ref
ino=$((256 + 300))
python3 "$EDIT" "$img" find 5 "$ino" 1 0 >/dev/null || fail "inode $ino not found"
python3 "$EDIT" "$img" swap-keys 5 "$ino" 1 0 || fail "edit failed"
expect_code_present "$img" TREE_BLOCK_INVALID "bad key order"
grep -q "^found [0-9]* problem" "$TEST_TMP/check.out" || fail "no summary line"
