#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the uuid tree and of link counts of 0, each on a fresh copy of
# a kernel-written image:
#  - a uuid entry pointed at a root that does not exist (UUID_ITEM_STALE,
#    and UUID_ITEM_MISSING for the subvolume that lost its entry: the id
#    is dropped, the entry added back);
#  - the uuid entry of the subvolume deleted (UUID_ITEM_MISSING alone);
#  - a file's link count set to 0 while it keeps its name (INODE_NO_ORPHAN:
#    the count comes back, no orphan item is added);
#  - a file's names deleted and its link count 0, as an unlink interrupted
#    before its orphan item (INODE_NO_ORPHAN: the orphan item is added, and
#    the kernel deletes the inode at the next mount).
# The exact changes (the plan of --dry-run matches), every checker clean,
# and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py
ORPHAN=18446744073709551611

IMG=$(fs_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$IMG" first 9 251) || fail "no uuid subvol item"
sub=$(fs_item_field 9 "$obj" 251 "$off" 0 8)
fs_edit set-item 9 "$obj" 251 "$off" 0 8 999
expect_codes "$IMG" UUID_ITEM_STALE UUID_ITEM_MISSING
expect_exact_repair "$IMG" "UUID_ITEM_STALE | delete uuid tree item ($obj UUID_KEY_SUBVOL $off) (root 999)" \
	"UUID_ITEM_MISSING | insert uuid tree item ($obj UUID_KEY_SUBVOL $off) (root $sub)"
[ "$(fs_item_field 9 "$obj" 251 "$off" 0 8)" = "$sub" ] || fail "the uuid entry does not point to root $sub again"

# the second entry of the uuid tree (a single leaf) deleted
IMG=$(fs_base_image) || exit
read -r obj off sub < <(python3 - "$IMG" "$EDIT" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
blk, slot, key, off, size = img.walk_leaves(img.tree_root(9))[1]
print(key[0], key[2], struct.unpack_from('<Q', img.read_block(blk), 101 + off)[0])
PY
) || fail "cannot read the uuid tree"
python3 "$TOP/tests/fsck-tests/lib/btrfs-del-item.py" "$IMG" 9 "$obj" 251 "$off" || fail "cannot delete the uuid entry"
expect_codes "$IMG" UUID_ITEM_MISSING
expect_exact_repair "$IMG" "UUID_ITEM_MISSING | insert uuid tree item ($obj UUID_KEY_SUBVOL $off) (root $sub)"
[ "$(fs_item_field 9 "$obj" 251 "$off" 0 8)" = "$sub" ] || fail "the uuid entry is not back"

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_INLINE" 1 0 40 4 0
expect_fs_codes "$IMG" INODE_NO_ORPHAN
expect_exact_repair "$IMG" "INODE_NO_ORPHAN | change root 5 ($FS_INO_INLINE INODE_ITEM 0) nlink: 0 -> 1"
[ "$(fs_item_field 5 "$FS_INO_INLINE" 1 0 40 4)" = 1 ] || fail "the link count is not 1 again"
python3 "$EDIT" "$IMG" find 5 $ORPHAN 48 "$FS_INO_INLINE" > /dev/null 2>&1 &&
	fail "an orphan item was added for a file that has its name"

# /d/big unlinked (its three name items gone, /d's size with them), link
# count 0, and no orphan item
IMG=$(fs_base_image) || exit
python3 "$ITEMS" "$IMG" del 5 "$FS_INO_DIR" 84 "$(python3 "$ITEMS" x hash big)" &&
	python3 "$ITEMS" "$IMG" del 5 "$FS_INO_DIR" 96 "$(fs_item_field 5 "$FS_INO_BIG" 12 "$FS_INO_DIR" 0 8)" &&
	python3 "$ITEMS" "$IMG" del 5 "$FS_INO_BIG" 12 "$FS_INO_DIR" || fail "cannot delete the name big"
fs_edit add-item 5 "$FS_INO_DIR" 1 0 16 8 -6
fs_edit set-item 5 "$FS_INO_BIG" 1 0 40 4 0
expect_fs_codes "$IMG" INODE_NO_ORPHAN
expect_exact_repair "$IMG" "INODE_NO_ORPHAN | insert root 5 (ORPHAN ORPHAN_ITEM $FS_INO_BIG): the kernel deletes the unlinked inode"
need_loop
need_kernel_btrfs
mount_image "$IMG" "$TEST_TMP/mnt"
listing=$(ls "$TEST_TMP/mnt/d" | tr '\n' ' ')
umount_image "$TEST_TMP/mnt"
[ "$listing" = "inline two " ] || fail "/d holds '$listing'"
expect_all_clean "$IMG"
python3 "$EDIT" "$IMG" find 5 "$FS_INO_BIG" 1 0 > /dev/null 2>&1 &&
	fail "the kernel did not delete the orphan inode"
exit 0
