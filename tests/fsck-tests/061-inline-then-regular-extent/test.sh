#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel leaves a small file's inline extent at offset 0 and puts
# regular extents behind it when a range is cloned (or preallocated) past
# the inline data, with and without compression.  Its tree checker and
# btrfs check 6.2 and 6.19 accept that; so must ghee.  An inline extent
# off offset 0 is still an error.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools
need_progs xfs_io python3

img=$TEST_TMP/fs.img
mnt=$TEST_TMP/mnt
: > "$TEST_TMP/none"
for opts in space_cache=v2 space_cache=v2,compress=zstd space_cache=v2,max_inline=2048; do
	kernel_mkfs "$img" 300M
	mount_image "$img" "$mnt" "$opts"
	head -c 200000 /dev/urandom > "$mnt/src"
	echo small > "$mnt/clone"
	yes abc | head -c 1500 > "$mnt/clone2"
	sync
	xfs_io -c "reflink $mnt/src 0 65536 65536" "$mnt/clone" > /dev/null ||
		fail "xfs_io reflink failed"
	xfs_io -c "reflink $mnt/src 65536 8192 4096" "$mnt/clone2" > /dev/null ||
		fail "xfs_io reflink failed"
	ino=$(stat -c %i "$mnt/clone")
	umount_image "$mnt" || fail "umount failed"
	btrfs inspect-internal dump-tree -t 5 "$img" |
		grep -A1 "key ($ino EXTENT_DATA 0)" | grep -q 'type 0 (inline)' ||
		fail "$opts: the kernel did not keep the inline extent of inode $ino"
	expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$img"
	expect_progs clean clean "$img"
	echo "ok $opts: inline extent then regular extents, clean"
done

# damage: the inline extent moved off offset 0.  The kernel's tree checker
# rejects the leaf (the mount fails reading the fs tree); btrfs check 6.2
# and 6.19 do not notice, ghee does.
edit=$TOP/tests/fsck-tests/lib/btrfs-edit.py
python3 "$edit" "$img" set-key 5 "$ino" 108 0 "$ino" 108 4096 ||
	fail "cannot edit the file extent key"
leaf=$(python3 "$edit" "$img" leaf-of 5 "$ino" 108 4096) || fail "no leaf"
slot=$(python3 "$edit" "$img" find 5 "$ino" 108 4096 | cut -d' ' -f2)
cat > "$TEST_TMP/expected" <<EOT
ERROR: [TREE_ITEM_INVALID] tree 5: block $leaf slot $slot key ($ino EXTENT_DATA 4096): inline extent at file offset 4096, expect 0
EOT
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs clean clean "$img"
echo "ok inline extent off offset 0: error"
