#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shorten a free space extent of the free space tree by one sector: that
# sector becomes space the tree calls used although no extent covers it.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r start type len < <(python3 "$EDIT" "$img" first 10 199) || fail "no free space extent"
[ "$len" -gt 4096 ] || skip "first free space extent is a single sector"
python3 "$EDIT" "$img" set-key 10 "$start" 199 "$len" "$start" 199 $((len - 4096)) ||
	fail "edit failed"
expect_codes "$img" FREE_SPACE_MISMATCH
grep -q "\[$((start + len - 4096)), $((start + len))) is free but the free space tree does not have it" \
	"$TEST_TMP/check.out" || fail "the finding does not name the range"
