#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# How examples/demo.img.xz was made: a 128 MiB btrfs filesystem created by
# mkfs.btrfs --rootdir from a few small files.  mkfs.btrfs 6.2 leaves the
# free space entries of its temporary chunks behind when it builds a free
# space tree, so the tree is left out and the kernel builds a clean one at
# the first mount.  Needs root, loop devices, kernel btrfs, btrfs-progs,
# attr, xz.
# usage: examples/make-demo.sh OUT.img.xz
set -euo pipefail

out=${1:?usage: make-demo.sh OUT.img.xz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

mkdir -p "$root/docs" "$root/src" "$root/empty-dir"
printf 'Demo filesystem for ghee.\nMade with mkfs.btrfs --rootdir.\n' > "$root/README"
printf 'hello, btrfs\n' > "$root/docs/hello.txt"
seq 1 2000 > "$root/docs/numbers.txt"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > "$root/src/hi.c"
head -c 20000 /dev/zero | tr '\0' 'g' > "$root/src/ghee.dat"
ln -s docs/hello.txt "$root/hello-link"
setfattr -n user.comment -v "an xattr" "$root/README"
find "$root" -exec touch -h -d '2024-01-01 00:00:00 UTC' {} +

truncate -s 128M "$work/demo.img"
mkfs.btrfs -q -f -L ghee-demo -R ^free-space-tree --rootdir "$root" "$work/demo.img"
mkdir "$work/mnt"
mount -o loop,space_cache=v2 "$work/demo.img" "$work/mnt"
umount "$work/mnt"
btrfs check --readonly "$work/demo.img"
xz -9e -T1 -c "$work/demo.img" > "$out"
ls -l "$out"
