#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A directory's size grown by 2: it must be the sum of the name lengths of
# its dir items and dir indexes (3 names of 6, 3 and 3 bytes, twice: 24).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit add-item 5 "$FS_INO_DIR" 1 0 16 8 2
expect_fs_codes "$IMG" DIR_ISIZE
grep -q "root 5 inode $FS_INO_DIR: dir isize wrong, have 26 expect 24" "$TEST_TMP/check.json" ||
	fail "the message does not give both sizes"
