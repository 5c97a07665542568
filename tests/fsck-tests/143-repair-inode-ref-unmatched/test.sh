#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# INODE_REF_UNMATCHED: an inode ref with neither dir item nor dir index.
# The dir item and dir index of /d/big are deleted from a kernel-written
# image: the repair makes both again from the inode ref (same index, same
# name, the type of the inode).  Then the name of /d/two is deleted and its
# inode ref made to name a directory that does not exist: the ref goes and
# the file, which nothing reaches, goes to lost+found.  Each: the plan of
# --dry-run matches, the three checkers are clean, the kernel reads the
# file's content back, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py
NO_DIR=100000

# kernel_file PATH COPY [ro]: the kernel mounts the image; PATH to COPY
kernel_file()
{
	local mnt=$TEST_TMP/mnt

	need_loop
	need_kernel_btrfs
	mount_image "$IMG" "$mnt" "${3:-}"
	cp "$mnt/$1" "$2" || { umount_image "$mnt"; fail "cannot read $1"; }
	umount_image "$mnt"
}

drop_entries()
{
	local dir=$1 ino=$2 name=$3 index hash

	index=$(fs_item_field 5 "$ino" 12 "$dir" 0 8)
	hash=$(python3 "$ITEMS" x hash "$name")
	python3 "$ITEMS" "$IMG" del 5 "$dir" 84 "$hash" &&
		python3 "$ITEMS" "$IMG" del 5 "$dir" 96 "$index" || fail "cannot delete the entries of $name"
	echo "$index $hash"
}

# the entries of /d/big come back from its inode ref
IMG=$(fs_base_image) || exit
kernel_file d/big "$TEST_TMP/big.orig" ro
read -r index hash < <(drop_entries "$FS_INO_DIR" "$FS_INO_BIG" big)
expect_fs_codes "$IMG" INODE_REF_UNMATCHED DIR_ISIZE
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
DIR_ISIZE | change nothing: right after the fixes before it
INODE_REF_UNMATCHED | insert root 5 ($FS_INO_DIR DIR_INDEX $index) name big -> inode $FS_INO_BIG
INODE_REF_UNMATCHED | insert root 5 ($FS_INO_DIR DIR_ITEM $hash) name big -> inode $FS_INO_BIG
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
[ "$(fs_item_field 5 "$FS_INO_DIR" 96 "$index" 29 1)" = 1 ] || fail "the new dir index is not of a regular file"
expect_second_repair_noop "$IMG"
kernel_file d/big "$TEST_TMP/big.after"
cmp -s "$TEST_TMP/big.orig" "$TEST_TMP/big.after" || fail "d/big does not read back"

# a ref into a directory that does not exist: to lost+found
IMG=$(fs_base_image) || exit
kernel_file d/two "$TEST_TMP/two.orig" ro
read -r index hash < <(drop_entries "$FS_INO_DIR" "$FS_INO_TWO" two)
fs_edit set-key 5 "$FS_INO_TWO" 12 "$FS_INO_DIR" "$FS_INO_TWO" 12 $NO_DIR
expect_fs_codes "$IMG" INODE_REF_UNMATCHED DIR_ISIZE
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
expect_change "$TEST_TMP/repair.json" \
	"INODE_REF_UNMATCHED | delete root 5 ($FS_INO_TWO INODE_REF $NO_DIR) name two"
lf=$(sed -n 's/.*insert root 5 (\([0-9]*\) INODE_ITEM 0) mode 040700.*/\1/p' "$TEST_TMP/changes")
[ -n "$lf" ] || { cat "$TEST_TMP/changes" >&2; fail "no lost+found made"; }
expect_change "$TEST_TMP/repair.json" \
	"INODE_REF_UNMATCHED | insert root 5 ($FS_INO_TWO INODE_REF $lf) index 2 name $FS_INO_TWO"
expect_second_repair_noop "$IMG"
kernel_file "lost+found/$FS_INO_TWO" "$TEST_TMP/two.after"
cmp -s "$TEST_TMP/two.orig" "$TEST_TMP/two.after" || fail "the file does not read back from lost+found"
