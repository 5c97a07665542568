#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FREE_SPACE_CACHE_INVALID: a filesystem the kernel wrote with the v1 space
# cache (mount -o space_cache=v1; the kernel caches block groups of 100 MiB
# and more, so a 2 GiB image) loses the mode of the data group's cache
# inode (0, as in corpus image 039-bad-inode-mode
# bad_free_space_cache_imode); then the cache header's location names an
# inode that does not exist.  The repair writes the group's cache anew
# (the commit stamps a new cache generation), the one change; ghee check,
# btrfs check 6.2 and 6.19 are clean, the kernel mounts the image, reads
# every file back and writes, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 sha256sum
need_loop
need_kernel_btrfs

FREE_SPACE=18446744073709551605

base=$TEST_TMP/v1.img
truncate -s 2G "$base" || fail "cannot create $base"
mkfs.btrfs -q -f -R ^free-space-tree "$base" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
# no discard: the kernel writes no v1 cache with async discard
mount_image "$base" "$TEST_TMP/mnt" space_cache=v1,nodiscard
echo hello > "$TEST_TMP/mnt/a" && head -c 300000 /dev/urandom > "$TEST_TMP/mnt/b" ||
	{ umount_image "$TEST_TMP/mnt"; fail "cannot write the files"; }
umount_image "$TEST_TMP/mnt"
"$GHEE" check "$base" > "$TEST_TMP/base.out" 2>&1 || { cat "$TEST_TMP/base.out" >&2; fail "the v1 image is not clean"; }
file_sums "$base" "$TEST_TMP/sums.before" ro
# the data block group and its cache inode
read -r bg ino < <(python3 - "$base" "$EDIT" $FREE_SPACE <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
data_groups = set()
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(2)):
    if key[1] == 192 and struct.unpack_from('<Q', img.read_block(blk), 101 + off + 16)[0] & 1:
        data_groups.add(key[0])
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(1)):
    if key[0] == int(sys.argv[3]) and key[2] in data_groups:
        print(key[2], struct.unpack_from('<Q', img.read_block(blk), 101 + off)[0])
        break
PY
)
[ -n "$ino" ] || fail "the kernel wrote no v1 cache for the data block group"

for damage in mode location; do
	img=$TEST_TMP/$damage.img
	cp --sparse=always "$base" "$img" || fail "cannot copy the image"
	if [ $damage = mode ]; then
		python3 "$EDIT" "$img" set-item 1 "$ino" 1 0 52 4 0 || fail "edit failed"
		why="free space cache inode $ino has invalid mode: has 00 expect 0100600"
	else
		python3 "$EDIT" "$img" set-item 1 $FREE_SPACE 0 "$bg" 0 8 100000 || fail "edit failed"
		why="free space cache inode 100000 is missing"
	fi
	expect_codes "$img" FREE_SPACE_CACHE_INVALID
	grep -qF "[FREE_SPACE_CACHE_INVALID] free space cache for block group $bg: $why" "$TEST_TMP/check.out" ||
		fail "$damage: not the expected finding"
	expect_exact_repair "$img" "FREE_SPACE_CACHE_INVALID | rebuild v1 space cache of block group $bg"
	expect_same_files "$img" "$TEST_TMP/sums.before"
	mount_image "$img" "$TEST_TMP/mnt" space_cache=v1,nodiscard
	head -c 500000 /dev/urandom > "$TEST_TMP/mnt/c" || { umount_image "$TEST_TMP/mnt"; fail "$damage: cannot write"; }
	umount_image "$TEST_TMP/mnt"
	expect_all_clean "$img"
	echo "ok $damage"
done
exit 0
