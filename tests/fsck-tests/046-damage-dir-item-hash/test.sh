#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The key offset of the DIR_ITEM of "two" moved by one (the key order of
# the leaf stays valid): it is no longer the name's hash.  The entry is
# still matched with its dir index and inode ref by name.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
# btrfs name hash of "two" (crc32c seeded with ~1, not inverted)
hash=140959266
fs_edit set-key 5 "$FS_INO_DIR" 84 $hash "$FS_INO_DIR" 84 $((hash + 1))
expect_fs_codes "$IMG" DIR_ITEM_HASH
grep -q "dir item two has key offset $((hash + 1)), the name hashes to $hash" "$TEST_TMP/check.json" ||
	fail "the message does not give both hashes"
