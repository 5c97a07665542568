#!/bin/bash
# The smallest filesystems each profile accepts (the mkfs.btrfs 6.2
# minimum) must be usable: the kernel mounts them read-write, takes a few
# files and a sync, unmounts, and btrfs check stays clean.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"

# small SIZE OPTIONS...
small()
{
	local size=$1

	shift
	new_image "$img" "$size"
	ghee_mkfs "$@" "$img"
	check_image "$img"
	mount -t btrfs -o loop "$img" "$mnt" || fail "mount of the $size filesystem ($*) failed"
	if ! cp -a "$TOP/cmds/mkfs" "$mnt/" || ! head -c 1M /dev/urandom > "$mnt/r" ||
	   ! sync; then
		umount "$mnt"
		fail "writing to the $size filesystem ($*) failed"
	fi
	umount "$mnt" || fail "umount failed"
	check_image "$img"
}

small 114294784
small 47185920 -m single
small 240123904 -d dup
small 16777216 -M
small 16777216 -M -m dup -d dup
small 114294784 -n 64k
small 72351744 -m single -d single --csum sha256 -n 4k
exit 0
