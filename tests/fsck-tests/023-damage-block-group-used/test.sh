#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Add one sector to the used bytes of a block group item: exactly one
# finding, BLOCK_GROUP_USED, with the stored and the computed value.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r start type len < <(python3 "$EDIT" "$img" first 2 192) || fail "no block group item"
used=$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 0 8) || fail "read failed"
python3 "$EDIT" "$img" add-item 2 "$start" 192 "$len" 0 8 4096 || fail "edit failed"
expect_codes "$img" BLOCK_GROUP_USED
grep -q "block group at $start length $len: used $((used + 4096)), extents sum to $used" \
	"$TEST_TMP/check.out" || fail "wrong values in the finding"
