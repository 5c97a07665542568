#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An inode transid far beyond the superblock generation, then the same
# for the generation: no transaction could have written them.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit add-item 5 "$FS_INO_INLINE" 1 0 8 8 1000000
expect_fs_codes "$IMG" INODE_GENERATION_INVALID

IMG=$(fs_base_image) || exit
fs_edit add-item 5 "$FS_INO_INLINE" 1 0 0 8 1000000
expect_fs_codes "$IMG" INODE_GENERATION_INVALID
grep -q "root 5 inode $FS_INO_INLINE: invalid inode generation or transid: generation 10000" "$TEST_TMP/check.json" ||
	fail "the generation is not shown"
