#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A seed device with a filesystem sprouted on it (btrfstune -S 1, mount,
# btrfs device add, remount rw, write, unmount).  The sprout's chunk tree
# names the seed's device, which has the seed's fsid; its tree blocks carry
# that fsid too.  ghee must take the seed device when it is given, find it
# by scanning when it is attached, and check both clean, as btrfs check 6.2
# and 6.19 do; the seed alone is clean too; the sprout without its seed is
# an error.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools

seed=$TEST_TMP/seed.img
sprout=$TEST_TMP/sprout.img
mnt=$TEST_TMP/mnt
: > "$TEST_TMP/none"

kernel_mkfs "$seed" 300M
mount_image "$seed" "$mnt" space_cache=v2
echo seed data > "$mnt/s"
head -c 100000 /dev/urandom > "$mnt/sr"
umount_image "$mnt" || fail "umount failed"
btrfstune -S 1 "$seed" || fail "btrfstune -S 1 failed"
truncate -s 300M "$sprout"
mount_image "$seed" "$mnt"	# read-only: it is a seed
sprout_dev=$(losetup --find --show "$sprout") || fail "losetup failed"
at_exit "detach_file '$sprout'"
btrfs device add -f "$sprout_dev" "$mnt" > /dev/null || fail "device add failed"
mount -o remount,rw "$mnt" || fail "remount rw failed"
echo new > "$mnt/n"
head -c 200000 /dev/urandom > "$mnt/nr"
rm "$mnt/s"
umount_image "$mnt" || fail "umount failed"
detach_file "$sprout"

expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$sprout" "$seed"
expect_ghee $CHECK_CLEAN "$TEST_TMP/none" --check-data-csum "$sprout" "$seed"
echo "ok sprout and seed given"
expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$seed" "$sprout"
echo "ok seed given first: the sprout is checked"
expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$seed"
expect_progs clean clean "$seed"
echo "ok seed alone"

# the seed attached read-only: the scan finds it, for ghee and btrfs check,
# beside a seed device of another filesystem with the same devid
other=$TEST_TMP/other-seed.img
kernel_mkfs "$other" 200M
btrfstune -S 1 "$other" || fail "btrfstune -S 1 failed"
losetup --find -r "$other" || fail "losetup failed"
at_exit "detach_file '$other'"
losetup --find -r "$seed" || fail "losetup failed"
at_exit "detach_file '$seed'"
expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$sprout"
expect_progs clean clean "$sprout"
echo "ok seed found by the scan"

# without its seed the sprout cannot be read whole
"$GHEE" check -q --noscan "$sprout" > "$TEST_TMP/out" 2>&1
rc=$?
[ $rc -eq $CHECK_ERRORS ] || { cat "$TEST_TMP/out" >&2; fail "without the seed: exit $rc, expected $CHECK_ERRORS"; }
grep -q '^ERROR: \[TREE_BLOCK_UNREADABLE\] .*No such device' "$TEST_TMP/out" ||
	{ cat "$TEST_TMP/out" >&2; fail "without the seed: no unreadable tree block"; }
detach_file "$seed"
detach_file "$other"
expect_progs errors errors "$sprout"
echo "ok sprout without its seed: error"
