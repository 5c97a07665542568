#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A directory with two names (DIR_REFS 2, DIR_NLINK 2), as corpus image
# 049-dir-hard-link has: a second name "d2" in /links is added for /d of
# a kernel-written image (dir item, dir index, inode ref, link count 2).
# The repair keeps the older name (its dir index has the older transid),
# deletes the three items of the other and sets the link count to 1; the
# plan of --dry-run matches, the three checkers are clean, the kernel
# reads /d/inline, and a second repair writes nothing.  Then a loop of two
# directories that no name of the top reaches: to lost+found.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py
INDEX=1000

IMG=$(fs_base_image) || exit
links_size=$(fs_item_field 5 "$FS_INO_LINKS" 1 0 16 8)
hash=$(python3 "$ITEMS" x hash d2)
python3 "$ITEMS" "$IMG" add-ref 5 "$FS_INO_DIR" "$FS_INO_LINKS" $INDEX d2 &&
	python3 "$ITEMS" "$IMG" add-dir 5 "$FS_INO_LINKS" $INDEX "$FS_INO_DIR" 2 d2 ||
	fail "cannot add the second name"
fs_edit set-item 5 "$FS_INO_LINKS" 1 0 16 8 $((links_size + 4))
fs_edit set-item 5 "$FS_INO_DIR" 1 0 40 4 2
expect_fs_codes "$IMG" DIR_REFS DIR_NLINK
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
DIR_NLINK | change root 5 ($FS_INO_DIR INODE_ITEM 0) nlink: 2 -> 1
DIR_REFS | change root 5 ($FS_INO_LINKS INODE_ITEM 0) size: $((links_size + 4)) -> $links_size
DIR_REFS | delete root 5 ($FS_INO_DIR INODE_REF $FS_INO_LINKS) name d2
DIR_REFS | delete root 5 ($FS_INO_LINKS DIR_INDEX $INDEX) name d2
DIR_REFS | delete root 5 ($FS_INO_LINKS DIR_ITEM $hash) name d2
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
expect_second_repair_noop "$IMG"

need_loop
need_kernel_btrfs
mount_image "$IMG" "$TEST_TMP/mnt"
got=$(cat "$TEST_TMP/mnt/d/inline")
[ -e "$TEST_TMP/mnt/links/d2" ] && { umount_image "$TEST_TMP/mnt"; fail "links/d2 is still there"; }
umount_image "$TEST_TMP/mnt"
[ "$got" = hello ] || fail "d/inline holds '$got'"

# a loop: /d loses its name and gets two in /links, which loses its own and
# gets one in /d; no name of /d leads to the top: both go and /d, with
# /links inside it, goes to lost+found
IMG=$(fs_base_image) || exit
top_size=$(fs_item_field 5 256 1 0 16 8)
dir_size=$(fs_item_field 5 "$FS_INO_DIR" 1 0 16 8)
links_size=$(fs_item_field 5 "$FS_INO_LINKS" 1 0 16 8)
for n in "$FS_INO_DIR d" "$FS_INO_LINKS links"; do
	set -- $n
	index=$(fs_item_field 5 "$1" 12 256 0 8)
	python3 "$ITEMS" "$IMG" del 5 256 84 "$(python3 "$ITEMS" x hash "$2")" &&
		python3 "$ITEMS" "$IMG" del 5 256 96 "$index" &&
		python3 "$ITEMS" "$IMG" del 5 "$1" 12 256 || fail "cannot delete the name $2"
done
python3 "$ITEMS" "$IMG" add-ref 5 "$FS_INO_DIR" "$FS_INO_LINKS" 1000 d2 &&
	python3 "$ITEMS" "$IMG" add-ref 5 "$FS_INO_DIR" "$FS_INO_LINKS" 1001 d3 &&
	python3 "$ITEMS" "$IMG" add-dir 5 "$FS_INO_LINKS" 1000 "$FS_INO_DIR" 2 d2 &&
	python3 "$ITEMS" "$IMG" add-dir 5 "$FS_INO_LINKS" 1001 "$FS_INO_DIR" 2 d3 &&
	python3 "$ITEMS" "$IMG" add-ref 5 "$FS_INO_LINKS" "$FS_INO_DIR" 1000 l2 &&
	python3 "$ITEMS" "$IMG" add-dir 5 "$FS_INO_DIR" 1000 "$FS_INO_LINKS" 2 l2 ||
	fail "cannot make the loop"
fs_edit set-item 5 256 1 0 16 8 $((top_size - 12))
fs_edit set-item 5 "$FS_INO_LINKS" 1 0 16 8 $((links_size + 8))
fs_edit set-item 5 "$FS_INO_DIR" 1 0 16 8 $((dir_size + 4))
expect_fs_codes "$IMG" DIR_REFS
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
for n in d2 d3; do
	expect_change "$TEST_TMP/repair.json" "DIR_REFS | delete root 5 ($FS_INO_DIR INODE_REF $FS_INO_LINKS) name $n"
done
grep -q "^DIR_REFS | insert root 5 ($FS_INO_DIR INODE_REF [0-9]*) index 2 name $FS_INO_DIR\$" "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "/d is not linked in lost+found"; }
expect_second_repair_noop "$IMG"
mount_image "$IMG" "$TEST_TMP/mnt"
got=$(cat "$TEST_TMP/mnt/lost+found/$FS_INO_DIR/inline" "$TEST_TMP/mnt/lost+found/$FS_INO_DIR/l2/t")
umount_image "$TEST_TMP/mnt"
[ "$got" = "hello
target" ] || fail "the files of the loop do not read back from lost+found: $got"
