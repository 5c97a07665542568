#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The second 8 KiB extent of /d/two moved from file offset 8192 to 4096:
# it overlaps the first, and the file's last 4 KiB lose their extent.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-key 5 "$FS_INO_TWO" 108 8192 "$FS_INO_TWO" 108 4096
expect_fs_codes "$IMG" FILE_EXTENT_OVERLAP FILE_EXTENT_HOLE
grep -q "root 5 inode $FS_INO_TWO: file extent at 4096 overlaps the previous one ending at 8192" "$TEST_TMP/check.json" ||
	fail "the overlap is not located"
