#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Without NO_HOLES every byte below i_size needs a file extent.  The
# second extent of a 16 KiB file shrunk to 4 KiB leaves [12288, 16384)
# uncovered, and the file's nbytes no longer matches its extents.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_TWO" 108 8192 45 8 4096
expect_fs_codes "$IMG" FILE_EXTENT_HOLE INODE_NBYTES
grep -q "root 5 inode $FS_INO_TWO: missing file extent (hole) at 12288 length 4096" "$TEST_TMP/check.json" ||
	fail "the hole is not located"
