#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nbytes of a 64 KiB file raised by 4096: its one extent accounts 65536.
# The same on the inline file: its inline extent accounts its 6 bytes.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit add-item 5 "$FS_INO_BIG" 1 0 24 8 4096
expect_fs_codes "$IMG" INODE_NBYTES
grep -q "root 5 inode $FS_INO_BIG: nbytes wrong, have 69632 expect 65536" "$TEST_TMP/check.json" ||
	fail "the message does not give both values"

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_INLINE" 1 0 24 8 4096
expect_fs_codes "$IMG" INODE_NBYTES
grep -q "root 5 inode $FS_INO_INLINE: nbytes wrong, have 4096 expect 6" "$TEST_TMP/check.json" ||
	fail "the inline extent is not accounted by its length"
