#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Single items of a filesystem tree, each damaged on a fresh copy of a
# kernel-written image:
#  - ORPHAN_ITEM_INVALID: an orphan item whose inode number (its key
#    offset) is not an inode number (100): it is deleted;
#  - DIR_ENTRY_INVALID: a dir item and a dir index with an empty name in
#    /d (the name's other copies, an inode ref, do not exist): both go;
#  - DIR_ENTRY_INVALID: the location key type of both entries of /d/big
#    broken (INODE_REF_UNMATCHED: its inode ref is the one copy left):
#    both point to the ref's inode again, in one transaction, and the
#    directory's size, which counts them, is never changed (it used to be
#    committed short by both names: deleted, then made again from the ref);
#  - FILE_EXTENT_HOLE: the explicit hole item of a sparse file (written by
#    the kernel without the NO_HOLES feature) deleted: the hole item comes
#    back, the file reads as before.
# The exact changes (the plan of --dry-run matches), clean for ghee check,
# btrfs check 6.2 and 6.19, the kernel reads every file back as before and
# a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 sha256sum xfs_io
need_loop
need_kernel_btrfs

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py
ORPHAN=18446744073709551611

# repaired CODE CHANGE...: only CODE found, exactly these changes, the
# files as before
repaired()
{
	local code=$1

	shift
	expect_fs_codes "$IMG" "$code"
	expect_exact_repair "$IMG" "${@/#/$code | }"
	expect_same_files "$IMG" "$TEST_TMP/sums.before"
}

IMG=$(fs_base_image) || exit
file_sums "$IMG" "$TEST_TMP/sums.before" ro
python3 "$ITEMS" "$IMG" add 5 $ORPHAN 48 100 || fail "cannot add the orphan item"
repaired ORPHAN_ITEM_INVALID "delete root 5 (ORPHAN ORPHAN_ITEM 100)"

IMG=$(fs_base_image) || exit
size=$(fs_item_field 5 "$FS_INO_DIR" 1 0 16 8)
python3 "$ITEMS" "$IMG" add-dir 5 "$FS_INO_DIR" 1000 "$FS_INO_BIG" 1 "" ||
	fail "cannot add the entries with an empty name"
repaired DIR_ENTRY_INVALID "delete root 5 ($FS_INO_DIR DIR_ITEM $(python3 "$ITEMS" x hash "")) name (empty)" \
	"delete root 5 ($FS_INO_DIR DIR_INDEX 1000) name (empty)"
[ "$(fs_item_field 5 "$FS_INO_DIR" 1 0 16 8)" = "$size" ] || fail "the size of /d changed"

IMG=$(fs_base_image) || exit
hash=$(python3 "$ITEMS" x hash big)
fs_edit set-item 5 "$FS_INO_DIR" 84 "$hash" 8 1 0x55
fs_edit set-item 5 "$FS_INO_DIR" 96 4 8 1 0x55
expect_fs_codes "$IMG" DIR_ENTRY_INVALID INODE_REF_UNMATCHED
expect_exact_repair "$IMG" \
	"DIR_ENTRY_INVALID | change root 5 ($FS_INO_DIR DIR_ITEM $hash) name big location: ($FS_INO_BIG 85 0) -> ($FS_INO_BIG INODE_ITEM 0) (the inode ref's)" \
	"DIR_ENTRY_INVALID | change root 5 ($FS_INO_DIR DIR_INDEX 4) name big location: ($FS_INO_BIG 85 0) -> ($FS_INO_BIG INODE_ITEM 0) (the inode ref's)" \
	"INODE_REF_UNMATCHED | change nothing: right after the fixes before it"
grep -qE '"transactions": *1,' "$TEST_TMP/repair.json" || fail "not repaired in one transaction"
[ "$(fs_item_field 5 "$FS_INO_DIR" 1 0 16 8)" = "$size" ] || fail "the size of /d changed"
expect_same_files "$IMG" "$TEST_TMP/sums.before"

# a sparse file: 4 KiB of data, an 8 KiB hole, 4 KiB of data
IMG=$TEST_TMP/holes.img
truncate -s 128M "$IMG" || fail "cannot create $IMG"
mkfs.btrfs -q -f -O ^no-holes -R ^free-space-tree "$IMG" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$IMG" "$TEST_TMP/mnt"
xfs_io -f -c "pwrite -S 0x61 0 4k" -c fsync -c "pwrite -S 0x62 12k 4k" "$TEST_TMP/mnt/s" > /dev/null ||
	{ umount_image "$TEST_TMP/mnt"; fail "cannot write the sparse file"; }
ino=$(stat -c %i "$TEST_TMP/mnt/s")
umount_image "$TEST_TMP/mnt"
file_sums "$IMG" "$TEST_TMP/sums.before" ro
[ "$(fs_item_field 5 "$ino" 108 4096 21 8)" = 0 ] || fail "no hole item at 4096"
python3 "$ITEMS" "$IMG" del 5 "$ino" 108 4096 || fail "cannot delete the hole item"
repaired FILE_EXTENT_HOLE "insert root 5 ($ino EXTENT_DATA 4096) hole of 8192 bytes"
[ "$(fs_item_field 5 "$ino" 108 4096 45 8)" = 8192 ] || fail "the hole item is not 8 KiB long"
exit 0
