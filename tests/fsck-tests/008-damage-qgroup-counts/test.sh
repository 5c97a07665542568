#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On a kernel-written image with quotas, raise the referenced bytes of the
# top subvolume's qgroup: recomputing from the extent tree disagrees.

source "$TOP/tests/common.sh"
need_progs python3
EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py

bash "$TOP/tests/images/make-images.sh" --only workload-quota "$CACHE" >&2
rc=$?
[ $rc -eq 77 ] && skip "cannot build kernel images here"
[ $rc -eq 0 ] || fail "make-images.sh failed"
img=$TEST_TMP/quota.img
cp --sparse=always "$CACHE/images/workload-quota.img" "$img" || fail "no quota image"

run_check_cmd "$GHEE" check -q "$img" >/dev/null
# quota tree (8): QGROUP_INFO (242) of 0/5; rfer at offset 8
python3 "$EDIT" "$img" add-item 8 0 242 5 8 8 4096 || fail "edit failed"
"$GHEE" check -q "$img" > "$TEST_TMP/out" 2>&1
rc=$?
cat "$TEST_TMP/out"
[ $rc -eq $CHECK_ERRORS ] || fail "expected exit status $CHECK_ERRORS, got $rc"
grep -q "^ERROR: \[QGROUP_COUNTS\] qgroup 0/5: counts are different" "$TEST_TMP/out" ||
	fail "no QGROUP_COUNTS finding for 0/5"
