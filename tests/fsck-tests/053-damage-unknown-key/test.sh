#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The xattr item of /d/big retyped to key type 25, which no filesystem
# tree item has (the leaf's key order stays valid).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$IMG" first 5 24) || fail "no xattr item"
fs_edit set-key 5 "$obj" 24 "$off" "$obj" 25 "$off"
expect_fs_codes "$IMG" FS_TREE_UNKNOWN_KEY
grep -q "root 5: unknown key ($obj 25 $off) in a filesystem tree" "$TEST_TMP/check.json" ||
	fail "the key is not shown"
