#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Change one byte of the name in the subvolume's ROOT_BACKREF: the root ref
# and backref pair no longer agree.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
# root tree (1): ROOT_BACKREF (144) of subvolume 256 in tree 5; the name
# starts after dirid, sequence and name_len (18 bytes)
python3 "$EDIT" "$img" set-item 1 256 144 5 18 1 0x5a || fail "edit failed"
expect_codes "$img" ROOT_REF_MISMATCH
