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
# directories that no name of the top reaches: to lost+found.  Last, a
# directory with 201 names (a file with 200 hard links, made a directory
# by its mode and its entries' type): one pass deletes the 200 names it
# does not keep (the repair looks at every name, not a first batch).

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

# /p/t and its 200 hard links n1..n200, written by the kernel; then t's
# mode and the type of its 201 entries say directory
img=$TEST_TMP/names.img
rm -f "$img"
truncate -s 128M "$img" || fail "cannot create $img"
mkfs.btrfs -q -f -R ^free-space-tree "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$TEST_TMP/mnt"
mkdir "$TEST_TMP/mnt/p" && echo kept > "$TEST_TMP/mnt/p/keep" && touch "$TEST_TMP/mnt/p/t" &&
	for i in $(seq 1 200); do ln "$TEST_TMP/mnt/p/t" "$TEST_TMP/mnt/p/n$i" || break; done
p=$(stat -c %i "$TEST_TMP/mnt/p") t=$(stat -c %i "$TEST_TMP/mnt/p/t")
links=$(stat -c %h "$TEST_TMP/mnt/p/t")
umount_image "$TEST_TMP/mnt"
[ "$links" = 201 ] || fail "t has $links names, not 201"
IMG=$img
p_size=$(fs_item_field 5 "$p" 1 0 16 8)
# prints the three deletes of every name but t's, and the size they free
python3 - "$IMG" "$EDIT" "$ITEMS" "$p" "$t" > "$TEST_TMP/want" 3> "$TEST_TMP/freed" <<'PY' || fail "cannot make t a directory"
import importlib.util, os, struct, sys
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m
e, items = load("e", sys.argv[2]), load("items", sys.argv[3])
img = e.Image(sys.argv[1]); p, t = int(sys.argv[4]), int(sys.argv[5])
blocks, freed = {}, 0
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(5)):
    data = blocks.setdefault(blk, img.read_block(blk))
    at = 101 + off
    if key[0] == p and key[1] in (84, 96) and struct.unpack_from('<Q', data, at)[0] == t:
        data[at + 29] = 2
    elif key == (t, 1, 0):
        struct.pack_into('<I', data, at + 52, 0o40755)
    elif key == (t, 12, p):
        cur = at
        while cur < at + size:
            index, nl = struct.unpack_from('<QH', data, cur)
            name = bytes(data[cur + 10:cur + 10 + nl])
            cur += 10 + nl
            if name == b't':
                continue
            n = name.decode()
            freed += 2 * nl
            print("DIR_REFS | delete root 5 (%d DIR_INDEX %d) name %s" % (p, index, n))
            print("DIR_REFS | delete root 5 (%d DIR_ITEM %d) name %s" % (p, items.name_hash(name), n))
            print("DIR_REFS | delete root 5 (%d INODE_REF %d) name %s" % (t, p, n))
for blk, data in blocks.items():
    img.write_block(blk, data)
os.write(3, b"%d\n" % freed)
PY
expect_fs_codes "$IMG" DIR_REFS DIR_NLINK
expect_plan_matches "$IMG"
expect_repaired "$IMG"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["transactions"] != 1)' "$TEST_TMP/repair.json" ||
	fail "more than one pass"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
echo "DIR_NLINK | change root 5 ($t INODE_ITEM 0) nlink: 201 -> 1" >> "$TEST_TMP/want"
grep -v " INODE_ITEM 0) size: " "$TEST_TMP/changes" > "$TEST_TMP/got"
sort "$TEST_TMP/want" | compare_outputs - "$TEST_TMP/got" || fail "not the deletes of the 200 names"
[ "$(grep -c "^DIR_REFS | change root 5 ($p INODE_ITEM 0) size: " "$TEST_TMP/changes")" = 200 ] ||
	fail "not one size change per name"
[ "$(fs_item_field 5 "$p" 1 0 16 8)" = $((p_size - $(cat "$TEST_TMP/freed"))) ] ||
	fail "/p's size is not what its two entries left"
expect_second_repair_noop "$IMG"
mount_image "$IMG" "$TEST_TMP/mnt"
got=$(cd "$TEST_TMP/mnt/p" && echo *; [ -d t ] && cat keep)
umount_image "$TEST_TMP/mnt"
[ "$got" = "keep t
kept" ] || fail "/p reads back as '$got'"
