#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lost+found: every name of a file (dir item, dir index and inode ref)
# deleted from a kernel-written image leaves an inode nothing reaches
# (INODE_NLINK "expect 0"); the same for a directory (DIR_REFS 0).  The
# repair makes /lost+found (mode 0700) and links the inode there under
# its number; the plan of --dry-run matches, the three checkers are clean,
# the kernel reads the file's content back from lost+found, and a second
# repair writes nothing.  Last, an existing lost+found that holds the
# name "<ino>" already: the inode is linked as "<ino>.1".

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py

# drop_names INO PARENT NAME: delete the three items of the name
drop_names()
{
	local ino=$1 parent=$2 name=$3 index hash

	index=$(fs_item_field 5 "$ino" 12 "$parent" 0 8)
	hash=$(python3 "$ITEMS" x hash "$name")
	python3 "$ITEMS" "$IMG" del 5 "$parent" 84 "$hash" &&
		python3 "$ITEMS" "$IMG" del 5 "$parent" 96 "$index" &&
		python3 "$ITEMS" "$IMG" del 5 "$ino" 12 "$parent" || fail "cannot delete the name $name"
}

# expect_lost_found INO LF TOP_INDEX TOP_SIZE CODE NAME_LEN: the changes
# of CODE that make /lost+found (inode LF) in the top directory (at
# TOP_INDEX, of size TOP_SIZE before) and link INO there
expect_lost_found()
{
	local ino=$1 lf=$2 top_index=$3 top_size=$4 code=$5 name_len=$6

	expect_change "$TEST_TMP/repair.json" \
		"$code | insert root 5 ($lf INODE_ITEM 0) mode 040700 nlink 1: the directory lost+found"
	expect_change "$TEST_TMP/repair.json" \
		"$code | insert root 5 (256 DIR_INDEX $top_index) name lost+found -> inode $lf"
	expect_change "$TEST_TMP/repair.json" \
		"$code | insert root 5 ($lf INODE_REF 256) index $top_index name lost+found"
	expect_change "$TEST_TMP/repair.json" \
		"$code | change root 5 (256 INODE_ITEM 0) size: $top_size -> $((top_size + 20))"
	expect_change "$TEST_TMP/repair.json" \
		"$code | insert root 5 ($lf DIR_INDEX 2) name $ino -> inode $ino"
	expect_change "$TEST_TMP/repair.json" \
		"$code | insert root 5 ($ino INODE_REF $lf) index 2 name $ino"
	expect_change "$TEST_TMP/repair.json" \
		"$code | change root 5 ($lf INODE_ITEM 0) size: 0 -> $((2 * name_len))"
}

# read_back PATH CONTENT...: the kernel mounts the image, lost+found is
# mode 0700 and each PATH holds its CONTENT
read_back()
{
	local mnt=$TEST_TMP/mnt got

	need_loop
	need_kernel_btrfs
	mount_image "$IMG" "$mnt"
	[ "$(stat -c %a "$mnt/lost+found")" = 700 ] || { umount_image "$mnt"; fail "lost+found is not mode 0700"; }
	while [ $# -ge 2 ]; do
		got=$(cat "$mnt/$1") || { umount_image "$mnt"; fail "cannot read $1"; }
		[ "$got" = "$2" ] || { umount_image "$mnt"; fail "$1 holds '$got', expected '$2'"; }
		shift 2
	done
	umount_image "$mnt"
}

# a file: its only name gone
IMG=$(fs_base_image) || exit
top_size=$(fs_item_field 5 256 1 0 16 8)
dir_size=$(fs_item_field 5 "$FS_INO_DIR" 1 0 16 8)
drop_names "$FS_INO_INLINE" "$FS_INO_DIR" inline
expect_fs_codes "$IMG" INODE_NLINK DIR_ISIZE
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
lf=$(sed -n 's/.*insert root 5 (\([0-9]*\) INODE_ITEM 0) mode 040700.*/\1/p' "$TEST_TMP/changes")
[ -n "$lf" ] || { cat "$TEST_TMP/changes" >&2; fail "no lost+found made"; }
index=$(sed -n 's/.*insert root 5 (256 DIR_INDEX \([0-9]*\)) name lost+found.*/\1/p' "$TEST_TMP/changes")
expect_lost_found "$FS_INO_INLINE" "$lf" "$index" "$top_size" INODE_NLINK 3
expect_change "$TEST_TMP/repair.json" \
	"DIR_ISIZE | change root 5 ($FS_INO_DIR INODE_ITEM 0) size: $dir_size -> $((dir_size - 12))"
[ "$(wc -l < "$TEST_TMP/changes")" -eq 10 ] ||
	{ cat "$TEST_TMP/changes" >&2; fail "more changes than the link and the size"; }
expect_second_repair_noop "$IMG"
read_back "lost+found/$FS_INO_INLINE" hello

# a directory: its name gone; it moves with what it holds
IMG=$(fs_base_image) || exit
top_size=$(fs_item_field 5 256 1 0 16 8)
drop_names "$FS_INO_DIR" 256 d
expect_fs_codes "$IMG" DIR_REFS DIR_ISIZE
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
lf=$(sed -n 's/.*insert root 5 (\([0-9]*\) INODE_ITEM 0) mode 040700.*/\1/p' "$TEST_TMP/changes")
index=$(sed -n 's/.*insert root 5 (256 DIR_INDEX \([0-9]*\)) name lost+found.*/\1/p' "$TEST_TMP/changes")
expect_lost_found "$FS_INO_DIR" "$lf" "$index" "$top_size" DIR_REFS 3
expect_second_repair_noop "$IMG"
read_back "lost+found/$FS_INO_DIR/inline" hello

# lost+found exists already and holds a name "<ino>": the inode goes there
# as "<ino>.1", nothing else is made
IMG=$(fs_base_image) || exit
need_loop
need_kernel_btrfs
mount_image "$IMG" "$TEST_TMP/mnt"
mkdir -m 700 "$TEST_TMP/mnt/lost+found" && echo other > "$TEST_TMP/mnt/lost+found/$FS_INO_INLINE" ||
	{ umount_image "$TEST_TMP/mnt"; fail "cannot prepare lost+found"; }
lf=$(stat -c %i "$TEST_TMP/mnt/lost+found")
umount_image "$TEST_TMP/mnt"
lf_size=$(fs_item_field 5 "$lf" 1 0 16 8)
dir_size=$(fs_item_field 5 "$FS_INO_DIR" 1 0 16 8)
drop_names "$FS_INO_INLINE" "$FS_INO_DIR" inline
expect_fs_codes "$IMG" INODE_NLINK DIR_ISIZE
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
DIR_ISIZE | change root 5 ($FS_INO_DIR INODE_ITEM 0) size: $dir_size -> $((dir_size - 12))
INODE_NLINK | change root 5 ($lf INODE_ITEM 0) size: $lf_size -> $((lf_size + 10))
INODE_NLINK | insert root 5 ($FS_INO_INLINE INODE_REF $lf) index 3 name $FS_INO_INLINE.1
INODE_NLINK | insert root 5 ($lf DIR_INDEX 3) name $FS_INO_INLINE.1 -> inode $FS_INO_INLINE
INODE_NLINK | insert root 5 ($lf DIR_ITEM $(python3 "$ITEMS" x hash "$FS_INO_INLINE.1")) name $FS_INO_INLINE.1 -> inode $FS_INO_INLINE
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
expect_second_repair_noop "$IMG"
read_back "lost+found/$FS_INO_INLINE.1" hello "lost+found/$FS_INO_INLINE" other
