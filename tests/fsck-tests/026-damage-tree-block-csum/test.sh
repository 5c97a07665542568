#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Break the checksum of one leaf of the subvolume tree (every copy): the
# block is reported unreadable with the checksum detail, once, and the
# check still reaches the end.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
ino=$((256 + 300))
leaf=$(python3 "$EDIT" "$img" leaf-of 5 "$ino" 1 0) || fail "inode $ino not found"
python3 "$EDIT" "$img" break-csum "$leaf" || fail "edit failed"
expect_code_present "$img" TREE_BLOCK_UNREADABLE "block $leaf cannot be read: checksum verify failed"
[ "$(grep -c "TREE_BLOCK_UNREADABLE" "$TEST_TMP/check.out")" -eq 1 ] ||
	fail "the block is reported more than once"
grep -q "^found [0-9]* problem" "$TEST_TMP/check.out" || fail "no summary line"
