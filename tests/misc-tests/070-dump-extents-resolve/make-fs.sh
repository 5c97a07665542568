#!/bin/bash
# make-fs.sh MNT: fill a freshly mounted btrfs (kernel-written) with what
# owner resolution must handle: nested directories, files created and
# deleted, hard links, reflinks (whole files and ranges), compressed
# files, a subvolume with a nested subvolume, snapshots changed after
# they were taken (shared leaves, FULL_BACKREF blocks, shared data refs).
set -e
mnt=$1
n=${2:-400}

mk_tree() {
	local dir=$1 i
	mkdir -p "$dir/a/b/c" "$dir/x y"
	for i in $(seq 1 "$n"); do
		head -c $((4096 * (1 + i % 5))) /dev/urandom > "$dir/a/f$i"
	done
	for i in $(seq 1 40); do
		head -c $((8192 + i * 512)) /dev/urandom > "$dir/a/b/c/deep$i"
	done
	head -c 3M /dev/urandom > "$dir/x y/big file"
}

mk_tree "$mnt"
# deleted files leave holes and freed extents
for i in $(seq 1 7 "$n"); do rm -f "$mnt/a/f$i"; done
# hard links (INODE_REF with several names, names in other directories)
ln "$mnt/a/f2" "$mnt/a/b/link-to-f2"
ln "$mnt/a/f2" "$mnt/x y/second link"
# reflinks: a whole file and a range of the big file
cp --reflink=always "$mnt/a/f3" "$mnt/a/b/reflink-f3"
xfs_io -f -c "reflink \"$mnt/x y/big file\" 1M 0 512K" "$mnt/partial" >/dev/null 2>&1 ||
	cp --reflink=always "$mnt/x y/big file" "$mnt/partial"
# a file rewritten in the middle: one extent referenced twice with offsets
head -c 1M /dev/urandom > "$mnt/mid"
sync
dd if=/dev/urandom of="$mnt/mid" bs=4096 seek=100 count=4 conv=notrunc 2>/dev/null
# compressed data
mkdir "$mnt/comp"
chattr +c "$mnt/comp" 2>/dev/null || true
for i in $(seq 1 30); do
	yes "compressible line $i of text" | head -c $((64 * 1024 + i * 1000)) > "$mnt/comp/c$i"
done
# subvolumes, nested, and snapshots changed afterwards
btrfs -q subvolume create "$mnt/sv"
mk_tree "$mnt/sv"
btrfs -q subvolume create "$mnt/sv/inner"
for i in $(seq 1 20); do head -c 12288 /dev/urandom > "$mnt/sv/inner/i$i"; done
sync
btrfs -q subvolume snapshot "$mnt/sv" "$mnt/snap1"
mkdir "$mnt/snaps"
btrfs -q subvolume snapshot "$mnt/sv" "$mnt/snaps/snap2"
sync
# changes on both sides after the snapshot: shared leaves are copied
for i in $(seq 2 9 "$n"); do head -c 4096 /dev/urandom >> "$mnt/sv/a/f$i"; done
for i in $(seq 5 11 "$n"); do rm -f "$mnt/snap1/a/f$i"; done
echo changed > "$mnt/snaps/snap2/a/b/c/deep1"
cp --reflink=always "$mnt/sv/a/f4" "$mnt/snap1/reflinked-from-sv"
sync
