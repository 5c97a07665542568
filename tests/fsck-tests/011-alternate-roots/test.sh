#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checking from somewhere else than the primary superblock's roots: a
# superblock mirror (-s 1), the newest backup roots (-b), and explicit tree
# and chunk roots (-r, --chunk-root) taken from the superblock.  Each must
# find the healthy base image clean; a wrong -r block must be reported, not
# crash; a damaged primary superblock must still be checkable with -s 1.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"

img=$(fsck_base_image) || exit
field()
{
	"$GHEE" dump-super "$img" | awk -v f="$1" '$1 == f { print $2 }'
}
root=$(field root)
chunk=$(field chunk_root)
[ -n "$root" ] && [ -n "$chunk" ] || fail "cannot read the roots from dump-super"

run_check_cmd "$GHEE" check -q -s 1 "$img" >/dev/null
run_check_cmd "$GHEE" check -q -r "$root" --chunk-root "$chunk" "$img" >/dev/null
"$GHEE" check -q -b "$img" > "$TEST_TMP/out" 2>&1
rc=$?
_status_is_crash $rc && fail "crash with -b"
{ [ $rc -eq 0 ] || [ $rc -eq $CHECK_ERRORS ]; } || { cat "$TEST_TMP/out"; fail "-b could not check (status $rc)"; }

"$GHEE" check -q -r 4096 "$img" > "$TEST_TMP/out" 2>&1
rc=$?
_status_is_crash $rc && fail "crash with a wrong -r"
[ $rc -eq $CHECK_CANNOT ] || { cat "$TEST_TMP/out"; fail "a wrong tree root must make the check impossible (exit $CHECK_CANNOT), got $rc"; }

# wreck the primary superblock: only a mirror can open the filesystem
dd if=/dev/zero of="$img" bs=4096 seek=16 count=1 conv=notrunc status=none
"$GHEE" check -q "$img" >/dev/null 2>&1
[ $? -eq $CHECK_CANNOT ] || fail "without a primary superblock the check must exit $CHECK_CANNOT"
run_check_cmd "$GHEE" check -q -s 1 "$img" >/dev/null
