#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Damage the first superblock mirror (64 MiB) without fixing its checksum:
# the primary still opens the filesystem, and the bad mirror is reported.
# A mirror that is simply absent is only a note.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"

img=$(fsck_base_image) || exit
# one byte of the label of the copy at 64 MiB
printf 'X' | dd of="$img" bs=1 seek=$((67108864 + 299)) conv=notrunc status=none
expect_codes "$img" SUPER_MIRROR_BAD
grep -q "mirror 1 at 67108864" "$TEST_TMP/check.out" || fail "the finding does not name the mirror"

img=$(fsck_base_image) || exit
dd if=/dev/zero of="$img" bs=4096 seek=$((67108864 / 4096)) count=1 conv=notrunc status=none
"$GHEE" check "$img" > "$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "an absent mirror is not an error"; }
grep -q "no superblock mirror 1" "$TEST_TMP/out" || fail "no note about the absent mirror"
