#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One byte of the name in a DIR_INDEX changed ("two" becomes "Two"): the
# dir item and inode ref of "two" have no dir index, and the dir index of
# "Two" has neither a dir item nor an inode ref.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 3 30 1 0x54
expect_fs_codes "$IMG" DIR_INDEX_MISSING DIR_ITEM_MISSING INODE_REF_MISSING
grep -q "root 5 dir $FS_INO_DIR: no dir index for two (index 3)" "$TEST_TMP/check.json" ||
	fail "the missing dir index is not named"
grep -q "root 5 dir $FS_INO_DIR: no dir item for Two (index 3)" "$TEST_TMP/check.json" ||
	fail "the damaged dir index is not named"
