#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A link count of 0 is only valid while an orphan item says the inode is
# being deleted; this one has none (and still has its name).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_INLINE" 1 0 40 4 0
expect_fs_codes "$IMG" INODE_NO_ORPHAN
