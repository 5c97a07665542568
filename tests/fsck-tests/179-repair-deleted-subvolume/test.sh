#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ROOT_ITEM_INVALID: a subvolume deleted (15,000 files) and the filesystem
# unmounted before the kernel dropped it: its root item (refs 0) stays
# with an orphan item in the root tree that makes the next mount finish
# the drop.  The orphan item is deleted (corpus image
# 066-missing-root-orphan-item).  The repair inserts it again, the one
# change (the plan of --dry-run matches); ghee check, btrfs check 6.2 and
# 6.19 are clean, a second repair writes nothing, the kernel reads the
# top level's file back and, mounted, drops the subvolume: its root item
# is gone afterwards and every checker is still clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 btrfs
need_loop
need_kernel_btrfs

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py
ORPHAN=18446744073709551611
mnt=$TEST_TMP/mnt

IMG=$TEST_TMP/fs.img
truncate -s 512M "$IMG" || fail "cannot create $IMG"
mkfs.btrfs -q -f -R ^free-space-tree "$IMG" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$IMG" "$mnt"
echo top > "$mnt/top" && btrfs -q subvolume create "$mnt/sv" &&
	python3 -c 'import sys
for i in range(15000):
    open("%s/f%d" % (sys.argv[1], i), "w").write("x")' "$mnt/sv" ||
	{ umount_image "$mnt"; fail "cannot fill the subvolume"; }
sync
# no commit between the delete and the unmount: the cleaner is stopped
# before it is through the subvolume's tree
btrfs -q subvolume delete "$mnt/sv" || { umount_image "$mnt"; fail "cannot delete the subvolume"; }
umount_image "$mnt"
python3 "$EDIT" "$IMG" find 1 $ORPHAN 48 256 > /dev/null 2>&1 ||
	skip "the kernel dropped the subvolume before the unmount"
# the root item's refs (after the inode item and six 8-byte fields)
[ "$(python3 "$EDIT" "$IMG" get-item 1 256 132 0 216 4)" = 0 ] || fail "the subvolume's root item still has refs"
"$GHEE" check "$IMG" > "$TEST_TMP/base.out" 2>&1 || { cat "$TEST_TMP/base.out" >&2; fail "the image is not clean"; }

python3 "$ITEMS" "$IMG" del 1 $ORPHAN 48 256 || fail "cannot delete the orphan item"
expect_codes "$IMG" ROOT_ITEM_INVALID
grep -qF "[ROOT_ITEM_INVALID] root 256: deleted subvolume (refs 0) has no orphan item in the root tree" "$TEST_TMP/check.out" ||
	fail "not the finding of the deleted subvolume"
expect_exact_repair "$IMG" \
	"ROOT_ITEM_INVALID | insert root tree item (ORPHAN ORPHAN_ITEM 256): the kernel drops the subvolume"

mount_image "$IMG" "$mnt"
got=$(cat "$mnt/top")
btrfs subvolume sync "$mnt" 256 > /dev/null 2>&1 || { umount_image "$mnt"; fail "the kernel did not drop the subvolume"; }
umount_image "$mnt"
[ "$got" = top ] || fail "the top level's file reads '$got'"
python3 "$EDIT" "$IMG" find 1 256 132 > /dev/null 2>&1 && fail "the subvolume's root item is still there"
expect_all_clean "$IMG"
exit 0
