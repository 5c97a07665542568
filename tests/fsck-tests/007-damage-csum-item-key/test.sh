#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Move the first checksum item to address 0 (keys stay in order): its
# checksums now cover no data extent, and the data it covered has none.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$img" first 7 128) || fail "no csum item"
python3 "$EDIT" "$img" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 || fail "edit failed"
expect_codes "$img" CSUM_NO_EXTENT CSUM_MISSING
grep -q "CSUM_NO_EXTENT\] csums for \[0 " "$TEST_TMP/check.out" || fail "the orphan range is not named"
