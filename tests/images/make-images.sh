#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2317 # recipe helpers are called indirectly
#
# make-images.sh [--only NAME] [--force] CACHE_DIR
#
# Build the test images under CACHE_DIR/images/ with the real kernel and
# btrfs-progs.  An image is rebuilt only when its recipe changed (the hash
# in NAME.stamp covers the recipe function, the shared helpers, populate.py
# and the btrfs-progs version).  Every new image must pass
# `btrfs check --readonly`.
#
# Exit: 0 all requested images present and clean, 1 a build or check
# failed, 2 usage, 77 this machine cannot build images (not root, no loop
# devices, no btrfs in the kernel, missing tools).
#
# See README.md next to this script for what each image contains.

set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
POPULATE=$IMG_TOOLS_DIR/populate.py

# ------------------------------------------------------------------
# helpers used by the recipes; they run inside the per-image subshell
# where OUT (build dir), MNT (mount point), NAME and IMG are set

# rb_uuid NAME: fixed fsid per image, so rebuilt images look alike
rb_uuid()
{
	local h

	h=$(printf 'ghee-image-%s' "$1" | sha256sum)
	echo "${h:0:8}-${h:8:4}-4${h:13:3}-8${h:17:3}-${h:20:12}"
}

# rb_mkfs_raw SIZE [MKFS ARGS...]: create the sparse image IMG exactly as
# mkfs.btrfs makes it
rb_mkfs_raw()
{
	local size=$1

	shift
	truncate -s "$size" "$IMG"
	mkfs.btrfs -q -f -U "$(rb_uuid "$NAME")" "$@" "$IMG" > "$OUT/mkfs.log" 2>&1 ||
		{ cat "$OUT/mkfs.log"; return 1; }
}

# rb_mkfs SIZE [MKFS ARGS...]: the same for an image the kernel mounts
# next: without a free space tree, which the kernel then builds at the first
# mount (rb_mount asks for space_cache=v2).  mkfs.btrfs 6.2's own free space
# tree keeps FREE_SPACE_INFO/EXTENT items of the temporary chunks it
# dropped (at 1 MiB and 5 MiB, no block group there any more) and the
# kernel never removes them; only the pure mkfs images keep that.
rb_mkfs()
{
	local size=$1

	shift
	rb_mkfs_raw "$size" -R ^free-space-tree "$@"
}

# rb_mount [OPTS]: loop-mount IMG on MNT; space_cache=v2 unless OPTS say
# otherwise
rb_mount()
{
	local opts=${1:-}

	[[ $opts == *space_cache* ]] || opts=${opts:+$opts,}space_cache=v2
	mount -o "loop,$opts" "$IMG" "$MNT"
}

rb_remount()
{
	mount -o "remount,$1" "$MNT"
}

rb_umount()
{
	sync -f "$MNT" 2>/dev/null
	umount "$MNT"
}

rb_populate()
{
	python3 "$POPULATE" "$@"
}

