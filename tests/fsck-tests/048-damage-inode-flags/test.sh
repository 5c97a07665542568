#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An inode flag bit no kernel defines (bit 12), then a read-only compat
# bit no kernel defines (bit 33), each on a fresh copy.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_BIG" 1 0 64 8 0x1000
expect_fs_codes "$IMG" INODE_FLAGS_INVALID
grep -q "root 5 inode $FS_INO_BIG: odd inode flags 0x1000: unknown flags 0x1000" "$TEST_TMP/check.json" ||
	fail "the unknown flag is not shown"

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_BIG" 1 0 64 8 0x200000000
expect_fs_codes "$IMG" INODE_FLAGS_INVALID
