#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A filesystem left with a log tree: files written and fsynced (new files,
# overwrites, preallocated and punched ranges, a file deleted after its
# fsync), then the image copied while still mounted (commit=300 keeps the
# transaction from committing; the copy reads the loop file's page cache,
# so it is what a crash right after the last fsync leaves).  The kernel
# replays the log at the next mount; btrfs check 6.2 and 6.19 call it
# clean; ghee must too, with and without --check-data-csum: checksums of
# logged extents live in the log, not in the checksum tree.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools
need_progs xfs_io

img=$TEST_TMP/fs.img
crash=$TEST_TMP/crash.img
mnt=$TEST_TMP/mnt
: > "$TEST_TMP/none"

for opts in "" ",compress=zstd"; do
	kernel_mkfs "$img" 300M
	mount_image "$img" "$mnt" space_cache=v2
	umount_image "$mnt" || fail "umount failed"
	mount_image "$img" "$mnt" "commit=300$opts"
	echo base > "$mnt/base"
	xfs_io -f -c "pwrite 0 256k" "$mnt/old" > /dev/null
	sync
	xfs_io -c "pwrite 0 64k" -c fsync "$mnt/old" > /dev/null
	xfs_io -f -c "pwrite 0 200k" -c fsync "$mnt/new" > /dev/null
	rm "$mnt/new"
	xfs_io -f -c "pwrite 0 8k" -c fsync "$mnt/other" > /dev/null
	xfs_io -f -c "falloc 0 1m" -c "pwrite 0 64k" -c fsync "$mnt/pre" > /dev/null
	xfs_io -c "fpunch 64k 64k" -c "truncate 160k" -c fsync "$mnt/old" > /dev/null
	xfs_io -f -c "pwrite 0 300k" -c fsync -c "truncate 0" -c "pwrite 0 40k" -c fsync \
		"$mnt/tr" > /dev/null
	cp --sparse=always "$img" "$crash" || fail "cannot copy the image"
	umount_image "$mnt" || fail "umount failed"
	[ "$(btrfs inspect-internal dump-super "$crash" | awk '$1 == "log_root" { print $2 }')" != 0 ] ||
		fail "opts '$opts': the copy has no log tree"
	expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$crash"
	expect_ghee $CHECK_CLEAN "$TEST_TMP/none" --check-data-csum "$crash"
	expect_progs clean clean "$crash"
	echo "ok log tree${opts:+ ($opts)}: clean"
done
