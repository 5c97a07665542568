#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multi-device filesystems written by the kernel: RAID5 data with RAID1
# metadata on 3 devices, RAID6 data with RAID1C3 metadata on 4 devices
# (plus RAID10 data on the same 4).  ghee usage -b must print what btrfs
# filesystem usage -b printed while mounted (parity counted in the raw
# bytes of each device; device names and the statfs line aside), and ghee
# dump-free-space what python3-btrfs read through the ioctls.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs losetup
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c "import btrfs" 2>/dev/null || skip "python3-btrfs is not installed"
F=$TOP/tests/misc-tests/060-dump-free-space-kernel

mnt=$TEST_TMP/mnt
mkdir -p "$mnt"

usage_filter()
{
	grep -v 'Free (statfs, df)' | sed -e 's|^   [^ \t]*\t|   DEV\t|'
}

one()
{
	local name=$1 n=$2 i loops=() imgs=()

	shift 2
	for i in $(seq 1 "$n"); do
		truncate -s 1G "$TEST_TMP/$name.$i"
		imgs+=("$TEST_TMP/$name.$i")
	done
	mkfs.btrfs -q -f "$@" "${imgs[@]}" >/dev/null 2>&1 || fail "mkfs.btrfs $* failed"
	for i in "${imgs[@]}"; do
		at_exit "detach_file '$i'"
		loops+=("$(losetup -f --show "$i")") || fail "losetup failed"
	done
	btrfs device scan "${loops[@]}" >/dev/null 2>&1
	mount_loops "$mnt" "" "${loops[@]}" || fail "mount $name failed"
	at_exit "umount $mnt 2>/dev/null"
	for i in $(seq 1 60); do head -c $((i * 20000)) /dev/urandom > "$mnt/f$i"; done
	for i in $(seq 1 3 60); do rm "$mnt/f$i"; done
	sync
	btrfs filesystem usage -b "$mnt" 2>/dev/null | usage_filter > "$TEST_TMP/$name.progs"
	"$PY" "$F/fsview.py" "$mnt" > "$TEST_TMP/$name.kernel" || fail "python3-btrfs failed"
	umount "$mnt" || fail "umount failed"
	for i in "${loops[@]}"; do losetup -d "$i"; done

	"$GHEE" usage -b "${imgs[@]}" | usage_filter > "$TEST_TMP/$name.ghee" || fail "$name: ghee usage failed"
	compare_outputs "$TEST_TMP/$name.progs" "$TEST_TMP/$name.ghee" ||
		fail "$name: ghee usage -b differs from btrfs filesystem usage -b"
	"$GHEE" dump-free-space --format json "${imgs[@]}" |
		"$PY" "$F/ghee-view.py" > "$TEST_TMP/$name.fs" || fail "$name: ghee dump-free-space failed"
	compare_outputs "$TEST_TMP/$name.kernel" "$TEST_TMP/$name.fs" ||
		fail "$name: ghee dump-free-space differs from python3-btrfs"
	run_check_cmd "$GHEE" dump-free-space --compare extents "${imgs[@]}" > /dev/null
	echo "$name: usage and free space equal"
}

one raid5 3 -d raid5 -m raid1
one raid6 4 -d raid6 -m raid1c3
one raid10 4 -d raid10 -m raid10
exit 0
