#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The file type in the DIR_INDEX of "two" changed from file (1) to
# symlink (7): it disagrees with the dir item and with the inode's mode.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 3 29 1 7
expect_fs_codes "$IMG" DIR_ENTRY_MISMATCH
grep -q "entry two: dir item type file, dir index type symlink" "$TEST_TMP/check.json" ||
	fail "the dir item / dir index disagreement is not explained"
