#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A file's link count raised from 1 to 2: it has one inode ref, so phase 7
# reports the link count, and nothing else.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_TWO" 1 0 40 4 2
expect_fs_codes "$IMG" INODE_NLINK
grep -q "root 5 inode $FS_INO_TWO: link count wrong, have 2 expect 1" "$TEST_TMP/check.json" ||
	fail "the message does not give both counts"
