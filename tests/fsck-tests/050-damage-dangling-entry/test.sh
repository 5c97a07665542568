#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DIR_INDEX of "big" pointed at an inode number nothing uses: the
# entry dangles, and the real inode's name has no dir index left.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 96 4 0 8 100000
expect_fs_codes "$IMG" DIR_ENTRY_DANGLING DIR_INDEX_MISSING
grep -q "root 5 dir $FS_INO_DIR entry big (index 4) points to missing inode 100000" "$TEST_TMP/check.json" ||
	fail "the dangling entry is not named"
