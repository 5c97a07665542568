#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# INODE_REF_MISSING: a dir entry whose inode has no inode ref for it.
# The inode ref of /d/two is deleted from a kernel-written image (its
# names then count 0: INODE_NLINK too); the repair makes the ref again
# from the dir index (same index, same name) and the link count is right
# again.  Then the inode ref and the dir index of /d/inline are deleted:
# the ref comes back with a new dir index next to the dir item.  Each:
# the plan of --dry-run matches, the three checkers are clean, the kernel
# reads the file, and a second repair writes nothing.  Last, a damaged
# name in an inode ref: the two dir entries outvote it.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py

# read_back PATH CONTENT: the kernel mounts the image and PATH holds CONTENT
read_back()
{
	local mnt=$TEST_TMP/mnt

	need_loop
	need_kernel_btrfs
	mount_image "$IMG" "$mnt"
	cmp -s "$mnt/$1" "$2" || { umount_image "$mnt"; fail "$1 does not read back"; }
	umount_image "$mnt"
}

# the content of a file of the base image, read with the kernel
save_content()
{
	local mnt=$TEST_TMP/mnt

	need_loop
	need_kernel_btrfs
	mount_image "$IMG" "$mnt" ro
	cp "$mnt/$1" "$2" || { umount_image "$mnt"; fail "cannot read $1"; }
	umount_image "$mnt"
}

# the inode ref of /d/two: back from the dir index
IMG=$(fs_base_image) || exit
save_content d/two "$TEST_TMP/two"
index=$(fs_item_field 5 "$FS_INO_TWO" 12 "$FS_INO_DIR" 0 8)
python3 "$ITEMS" "$IMG" del 5 "$FS_INO_TWO" 12 "$FS_INO_DIR" || fail "cannot delete the inode ref"
expect_fs_codes "$IMG" INODE_REF_MISSING INODE_NLINK
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
INODE_NLINK | change nothing: right after the fixes before it
INODE_REF_MISSING | insert root 5 ($FS_INO_TWO INODE_REF $FS_INO_DIR) index $index name two
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
[ "$(fs_item_field 5 "$FS_INO_TWO" 12 "$FS_INO_DIR" 0 8)" = "$index" ] || fail "the ref has another index"
expect_second_repair_noop "$IMG"
read_back d/two "$TEST_TMP/two"

# the inode ref and the dir index of /d/inline: a new index
IMG=$(fs_base_image) || exit
printf 'hello\n' > "$TEST_TMP/inline"
index=$(fs_item_field 5 "$FS_INO_INLINE" 12 "$FS_INO_DIR" 0 8)
python3 "$ITEMS" "$IMG" del 5 "$FS_INO_DIR" 96 "$index" &&
	python3 "$ITEMS" "$IMG" del 5 "$FS_INO_INLINE" 12 "$FS_INO_DIR" ||
	fail "cannot delete the inode ref and the dir index"
next=$(python3 - "$IMG" "$FS_INO_DIR" <<'PY'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("e", os.path.join(os.environ["TOP"], "tests/fsck-tests/lib/btrfs-edit.py"))
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1]); d = int(sys.argv[2])
print(max([k[2] for b, s, k, o, z in img.walk_leaves(img.tree_root(5)) if k[0] == d and k[1] == 96] + [1]) + 1)
PY
)
expect_fs_codes "$IMG" INODE_REF_MISSING DIR_INDEX_MISSING INODE_NLINK DIR_ISIZE
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
expect_change "$TEST_TMP/repair.json" \
	"INODE_REF_MISSING | insert root 5 ($FS_INO_DIR DIR_INDEX $next) name inline -> inode $FS_INO_INLINE"
expect_change "$TEST_TMP/repair.json" \
	"INODE_REF_MISSING | insert root 5 ($FS_INO_INLINE INODE_REF $FS_INO_DIR) index $next name inline"
[ "$(wc -l < "$TEST_TMP/changes")" -eq 5 ] ||
	{ cat "$TEST_TMP/changes" >&2; fail "more than the dir index and the ref"; }
expect_second_repair_noop "$IMG"
read_back d/inline "$TEST_TMP/inline"

# the inode ref's name damaged ("inline" -> "Inline"): the dir item and the
# dir index agree on "inline", so the ref is written again with it
IMG=$(fs_base_image) || exit
index=$(fs_item_field 5 "$FS_INO_INLINE" 12 "$FS_INO_DIR" 0 8)
fs_edit set-item 5 "$FS_INO_INLINE" 12 "$FS_INO_DIR" 10 1 0x49
expect_fs_codes "$IMG" INODE_REF_MISSING INODE_REF_UNMATCHED
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
INODE_REF_MISSING | delete root 5 ($FS_INO_INLINE INODE_REF $FS_INO_DIR) name Inline
INODE_REF_MISSING | insert root 5 ($FS_INO_INLINE INODE_REF $FS_INO_DIR) index $index name inline
INODE_REF_UNMATCHED | change nothing: right after the fixes before it
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
expect_second_repair_noop "$IMG"
read_back d/inline "$TEST_TMP/inline"
