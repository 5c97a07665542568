#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Raise the count of the first inline back reference of a data extent by
# one: the extent item's refs no longer equal its back references, and the
# detail pass names the back reference whose count the trees do not make.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
run_check_cmd "$GHEE" check -q "$img" >/dev/null
read -r bytenr type len < <(python3 "$EDIT" "$img" first 2 168) || fail "no data extent"
# extent item (24 bytes), inline ref type (1), root, inode, offset (24): count
python3 "$EDIT" "$img" add-item 2 "$bytenr" 168 "$len" 49 4 1 || fail "edit failed"
expect_codes "$img" EXTENT_ITEM_INVALID EXTENT_BACKREF_UNUSED
grep -q "count 2, the trees make it 1 time(s)" "$TEST_TMP/check.out" ||
	fail "the detail does not give both counts"
