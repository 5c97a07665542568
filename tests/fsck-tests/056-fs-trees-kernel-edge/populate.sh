#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# populate.sh MNT: filesystem tree edge cases, written by the kernel:
# inline extents grown and truncated, holes, prealloc (keep-size, partly
# written, punched, zeroed), reflinks and bookend extents, hundreds of
# hard links (extrefs), renames, special files, long symlinks, xattrs,
# inode flags, compression, a big directory with deletions, nested and
# deleted subvolumes, snapshots holding an entry of a deleted subvolume.
set -e
M=$1
cd "$M"
printf 'hello' > inl-grow; sync -f .
dd if=/dev/urandom of=inl-grow bs=1 seek=3000 count=100 conv=notrunc status=none
printf 'tail' > inl-trunc-up; sync -f .; truncate -s 1M inl-trunc-up
head -c 3000 /dev/urandom > inl-trunc-down; sync -f .; truncate -s 100 inl-trunc-down
head -c 4095 /dev/zero | tr '\0' 'a' > inl-max
dd if=/dev/urandom of=sparse bs=4096 seek=100 count=3 status=none; truncate -s 2M sparse
dd if=/dev/urandom of=sparse2 bs=1 seek=123456 count=777 status=none
truncate -s 10M empty-big
fallocate -l 1M pre-full
printf 'x' > pre-keep; fallocate -n -o 4096 -l 256K pre-keep
fallocate -l 512K pre-part
dd if=/dev/urandom of=pre-part bs=4096 seek=10 count=5 conv=notrunc status=none
head -c 1M /dev/urandom > punched; sync -f .
fallocate -p -o 65536 -l 131072 punched; fallocate -p -o 0 -l 4096 punched
head -c 1M /dev/urandom > zeroed; sync -f .; fallocate -z -o 8192 -l 65536 zeroed || true
head -c 2M /dev/urandom > src; sync -f .
cp --reflink=always src clone
dd if=/dev/urandom of=clone bs=4096 seek=7 count=2 conv=notrunc status=none
head -c 512K /dev/urandom > bookend; sync -f .
dd if=/dev/urandom of=bookend bs=4096 seek=20 count=3 conv=notrunc status=none; sync -f .
truncate -s 300000 bookend
mkdir -p links/a links/b
echo target > links/t
for i in $(seq 1 300); do ln links/t "links/a/link-with-a-long-name-to-fill-the-leaf-quickly-$i"; done
for i in $(seq 1 20); do ln links/t "links/b/l$i"; done
rm -f links/a/link-with-a-long-name-to-fill-the-leaf-quickly-1[0-9]
mv links/b/l3 links/a/moved
mv links/t links/b/renamed
mkfifo fifo; mknod chr c 1 3; mknod blk b 7 0
python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.bind('sock')"
ln -s "$(head -c 2000 /dev/zero | tr '\0' 'p')" symlong
ln -s short symshort
ln -s /nonexistent dangling
echo x > xa
for i in $(seq 1 50); do setfattr -n "user.attr$i" -v "value$i" xa; done
setfattr -n user.big -v "$(head -c 3000 /dev/zero | tr '\0' 'v')" xa
setfattr -n trusted.t -v 1 xa; setfattr -x user.attr7 xa
mkdir xdir; setfattr -n user.d -v dirattr xdir
echo i > immut; chattr +i immut
echo a > appendonly; chattr +a appendonly
mkdir nocow; chattr +C nocow; head -c 100K /dev/urandom > nocow/f; echo s > nocow/small
mkdir compr; chattr +c compr; head -c 300K /dev/zero > compr/zeros
printf 'abc%.0s' $(seq 1 500) > compr/inline
mkdir big
for i in $(seq 1 1500); do : > "big/file-$i"; done
for i in $(seq 1 3 1500); do rm "big/file-$i"; done
mkdir -p mv/d1/d2 mv/e; echo 1 > mv/x; echo 2 > mv/y
mv mv/x mv/y; mv mv/d1/d2 mv/e/; mv mv/d1 mv/e/d2/
btrfs -q subvolume create sv
btrfs -q subvolume create sv/inner
echo in > sv/inner/f; echo sv > sv/f
btrfs -q subvolume snapshot sv snap
btrfs -q subvolume snapshot -r sv snap-ro
btrfs -q subvolume delete sv/inner
echo changed > snap/f; rm snap/f; mkdir snap/newdir
btrfs -q subvolume create sv/later
btrfs -q subvolume snapshot . top-snap
sync
