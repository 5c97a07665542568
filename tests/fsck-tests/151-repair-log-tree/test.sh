#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of LOG_TREE_INVALID: a kernel-written filesystem copied while
# mounted right after an fsync (it has a log tree), then the log's root
# block damaged (its checksum: TREE_BLOCK_UNREADABLE of the log tree and
# LOG_TREE_INVALID).  The log cannot be replayed; --repair
# drops it (superblock log_root 0, what the plan says), every checker is
# clean, the kernel mounts the result and a second repair writes nothing.
# A log that is valid is still refused without --clear-log.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_verdict_tools
need_progs xfs_io python3

img=$TEST_TMP/fs.img
crash=$TEST_TMP/crash.img
mnt=$TEST_TMP/mnt
EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py

kernel_mkfs "$img" 300M
mount_image "$img" "$mnt" space_cache=v2
umount_image "$mnt" || fail "umount failed"
mount_image "$img" "$mnt" commit=300
echo base > "$mnt/base"
sync
# a sync by another process commits and drops the log: try again until
# the copy has one
for try in 1 2 3 4 5; do
	xfs_io -f -c "pwrite 0 $((try * 8))k" -c fsync "$mnt/f$try" > /dev/null || fail "xfs_io failed"
	cp --sparse=always "$img" "$crash" || fail "cannot copy the image"
	log=$(python3 "$EDIT" "$crash" get-super 96 8)
	[ "$log" != 0 ] && break
done
umount_image "$mnt" || fail "umount failed"
[ "$log" != 0 ] || fail "the copies have no log tree (something keeps committing)"

# a valid log: refused (mount to replay it, or --clear-log)
cp --sparse=always "$crash" "$TEST_TMP/valid.img" || fail "cannot copy"
"$GHEE" check "$TEST_TMP/valid.img" > "$TEST_TMP/valid.out" 2>&1 ||
	{ cat "$TEST_TMP/valid.out" >&2; fail "the copy with a valid log is not clean"; }
"$GHEE" check --repair "$TEST_TMP/valid.img" > /dev/null 2>&1
[ "$(python3 "$EDIT" "$TEST_TMP/valid.img" get-super 96 8)" = "$log" ] ||
	fail "a repair without findings dropped a valid log"

python3 "$EDIT" "$crash" break-csum "$log" || fail "edit failed"
"$GHEE" check "$crash" 2>&1 | grep -q "\[LOG_TREE_INVALID\]" || { "$GHEE" check "$crash" >&2; fail "no LOG_TREE_INVALID"; }
expect_plan_matches "$crash"
expect_repaired "$crash"
expect_change "$TEST_TMP/repair.json" "LOG_TREE_INVALID | change superblock log_root: $log -> 0"
[ "$(python3 "$EDIT" "$crash" get-super 96 8)" = 0 ] || fail "log_root is not 0"
expect_second_repair_noop "$crash"
mount_image "$crash" "$mnt"
[ "$(cat "$mnt/base")" = base ] || { umount_image "$mnt"; fail "the committed file does not read back"; }
umount_image "$mnt" || fail "umount failed"
"$GHEE" check "$crash" > "$TEST_TMP/after.out" 2>&1 || { cat "$TEST_TMP/after.out" >&2; fail "not clean after the mount"; }