# rb_cleanup: EXIT trap of the per-image subshell; never leaves a mount or
# a loop device behind, whatever failed
rb_cleanup()
{
	local f loop

	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	for f in "$OUT"/*.img "$OUT"/*.dev[0-9]*; do
		[ -e "$f" ] || continue
		for loop in $(losetup -j "$f" -O NAME -n 2>/dev/null); do
			btrfs device scan --forget "$loop" >/dev/null 2>&1
			losetup -d "$loop" 2>/dev/null
		done
	done
	rm -rf "$TMPD"
}

# ------------------------------------------------------------------
# recipes: build_<name with - as _>; each sets DESC and writes $IMG (and
# NAME.devN / NAME.devices for multi-device images) into $OUT

build_workload_basic()
{
	DESC="kernel-written: file sizes, deep tree, 2000-entry dir, symlinks, hard links/extrefs, special files, xattrs/acls, holes, prealloc, truncate, delete, rename"
	rb_mkfs 512M
	rb_mount
	rb_populate basic "$MNT"
	mkdir "$MNT/prealloc"
	fallocate -l 1M "$MNT/prealloc/full"
	printf 'data before a keep-size prealloc\n' > "$MNT/prealloc/keep-size"
	fallocate -n -o 4096 -l 2M "$MNT/prealloc/keep-size"
	fallocate -l 1M "$MNT/prealloc/partly-written"
	dd if="$MNT/sizes/mib1" of="$MNT/prealloc/partly-written" bs=4096 \
		seek=64 count=16 conv=notrunc status=none
	cp "$MNT/sizes/mib1" "$MNT/prealloc/punched"
	sync -f "$MNT"
	fallocate -p -o 65536 -l 131072 "$MNT/prealloc/punched"
	rb_umount
}

build_workload_compress()
{
	DESC="kernel-written: zlib, zstd, zstd:15, lzo, compress-force files; text and random data; inline compressed; chattr +c and compression property"
	rb_mkfs 512M
	rb_mount compress=zlib
	rb_populate compress "$MNT" zlib
	rb_remount compress=zstd
	rb_populate compress "$MNT" zstd
	rb_remount compress=lzo
	rb_populate compress "$MNT" lzo
	rb_remount compress=zstd:15
	rb_populate compress "$MNT" zstd15
	rb_remount compress-force=zlib:9
	rb_populate compress "$MNT" force-zlib
	rb_umount
	rb_mount
	mkdir -p "$MNT/attr/chattr-c" "$MNT/attr/prop-zstd"
	chattr +c "$MNT/attr/chattr-c"
	btrfs property set "$MNT/attr/prop-zstd" compression zstd
	rb_populate compress-attr "$MNT"
	rb_umount
}

build_workload_reflink_snap()
{
	local id

	DESC="kernel-written: full and partial reflinks, nested subvolumes, rw/ro snapshots, snapshot of snapshot, deleted snapshot, default subvolume changed"
	rb_mkfs 512M
	rb_mount
	rb_populate reflink-data "$MNT"
	cp --reflink=always "$MNT/data/src" "$MNT/data/src-clone"
	btrfs -q subvolume create "$MNT/sv1"
	btrfs -q subvolume create "$MNT/sv1/nested"
	btrfs -q subvolume create "$MNT/sv2"
	rb_populate subvol-data "$MNT/sv1" sv1
	rb_populate subvol-data "$MNT/sv1/nested" nested
	rb_populate subvol-data "$MNT/sv2" sv2
	cp --reflink=always "$MNT/data/src" "$MNT/sv2/cross-subvol-clone"
	btrfs -q subvolume snapshot "$MNT/sv1" "$MNT/snap-rw"
	btrfs -q subvolume snapshot -r "$MNT/sv1" "$MNT/snap-ro"
	btrfs -q subvolume snapshot "$MNT" "$MNT/snap-top"
	rb_populate modify "$MNT/sv1" after-snap
	rb_populate modify "$MNT/snap-rw" in-snap
	btrfs -q subvolume snapshot "$MNT/snap-rw" "$MNT/snap-of-snap"
	btrfs -q subvolume snapshot "$MNT/sv2" "$MNT/doomed"
	rb_populate modify "$MNT/doomed" doomed
	sync -f "$MNT"
	btrfs -q subvolume delete -c "$MNT/doomed" >/dev/null
	btrfs subvolume sync "$MNT" >/dev/null 2>&1
	id=$(btrfs inspect-internal rootid "$MNT/sv2")
	btrfs subvolume set-default "$id" "$MNT"
	rb_umount
}

build_workload_quota()
{
	local qa qb

	DESC="kernel-written: quotas enabled, subvolume qgroups, 1/100 parent qgroup with assignments and limits, inherited snapshot, rescanned"
	rb_mkfs 256M
	rb_mount
	btrfs quota enable "$MNT"
	btrfs -q subvolume create "$MNT/qa"
	btrfs -q subvolume create "$MNT/qb"
	rb_populate fill "$MNT/qa" qa 20 65536 random
	rb_populate fill "$MNT/qb" qb 10 131072 text
	rb_populate fill "$MNT/top" top 5 4096 random
	qa=$(btrfs inspect-internal rootid "$MNT/qa")
	qb=$(btrfs inspect-internal rootid "$MNT/qb")
	btrfs qgroup create 1/100 "$MNT"
	btrfs qgroup assign --no-rescan "0/$qa" 1/100 "$MNT"
	btrfs qgroup assign --no-rescan "0/$qb" 1/100 "$MNT"
	btrfs qgroup limit 100M 1/100 "$MNT"
	btrfs qgroup limit -e 50M "0/$qa" "$MNT"
	btrfs -q subvolume snapshot -i 1/100 "$MNT/qa" "$MNT/qa-snap"
	rb_populate fill "$MNT/qa-snap" snap 4 65536 random
	btrfs quota rescan -w "$MNT" >/dev/null
	rb_umount
}

build_workload_balance_raid1()
{
	local dev2=$OUT/$NAME.dev2 l1 l2

	DESC="kernel-written: two-device raid1 (data and metadata), files written and some deleted, then a full balance; devices: NAME.img NAME.dev2"
	truncate -s 384M "$IMG" "$dev2"
	mkfs.btrfs -q -f -U "$(rb_uuid "$NAME")" -R ^free-space-tree \
		-d raid1 -m raid1 "$IMG" "$dev2" > "$OUT/mkfs.log" 2>&1 ||
		{ cat "$OUT/mkfs.log"; return 1; }
	printf '%s\n' "$NAME.img" "$NAME.dev2" > "$OUT/$NAME.devices"
	l1=$(losetup --find --show "$IMG")
	l2=$(losetup --find --show "$dev2")
	btrfs device scan "$l1" "$l2" >/dev/null
	mount -o space_cache=v2 "$l1" "$MNT"
	rb_populate fill "$MNT/a" a 40 262144 random
	rb_populate fill "$MNT/b" b 40 65536 text
	rm -f "$MNT"/a/a-000? "$MNT"/a/a-002?
	sync -f "$MNT"
	btrfs balance start --full-balance "$MNT" >/dev/null
	rb_umount
	btrfs device scan --forget "$l1" "$l2" >/dev/null 2>&1
	losetup -d "$l1" "$l2"
}

build_workload_balance_dup()
{
	DESC="kernel-written: created with -m single -d single, files written, then balance converting metadata and system to dup"
	rb_mkfs 256M -m single -d single
	rb_mount
	rb_populate fill "$MNT/a" a 30 131072 random
	rb_populate fill "$MNT/b" b 30 4096 text
	btrfs balance start -f -mconvert=dup -sconvert=dup "$MNT" >/dev/null
	rb_umount
}

build_workload_nodatasum()
{
	DESC="kernel-written: chattr +C (nocow) dir and file with in-place overwrite, files from nodatacow and nodatasum mounts, plus checksummed files"
	rb_mkfs 256M
	rb_mount
	rb_populate fill "$MNT/csummed" cs 8 65536 random
	mkdir "$MNT/nocow-dir"
	chattr +C "$MNT/nocow-dir"
	rb_populate fill "$MNT/nocow-dir" nd 8 65536 random
	touch "$MNT/nocow-file"
	chattr +C "$MNT/nocow-file"
	dd if="$MNT/csummed/cs-0000" of="$MNT/nocow-file" bs=64k count=1 status=none
	sync -f "$MNT"
	dd if="$MNT/csummed/cs-0001" of="$MNT/nocow-file" bs=4k count=2 seek=4 \
		conv=notrunc status=none
	rb_umount
	rb_mount nodatacow
	rb_populate fill "$MNT/nodatacow" ndc 8 65536 random
	rb_remount datacow,nodatasum
	rb_populate fill "$MNT/nodatasum" nds 8 65536 random
	rb_umount
}

# rb_mkfs_image SIZE MOUNT_OPTS MKFS_ARGS...: mkfs with the small --rootdir
# tree, then (unless MOUNT_OPTS is "-") mount once and write files through
# the kernel
rb_mkfs_image()
{
	local size=$1 opts=$2

	shift 2
	rb_populate rootdir "$TMPD/rootdir"
	if [ "$opts" = - ]; then
		rb_mkfs_raw "$size" --rootdir "$TMPD/rootdir" "$@"
		return
	fi
	rb_mkfs "$size" --rootdir "$TMPD/rootdir" "$@"
	if [ "$opts" = default ]; then
		rb_mount
	else
		rb_mount "$opts"
	fi
	rb_populate mkfs-extra "$MNT"
	rb_umount
}

build_mkfs_empty()
{
	DESC="mkfs.btrfs defaults, nothing written"
	rb_mkfs_raw 256M
}

build_mkfs_rootdir()
{
	DESC="mkfs.btrfs --rootdir only (files, sparse file, symlink, hard link, xattr); never mounted"
	rb_mkfs_image 256M -
}

build_mkfs_csum_crc32c()
{
	DESC="mkfs --csum crc32c + --rootdir, then kernel-written files"
	rb_mkfs_image 256M default --csum crc32c
}

build_mkfs_csum_xxhash()
{
	DESC="mkfs --csum xxhash + --rootdir, then kernel-written files"
	rb_mkfs_image 256M default --csum xxhash
}

build_mkfs_csum_sha256()
{
	DESC="mkfs --csum sha256 + --rootdir, then kernel-written files"
	rb_mkfs_image 256M default --csum sha256
}

build_mkfs_csum_blake2()
{
	DESC="mkfs --csum blake2 + --rootdir, then kernel-written files"
	rb_mkfs_image 256M default --csum blake2
}

build_mkfs_nodesize_4k()
{
	DESC="mkfs -n 4096 + --rootdir, then kernel-written files (many small leaves)"
	rb_mkfs_image 256M default -n 4096
}

build_mkfs_nodesize_64k()
{
	DESC="mkfs -n 65536 + --rootdir, then kernel-written files"
	rb_mkfs_image 256M default -n 65536
}

build_mkfs_mixed()
{
	DESC="mkfs --mixed (data and metadata in the same block groups) + --rootdir, then kernel-written files"
	rb_mkfs_image 256M default --mixed
}

build_mkfs_holes()
{
	DESC="mkfs -O ^no-holes (explicit hole extents) + --rootdir, then kernel-written sparse files"
	rb_mkfs_image 256M default -O ^no-holes
}

build_mkfs_space_cache_v1()
{
	DESC="mkfs -R ^free-space-tree + --rootdir, mounted with space_cache=v1 and written, so v1 free space cache inodes exist"
	rb_mkfs_image 256M space_cache=v1 -R ^free-space-tree
}

build_mkfs_bgt()
{
	DESC="mkfs -O block-group-tree + --rootdir, then kernel-written files"
	if ! mkfs.btrfs -O list-all 2>&1 | grep -q '^block-group-tree'; then
		echo "$NAME: skipped, this mkfs.btrfs has no block-group-tree feature"
		return 77
	fi
	# the block group tree needs the free space tree from mkfs
	rb_populate rootdir "$TMPD/rootdir"
	rb_mkfs_raw 256M --rootdir "$TMPD/rootdir" -O block-group-tree
	rb_mount
	rb_populate mkfs-extra "$MNT"
	rb_umount
}

ALL_IMAGES="
workload-basic
workload-compress
workload-reflink-snap
workload-quota
workload-balance-raid1
workload-balance-dup
workload-nodatasum
mkfs-empty
mkfs-rootdir
mkfs-csum-crc32c
mkfs-csum-xxhash
mkfs-csum-sha256
mkfs-csum-blake2
mkfs-nodesize-4k
mkfs-nodesize-64k
mkfs-mixed
mkfs-holes
mkfs-space-cache-v1
mkfs-bgt
"

# ------------------------------------------------------------------

recipe_hash()
{
	local fn=build_${1//-/_}

	{
		# shellcheck disable=SC2046 # function names have no spaces
		declare -f "$fn" $(compgen -A function rb_)
		cat "$POPULATE"
		btrfs --version
	} | sha256sum | cut -d' ' -f1
}

# build_one NAME: 0 built and clean, 1 failed, 77 skipped
build_one()
{
	local name=$1
	local out=$DEST/.build-$name ret start f ms

	start=$(date +%s%N)
	rm -rf "$out"
	mkdir -p "$out"
	(
		set -e
		NAME=$name
		OUT=$out
		IMG=$out/$name.img
		TMPD=$(mktemp -d /tmp/ghee-images.XXXXXX)
		MNT=$TMPD/mnt
		mkdir "$MNT"
		trap rb_cleanup EXIT
		trap 'exit 130' INT TERM
		DESC=
		"build_${name//-/_}"
		echo "$DESC" > "$OUT/$NAME.info"
	)
	ret=$?
	if [ $ret -eq 0 ] && ! img_check "$out" "$name" "$out/check.log"; then
		echo "$name: FAILED btrfs check --readonly:"
		sed 's/^/    /' "$out/check.log"
		ret=1
	fi
	if [ $ret -ne 0 ]; then
		[ $ret -ne 77 ] && echo "$name: build failed (exit $ret), left in $out"
		[ $ret -eq 77 ] && rm -rf "$out"
		return $ret
	fi
	# replace the old image only once the new one is known good
	rm -f "$DEST/$name.img" "$DEST/$name".dev[0-9]* "$DEST/$name.devices" \
		"$DEST/$name.info" "$DEST/$name.stamp"
	for f in "$out/$name".img "$out/$name".dev[0-9]* "$out/$name".devices \
		 "$out/$name".info; do
		[ -e "$f" ] && mv "$f" "$DEST/"
	done
	recipe_hash "$name" > "$DEST/$name.stamp"
	rm -rf "$out"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	printf '%s: built and clean in %d.%03ds\n' "$name" $((ms / 1000)) $((ms % 1000))
	return 0
}

usage()
{
	echo "usage: $0 [--only NAME] [--force] CACHE_DIR" >&2
	echo "images:" $ALL_IMAGES >&2
	exit 2
}

main()
{
	local only='' force='' cache='' name failed='' built=0 ret

	while [ $# -gt 0 ]; do
		case $1 in
		--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
		--force) force=1; shift ;;
		-h|--help) usage ;;
		-*) usage ;;
		*) [ -z "$cache" ] || usage; cache=$1; shift ;;
		esac
	done
	[ -n "$cache" ] || usage
	if [ -n "$only" ] && ! grep -qx -- "$only" <<< "$ALL_IMAGES"; then
		echo "unknown image $only" >&2
		usage
	fi
	img_require
	DEST=$cache/images
	mkdir -p "$DEST" || exit 1
	DEST=$(cd "$DEST" && pwd)
	# one builder at a time per cache; others wait and then find it done
	exec 9> "$DEST/.lock"
	flock 9

	for name in $ALL_IMAGES; do
		[ -z "$only" ] || [ "$name" = "$only" ] || continue
		if [ -z "$force" ] && [ -f "$DEST/$name.img" ] &&
		   [ -f "$DEST/$name.info" ] && [ -f "$DEST/$name.stamp" ] &&
		   [ "$(cat "$DEST/$name.stamp")" = "$(recipe_hash "$name")" ]; then
			continue
		fi
		build_one "$name"
		ret=$?
		if [ $ret -eq 0 ]; then
			built=$((built + 1))
		elif [ $ret -ne 77 ]; then
			failed="$failed $name"
		fi
	done
	echo "images: $built built, in $DEST"
	if [ -n "$failed" ]; then
		echo "images: FAILED:$failed"
		exit 1
	fi
	exit 0
}

main "$@"
