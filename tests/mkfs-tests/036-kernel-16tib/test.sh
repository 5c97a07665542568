#!/bin/bash
# 16 TiB sparse image (on tmpfs: ext4 caps a file just below 16 TiB), and
# a 3-device filesystem on 6 TiB devices: btrfs check is clean, the kernel
# mounts them and takes a small workload.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
big=$TEST_TMP/big
mkdir -p "$big"
mount -t tmpfs -o size=2G ghee-mkfs-tmp "$big" || skip "cannot mount tmpfs"
at_exit "umount -l '$big'"
img=$big/img
new_image "$img" 16T
ghee_mkfs "$img"
check_image "$img"
compare_dump_tree "$img"
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"
mount -t btrfs -o loop "$img" "$mnt" || fail "the kernel does not mount 16 TiB"
cp -a "$TOP/kernel-shared" "$mnt/" && sync || { umount "$mnt"; fail "copy failed"; }
btrfs scrub start -B "$mnt" >/dev/null || { umount "$mnt"; fail "scrub failed"; }
umount "$mnt"
check_image "$img"
rm -f "$img"

for i in 1 2 3; do new_image "$big/d$i" 6T; done
ghee_mkfs -d raid0 -m raid1c3 "$big"/d[1-3]
attach_devices "$big"/d[1-3]
check_image "$LOOP_FIRST"
mount -t btrfs "$LOOP_FIRST" "$mnt" || fail "the kernel does not mount 3 x 6 TiB"
cp -a "$TOP/cmds" "$mnt/" && sync || { umount "$mnt"; fail "copy failed"; }
umount "$mnt"
check_image "$LOOP_FIRST"
exit 0
