#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compressed data extents of a file with data checksums (no NODATASUM)
# whose checksums are gone: the csum item is moved past every extent
# (key rewritten, checksums recomputed).  btrfs check 6.2 and 6.19 report
# the missing checksums; ghee must report each compressed extent without
# them, and the moved checksums that now cover no extent.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools
need_progs python3

edit=$TOP/tests/fsck-tests/lib/btrfs-edit.py
img=$TEST_TMP/fs.img
csum_obj=18446744073709551606	# BTRFS_EXTENT_CSUM_OBJECTID (-10)
# The checksums of both extents are normally one csum item; when the
# kernel's writeback splits them into two (seen on a slow, loaded
# machine) moving the first item would break the key order, so the
# image is made again (at most three times).
for attempt in 1 2 3; do
	kernel_mkfs "$img" 300M
	mount_image "$img" "$TEST_TMP/mnt" space_cache=v2,compress-force=zstd
	yes compressible | head -c 200000 > "$TEST_TMP/mnt/file"
	ino=$(stat -c %i "$TEST_TMP/mnt/file")
	umount_image "$TEST_TMP/mnt" || fail "umount failed"
	: > "$TEST_TMP/none"
	expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$img"
	expect_progs clean clean "$img"

	# the file's extents: disk_bytenr (at 21) and disk_num_bytes (at 29), and
	# compression (at 16) of struct btrfs_file_extent_item
	extents=()
	for off in 0 131072; do
		[ "$(python3 "$edit" "$img" get-item 5 "$ino" 108 $off 16 1)" = 3 ] ||
			fail "extent at $off is not zstd-compressed"
		extents+=("$(python3 "$edit" "$img" get-item 5 "$ino" 108 $off 21 8) $(python3 "$edit" "$img" get-item 5 "$ino" 108 $off 29 8)")
	done
	read -r second _ <<< "${extents[1]}"
	python3 "$edit" "$img" find 7 $csum_obj 128 "$second" >/dev/null 2>&1 || break
	[ $attempt = 3 ] && skip "the kernel wrote the checksums in two items three times"
done
read -r first _ <<< "${extents[0]}"
moved=$((first + 64 * 1024 * 1024))
size=$(python3 "$edit" "$img" find 7 $csum_obj 128 "$first" | cut -d' ' -f4) ||
	fail "no csum item at $first"
python3 "$edit" "$img" set-key 7 $csum_obj 128 "$first" $csum_obj 128 $moved ||
	fail "cannot move the csum item"
{
	echo "ERROR: [CSUM_NO_EXTENT] csums for [$moved $((size / 4 * 4096))] cover no data extent"
	for e in "${extents[@]}"; do
		read -r start len <<< "$e"
		echo "ERROR: [CSUM_MISSING] root 5 inode $ino: data extent [$start $len] has no checksums"
	done
} > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok compressed extents without checksums"
