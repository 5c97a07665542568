# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Helpers shared by make-images.sh, check.sh and list.sh.  Sourced, not run.
#
# Layout of CACHE_DIR/images/ for an image NAME:
#   NAME.img      the image (sparse); for multi-device images the first device
#   NAME.devN     further devices of a multi-device image (N = 2, 3, ...)
#   NAME.devices  multi-device images only: the device files, one per line,
#                 in devid order (basenames, relative to the images dir)
#   NAME.info     one-line description
#   NAME.stamp    hash of the recipe that built the image

IMG_TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# img_devices DIR NAME: print the full paths of the device files of NAME
img_devices()
{
	local dir=$1 name=$2 f

	if [ -f "$dir/$name.devices" ]; then
		while read -r f; do
			[ -n "$f" ] && echo "$dir/$f"
		done < "$dir/$name.devices"
	else
		echo "$dir/$name.img"
	fi
}

# img_names DIR: names of the complete images (image, info and stamp present)
img_names()
{
	local dir=$1 f name

	for f in "$dir"/*.img; do
		[ -f "$f" ] || continue
		name=$(basename "$f" .img)
		[ -f "$dir/$name.info" ] && [ -f "$dir/$name.stamp" ] && echo "$name"
	done | LC_ALL=C sort
}

# img_check_devices DEV...: btrfs check --readonly; returns its exit code.
# A multi-device filesystem is checked through read-only loop devices so
# that btrfs-progs' device scan finds its other members; they are detached
# (and forgotten by the kernel) before returning.
img_check_devices()
{
	local loops=() dev loop ret

	if [ $# -eq 1 ]; then
		btrfs check --readonly "$1"
		return
	fi
	for dev in "$@"; do
		loop=$(losetup --find --show --read-only "$dev") || {
			ret=1
			break
		}
		loops+=("$loop")
	done
	if [ -z "${ret:-}" ]; then
		btrfs device scan "${loops[@]}" >/dev/null 2>&1
		btrfs check --readonly "${loops[0]}"
		ret=$?
	fi
	for loop in "${loops[@]}"; do
		btrfs device scan --forget "$loop" >/dev/null 2>&1
		losetup -d "$loop"
	done
	return "$ret"
}

# img_check DIR NAME [LOG]: check one image, output to LOG (default: stdout)
img_check()
{
	local dir=$1 name=$2 log=${3:-/dev/stdout}
	local devs

	mapfile -t devs < <(img_devices "$dir" "$name")
	img_check_devices "${devs[@]}" > "$log" 2>&1
}

# img_require: exit 77 with a reason unless images can be built/checked here
img_require()
{
	local cmd

	if [ "$(id -u)" != 0 ]; then
		echo "images: needs root (mount, loop devices)"
		exit 77
	fi
	for cmd in mkfs.btrfs btrfs losetup mount umount python3 truncate \
		   chattr fallocate flock sha256sum; do
		if ! command -v "$cmd" >/dev/null 2>&1; then
			echo "images: missing command $cmd"
			exit 77
		fi
	done
	if ! grep -qw btrfs /proc/filesystems; then
		modprobe btrfs >/dev/null 2>&1
		if ! grep -qw btrfs /proc/filesystems; then
			echo "images: kernel has no btrfs"
			exit 77
		fi
	fi
	if ! losetup --find >/dev/null 2>&1; then
		echo "images: no free loop device"
		exit 77
	fi
}
