#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee usage -b on kernel-written filesystems with mixed data+metadata
# block groups (mkfs.btrfs --mixed, single and DUP) and with the other
# profiles on equal and unequal devices: every line equals what btrfs
# filesystem usage -b printed on a fresh mount of the same filesystem,
# including "Free (statfs, df)" (the kernel's statfs f_bavail, computed
# offline by ghee) and the mixed free estimate (global reserve taken out);
# only the device names differ.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs losetup

mnt=$TEST_TMP/mnt
mkdir -p "$mnt"

dev_filter()
{
	sed -e 's|^   [^ \t]*\t|   DEV\t|'
}

# one NAME "SIZE..." MKFS-OPTIONS...
one()
{
	local name=$1 sizes=$2 i=0 s loops=() imgs=()

	shift 2
	for s in $sizes; do
		i=$((i + 1))
		truncate -s "$s" "$TEST_TMP/$name.$i"
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
	for i in $(seq 1 40); do head -c $((i * 30000)) /dev/urandom > "$mnt/f$i"; done
	mkdir "$mnt/small"
	for i in $(seq 1 300); do echo "$i" > "$mnt/small/$i"; done
	for i in $(seq 1 3 40); do rm "$mnt/f$i"; done
	umount "$mnt" || fail "umount failed"
	# a fresh mount: the kernel's statfs state is what the disk says
	mount_loops "$mnt" "" "${loops[@]}" || fail "mount $name again failed"
	btrfs filesystem usage -b "$mnt" 2>/dev/null | dev_filter > "$TEST_TMP/$name.progs"
	umount "$mnt" || fail "umount failed"
	for i in "${loops[@]}"; do losetup -d "$i"; done
	grep -q 'Free (statfs, df)' "$TEST_TMP/$name.progs" || fail "$name: progs printed no statfs line"

	"$GHEE" usage -b "${imgs[@]}" | dev_filter > "$TEST_TMP/$name.ghee" || fail "$name: ghee usage failed"
	compare_outputs "$TEST_TMP/$name.progs" "$TEST_TMP/$name.ghee" ||
		fail "$name: ghee usage -b differs from btrfs filesystem usage -b"
	echo "$name: $(grep 'Free (statfs' "$TEST_TMP/$name.ghee" | tr -s ' \t' ' ')"
}

one mixed-single 1G --mixed
one mixed-dup 1G --mixed -d dup -m dup
one single-dup 1G
one raid1 "1G 1G" -d raid1 -m raid1
one raid0-unequal "1G 600M" -d raid0 -m raid1
one raid5 "700M 700M 700M" -d raid5 -m raid1
one raid10 "600M 600M 600M 600M" -d raid10 -m raid10
one raid1c3-unequal "1G 700M 500M" -d raid1c3 -m raid1c3
