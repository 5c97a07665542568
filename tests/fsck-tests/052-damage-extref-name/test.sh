#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The base image's /links/t has 401 names, most of them in INODE_EXTREF
# items (keyed by a hash of directory and name).  One byte of the name in
# the first extref changed: its key is no longer the hash, the changed
# name matches no dir entry, and the real entry has no ref.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$IMG" first 5 13) || fail "no inode extref"
[ "$obj" = "$FS_INO_TARGET" ] || fail "the first extref belongs to inode $obj"
# extref: parent (8), index (8), name_len (2), name
old=$(fs_item_field 5 "$obj" 13 "$off" 18 1)
fs_edit set-item 5 "$obj" 13 "$off" 18 1 $((old ^ 0x20))
expect_fs_codes "$IMG" INODE_REF_INVALID INODE_REF_UNMATCHED INODE_REF_MISSING
