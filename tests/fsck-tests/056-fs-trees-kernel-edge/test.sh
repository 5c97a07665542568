#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No false alarm from phase 7 on filesystem tree edge cases the kernel
# writes (populate.sh), with and without NO_HOLES, with 4 KiB and 64 KiB
# nodes, with forced compression.  btrfs check must find each image clean
# too; ghee check must exit 0.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3 setfattr chattr mkfifo fallocate

# name  mkfs options  mount options
variants="
holes -O ^no-holes -
noholes-4k -n 4096 -
compress-64k -n 65536 -O ^no-holes compress-force=zstd
"

failed=0
while read -r name opts; do
	[ -n "$name" ] || continue
	mnt_opts=${opts##* }
	opts=${opts% *}
	img=$TEST_TMP/$name.img
	truncate -s 1G "$img" || fail "cannot create $img"
	# shellcheck disable=SC2086 # the options are words
	mkfs.btrfs -q -f -R ^free-space-tree $opts "$img" >/dev/null 2>&1 ||
		fail "mkfs.btrfs $opts failed"
	if [ "$mnt_opts" = - ]; then
		mount_image "$img" "$TEST_TMP/mnt" space_cache=v2
	else
		mount_image "$img" "$TEST_TMP/mnt" "space_cache=v2,$mnt_opts"
	fi
	bash "$TEST_DIR/populate.sh" "$TEST_TMP/mnt" > "$TEST_TMP/populate.log" 2>&1 ||
		{ cat "$TEST_TMP/populate.log" >&2; fail "populating $name failed"; }
	umount_image "$TEST_TMP/mnt" || fail "cannot unmount $name"
	btrfs check --readonly "$img" > "$TEST_TMP/progs.log" 2>&1 ||
		{ cat "$TEST_TMP/progs.log" >&2; fail "btrfs check finds $name damaged"; }
	fs_phase_codes "$img" 2> "$TEST_TMP/findings"
	if [ -s "$TEST_TMP/codes" ]; then
		echo "FAIL $name: phase 7 findings:" >&2
		head -n 20 "$TEST_TMP/findings" >&2
		failed=1
	elif [ "$FS_RC" -ne 0 ]; then
		echo "FAIL $name: exit $FS_RC from other phases:" >&2
		"$GHEE" check -q "$img" 2>&1 | head -n 10 >&2
		failed=1
	else
		echo "ok $name"
	fi
	rm -f "$img"
done <<< "$variants"
[ $failed -eq 0 ] || fail "false alarms on kernel-written edge cases"
