#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DIR_NLINK: a directory's link count damaged (3, then 2 as other filesystems count, on fresh copies
# of a kernel-written image) comes back to 1 and nothing else changes: the
# dry run plans exactly that change, the repair makes it, ghee check,
# btrfs check 6.2 and 6.19 are clean, the kernel lists and writes into the
# directory, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

for bad in 3 2; do
	IMG=$(fs_base_image) || exit
	[ "$(fs_item_field 5 "$FS_INO_DIR" 1 0 40 4)" = 1 ] || fail "the base directory has nlink other than 1"
	fs_edit set-item 5 "$FS_INO_DIR" 1 0 40 4 "$bad"
	expect_fs_codes "$IMG" DIR_NLINK
	expect_plan_matches "$IMG"
	expect_repaired "$IMG"
	repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
	printf 'DIR_NLINK | change root 5 (%s INODE_ITEM 0) nlink: %s -> 1\n' "$FS_INO_DIR" "$bad" > "$TEST_TMP/expected"
	compare_outputs "$TEST_TMP/expected" "$TEST_TMP/changes" || fail "nlink $bad: not exactly the one change"
	[ "$(fs_item_field 5 "$FS_INO_DIR" 1 0 40 4)" = 1 ] || fail "nlink $bad: the link count is not back to 1"
	grep -q "fixed \[DIR_NLINK\]" < <("$GHEE" check --repair --dry-run "$IMG" 2>&1) &&
		fail "nlink $bad: still planned after the repair"
	if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems; then
		mnt=$TEST_TMP/mnt
		mount_image "$IMG" "$mnt"
		ls "$mnt/d" > /dev/null && echo new > "$mnt/d/new-after-repair" ||
			{ umount_image "$mnt"; fail "nlink $bad: the kernel cannot use the directory"; }
		umount_image "$mnt"
		"$GHEE" check "$IMG" > "$TEST_TMP/after.out" 2>&1 ||
			{ cat "$TEST_TMP/after.out" >&2; fail "nlink $bad: not clean after the kernel wrote"; }
	fi
	expect_second_repair_noop "$IMG"
done
exit 0
