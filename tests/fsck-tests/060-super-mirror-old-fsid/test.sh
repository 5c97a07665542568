#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An fsid change (btrfstune -m, and -M with a new uuid) that did not reach
# every superblock mirror: mirror 1 is put back as it was before the change.
# The kernel mounts it and btrfs check 6.2 and 6.19 call it clean; ghee
# warns (SUPER_MIRROR_OLD_FSID) and exits clean.  A mirror of a different
# filesystem is still an error (SUPER_MIRROR_BAD).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools
need_progs python3

img=$TEST_TMP/fs.img
mirror1=$((64 * 1024 * 1024))

build()
{
	kernel_mkfs "$img" 300M
	mount_image "$img" "$TEST_TMP/mnt" space_cache=v2
	echo data > "$TEST_TMP/mnt/file"
	umount_image "$TEST_TMP/mnt" || fail "umount failed"
	dd if="$img" of="$TEST_TMP/mirror1" bs=4096 skip=$((mirror1 / 4096)) count=1 status=none
	btrfstune -f "$@" "$img" > "$TEST_TMP/tune.log" 2>&1 < /dev/null ||
		{ cat "$TEST_TMP/tune.log" >&2; fail "btrfstune $* failed"; }
	# the kernel writes every mirror at its next commit
	mount_image "$img" "$TEST_TMP/mnt" space_cache=v2
	umount_image "$TEST_TMP/mnt" || fail "umount failed"
	dd if="$TEST_TMP/mirror1" of="$img" bs=4096 seek=$((mirror1 / 4096)) conv=notrunc status=none
}

for how in "-m" "-M $(python3 -c 'import uuid; print(uuid.uuid4())')"; do
	# shellcheck disable=SC2086 # option and its argument
	build $how
	gen=$(btrfs inspect-internal dump-super "$img" | sed -n 's/^generation[[:space:]]*//p')
	old=$(btrfs inspect-internal dump-super -s 1 "$img" | sed -n 's/^generation[[:space:]]*//p')
	echo "WARNING: [SUPER_MIRROR_OLD_FSID] superblock mirror 1 at $mirror1: another fsid than the primary's but the same metadata uuid: an fsid change (btrfstune -m/-M) did not reach every mirror (generation $old, primary $gen); the kernel reads only the primary; rewrite with ghee check --repair" > "$TEST_TMP/expected"
	expect_ghee $CHECK_CLEAN "$TEST_TMP/expected" "$img"
	expect_progs clean clean "$img"
	mount_image "$img" "$TEST_TMP/mnt" ro
	umount_image "$TEST_TMP/mnt" || fail "umount failed"
	echo "ok btrfstune $how: warning, clean"
done

# a mirror of another filesystem stays an error
kernel_mkfs "$TEST_TMP/other.img" 300M
dd if="$TEST_TMP/other.img" of="$img" bs=4096 skip=$((mirror1 / 4096)) seek=$((mirror1 / 4096)) \
	count=1 conv=notrunc status=none
echo "ERROR: [SUPER_MIRROR_BAD] superblock mirror 1 at $mirror1 is invalid: fsid differs from the primary superblock" > "$TEST_TMP/expected"
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
echo "ok mirror of another filesystem: error"
