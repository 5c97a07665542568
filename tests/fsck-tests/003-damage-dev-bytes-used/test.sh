#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Raise device 1's bytes_used in its device item by 1 MiB: it no longer
# equals the sum of its device extents.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
# chunk tree (3), DEV_ITEMS (1) DEV_ITEM (216) devid 1; bytes_used at 16
python3 "$EDIT" "$img" add-item 3 1 216 1 16 8 1048576 || fail "edit failed"
expect_codes "$img" DEV_BYTES_USED
grep -q "device 1: bytes_used" "$TEST_TMP/check.out" || fail "the finding does not name the device"
