#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of QGROUP_INVALID: a kernel-written filesystem with quotas on (a
# subvolume, files in both) loses the quota tree's status item.  The
# repair makes it again (on, consistent, as of its transaction); the check
# after it compares every qgroup's counts (they hold), every checker is
# clean, the kernel mounts it and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_verdict_tools
need_progs python3

EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py
DEL=$TOP/tests/fsck-tests/lib/btrfs-del-item.py
img=$TEST_TMP/fs.img
mnt=$TEST_TMP/mnt

kernel_quota_image "$img"

python3 "$DEL" "$img" 8 0 240 0 || fail "edit failed"
"$GHEE" check "$img" 2>&1 | grep -q "\[QGROUP_INVALID\] qgroup status: the quota tree has no status item" ||
	{ "$GHEE" check "$img" >&2; fail "no QGROUP_INVALID"; }
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "QGROUP_INVALID | insert quota tree item (0 QGROUP_STATUS 0) version 1 flags ON"
[ "$(python3 "$EDIT" "$img" get-item 8 0 240 0 16 8)" = 1 ] || fail "the status is not ON"
expect_second_repair_noop "$img"
mount_image "$img" "$mnt"
btrfs qgroup show "$mnt" > "$TEST_TMP/qg.out" 2>&1 || { umount_image "$mnt"; cat "$TEST_TMP/qg.out" >&2; fail "qgroup show failed"; }
umount_image "$mnt" || fail "umount failed"
"$GHEE" check "$img" > "$TEST_TMP/after.out" 2>&1 || { cat "$TEST_TMP/after.out" >&2; fail "not clean after the mount"; }
