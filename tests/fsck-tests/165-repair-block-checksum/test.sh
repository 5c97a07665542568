#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of tree blocks whose only damage is their checksum
# (TREE_BLOCK_UNREADABLE, as in corpus image 012-leaf-corruption's
# leafcorrupt): the 32 checksum bytes of a block are zeroed in every copy
# of a kernel-written image, once for a leaf of the fs tree and once for
# its root node.  Everything else the block says is what its parent (or
# root item) expects and its items pass the checks, so the repair takes
# it as written, recomputes the checksum and copies it on write; the
# findings that came from the unreadable block are gone with it.  ghee
# check, btrfs check 6.2 and 6.19 are clean, the kernel mounts the image
# and reads every file back, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ino=$((256 + 300))

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

root_now()
{
	python3 - "$img" "$EDIT" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[2])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
print(edit.Image(sys.argv[1]).tree_root(5))
PY
}

# the kernel mounts the repaired image and reads every file back
read_back()
{
	local mnt=$TEST_TMP/mnt

	[ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems || return 0
	mount_image "$img" "$mnt"
	find "$mnt" -xdev -type f -exec cat {} + > /dev/null ||
		{ umount_image "$mnt"; fail "files do not read back after the repair"; }
	[ "$(cat "$mnt/d/f300")" = "small file 300" ] ||
		{ umount_image "$mnt"; fail "d/f300 does not hold what was written"; }
	umount_image "$mnt"
}

# repaired BLOCK LEVEL LOCATE: the finding, the checksum recomputed and the
# block copied on write (exactly these changes), all clean
repaired()
{
	local blk=$1 level=$2 locate=$3 csum

	csum=$(edit wipe-csum "$blk") || exit
	expect_code_present "$img" TREE_BLOCK_UNREADABLE \
		"block $blk cannot be read: checksum verify failed on $blk wanted 0x00000000 found $csum"
	expect_plan_matches "$img"
	expect_repaired "$img"
	expect_change "$TEST_TMP/repair.json" \
		"TREE_BLOCK_UNREADABLE | change block $blk checksum recomputed: 0x00000000 -> $csum"
	expect_change "$TEST_TMP/repair.json" \
		"TREE_BLOCK_UNREADABLE | rebuild tree 5 block $blk (level $level): copied to a new address with the current generation"
	[ "$(grep -c . "$TEST_TMP/changes")" -eq 2 ] ||
		{ cat "$TEST_TMP/changes" >&2; fail "more changes than expected"; }
	[ "$($locate)" != "$blk" ] || fail "the block is still at $blk"
	expect_second_repair_noop "$img"
	read_back
}

leaf_now() { edit leaf-of 5 "$ino" 1 0; }

# a leaf of the fs tree
img=$(fsck_base_image) || exit
repaired "$(leaf_now)" 0 leaf_now

# the fs tree's root node
img=$(fsck_base_image) || exit
root=$(root_now)
level=$(edit get-block "$root" 100 1)
[ "$level" -ge 1 ] || fail "the fs tree of the base image is a single leaf"
repaired "$root" "$level" root_now
exit 0
