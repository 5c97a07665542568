#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every kernel-written image of tests/images (snapshots, reflinks, deleted
# subvolumes, balance, raid1, compression, quotas, every mkfs variant)
# must check clean, with and without --check-data-csum: no false alarm.
#
# One exception is tolerated and reported: mkfs.btrfs 6.2 leaves free
# space tree entries of its temporary chunks behind (FREE_SPACE_ORPHAN
# findings, nothing else).  That is real damage, the kind corpus
# images 058 and 071 hold and newer btrfs check reports too; the images
# get it from mkfs, not from the kernel.

source "$TOP/tests/common.sh"
. "$TOP/tests/images/lib.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3

"$TOP/tests/images/make-images.sh" "$CACHE" > "$TEST_TMP/make.log" 2>&1
rc=$?
[ $rc -eq 77 ] && skip "make-images.sh cannot build images here"
[ $rc -eq 0 ] || { cat "$TEST_TMP/make.log" >&2; fail "make-images.sh failed (exit $rc)"; }

failed=0
for name in $(img_names "$CACHE/images"); do
	mapfile -t devs < <(img_devices "$CACHE/images" "$name")
	for opt in "" --check-data-csum; do
		"$GHEE" check -q $opt "${devs[@]}" > "$TEST_TMP/out" 2>&1
		rc=$?
		other=$(grep '^ERROR:' "$TEST_TMP/out" | grep -v '^ERROR: \[FREE_SPACE_ORPHAN\]')
		orphans=$(grep -c '^ERROR: \[FREE_SPACE_ORPHAN\]' "$TEST_TMP/out")
		if _status_is_crash $rc || { [ $rc -ne 0 ] && [ $rc -ne $CHECK_ERRORS ]; } || [ -n "$other" ] ||
		   { [ $rc -eq $CHECK_ERRORS ] && [ "$orphans" -eq 0 ]; }; then
			echo "FAIL $name $opt (exit $rc):" >&2
			sed 's/^/    /' "$TEST_TMP/out" | head -n 20 >&2
			failed=1
		elif [ "$orphans" -gt 0 ]; then
			echo "ok $name $opt (only $orphans free space tree entries left by mkfs.btrfs)"
		else
			echo "ok $name $opt"
		fi
	done
done
[ $failed -eq 0 ] || fail "false alarms on kernel-written images"
