#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Move the free space info item of the first block group one sector down:
# it now belongs to no block group (an orphan, like the entries mkfs.btrfs
# 6.2 leaves behind, corpus 071), and that block group has no info item.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r start type len < <(python3 "$EDIT" "$img" first 10 198) || fail "no free space info"
python3 "$EDIT" "$img" set-key 10 "$start" 198 "$len" $((start - 4096)) 198 "$len" ||
	fail "edit failed"
expect_codes "$img" FREE_SPACE_ORPHAN FREE_SPACE_INFO_INVALID
grep -q "free space tree: ($((start - 4096)) FREE_SPACE_INFO $len) does not belong to any block group" \
	"$TEST_TMP/check.out" || fail "the orphan is not named"
