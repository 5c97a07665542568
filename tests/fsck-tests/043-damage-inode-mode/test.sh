#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An inode mode with file type bits no POSIX type has (0170644) is an
# invalid mode; a valid but different type (a fifo, 010644) makes the dir
# entries, which say "file", disagree with the inode.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_TWO" 1 0 52 4 0o170644
expect_fs_codes "$IMG" INODE_MODE_INVALID
grep -q "root 5 inode $FS_INO_TWO: invalid inode mode 0170644" "$TEST_TMP/check.json" ||
	fail "the message does not show the mode"

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_TWO" 1 0 52 4 0o10644
expect_fs_codes "$IMG" DIR_ENTRY_MISMATCH
grep -q "entry two: type file, but inode $FS_INO_TWO is a fifo" "$TEST_TMP/check.json" ||
	fail "the type mismatch is not explained"
