#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extent tree items that stand where no extent is, on kernel-written
# images; each is fixed by the extent tree rebuild from the trees:
#  - EXTENT_BACKREF_NO_ITEM alone: a keyed data back reference inserted
#    where no extent item precedes it;
#  - EXTENT_BACKREF_NO_ITEM with the extent item lost: a data extent that
#    41 files share (a file and 40 reflinked copies: the kernel keeps the
#    references past what the item holds inline as keyed items) loses its
#    extent item; its keyed references survive it;
#  - EXTENT_OUTSIDE_BLOCK_GROUP: the key of a data extent item moved into
#    the metadata block group (and the extent its file uses left without
#    an item): the item no tree uses is what is wrong, not the pointer.
# Every finding names the rebuild as its change; the extent items are
# what they were, ghee check, btrfs check 6.2 and 6.19 are clean, the
# kernel reads every file back as before and a second repair writes
# nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 sha256sum
need_loop
need_kernel_btrfs

DEL=$TOP/tests/fsck-tests/lib/btrfs-del-item.py

# extent_items IMG: every data extent: refs, generation, flags and its
# back references, inline or keyed (the rebuild may hold them either way,
# in another order; the tree blocks move: the repair copies on write)
extent_items()
{
	python3 - "$1" "$EDIT" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
extents = {}
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(2)):
    data = bytes(img.read_block(blk)[101 + off:101 + off + size])
    if key[1] == 168:
        head = struct.unpack_from('<QQQ', data)
        refs, cur = [], 24
        while cur < size:
            t = data[cur]
            if t == 178:
                refs.append(struct.unpack_from('<QQQI', data, cur + 1)); cur += 29
            elif t == 184:
                refs.append(('shared',) + struct.unpack_from('<QI', data, cur + 1)); cur += 13
            else:
                refs.append(('type', t)); break
        extents[key[0]] = (key[2], head, refs)
    elif key[1] == 178 and key[0] in extents:
        extents[key[0]][2].append(struct.unpack_from('<QQQI', data))
    elif key[1] == 184 and key[0] in extents:
        extents[key[0]][2].append(('shared', key[2]) + struct.unpack_from('<I', data))
for b in sorted(extents):
    length, head, refs = extents[b]
    print(b, length, head, sorted(refs, key=str))
PY
}

rebuilt()
{
	echo "$1 | rebuild extent tree: items and back references of [$2 $3] from the trees (with every other extent)"
}

# repaired IMG: the plan, the repair with exactly the changes in
# $TEST_TMP/expected, the data extent items and the files as before
repaired()
{
	local lines

	mapfile -t lines < "$TEST_TMP/expected"
	expect_exact_repair "$1" "${lines[@]}"
	extent_items "$1" > "$TEST_TMP/items.after"
	compare_outputs "$TEST_TMP/items.before" "$TEST_TMP/items.after" ||
		fail "the rebuilt extent items differ from the undamaged ones"
	expect_same_files "$1" "$TEST_TMP/sums.before"
}

# a keyed EXTENT_DATA_REF (root 5, inode 300, offset 0, count 1) 4 KiB
# into the first tree block
img=$(fsck_base_image) || exit
file_sums "$img" "$TEST_TMP/sums.before" ro
extent_items "$img" > "$TEST_TMP/items.before"
read -r tb _ _ < <(python3 "$EDIT" "$img" first 2 169) || fail "no metadata item"
at=$((tb + 4096))
python3 "$EDIT" "$img" insert-item 2 $at 178 12345 28 &&
	python3 "$EDIT" "$img" set-item 2 $at 178 12345 0 8 5 &&
	python3 "$EDIT" "$img" set-item 2 $at 178 12345 8 8 300 &&
	python3 "$EDIT" "$img" set-item 2 $at 178 12345 24 4 1 || fail "cannot add the back reference"
expect_codes "$img" EXTENT_BACKREF_NO_ITEM
rebuilt EXTENT_BACKREF_NO_ITEM $at 0 > "$TEST_TMP/expected"
repaired "$img"
python3 "$EDIT" "$img" find 2 $at 178 12345 > /dev/null 2>&1 && fail "the stray back reference is still there"

# one extent, 41 files
img=$TEST_TMP/shared.img
truncate -s 200M "$img" || fail "cannot create $img"
mkfs.btrfs -q -f -R ^free-space-tree "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$TEST_TMP/mnt"
head -c 65536 /dev/urandom > "$TEST_TMP/mnt/f" && sync -f "$TEST_TMP/mnt/f" &&
	for i in $(seq 1 40); do cp --reflink=always "$TEST_TMP/mnt/f" "$TEST_TMP/mnt/r$i" || break; done
n=$(ls "$TEST_TMP/mnt" | wc -l)
umount_image "$TEST_TMP/mnt"
[ "$n" = 41 ] || fail "the reflinked copies were not made"
file_sums "$img" "$TEST_TMP/sums.before" ro
extent_items "$img" > "$TEST_TMP/items.before"
read -r bytenr len keyed < <(python3 - "$img" "$EDIT" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
items = [k for b, s, k, o, z in img.walk_leaves(img.tree_root(2))]
for k in items:
    if k[1] == 168:
        print(k[0], k[2], sum(1 for x in items if x[0] == k[0] and x[1] == 178))
        break
PY
)
[ "${keyed:-0}" -ge 1 ] || fail "the kernel made no keyed back reference"
python3 "$DEL" "$img" 2 "$bytenr" 168 "$len" || fail "cannot delete the extent item"
finding_codes "$img" > "$TEST_TMP/codes"
for c in EXTENT_BACKREF_NO_ITEM EXTENT_ITEM_MISSING; do
	grep -qx $c "$TEST_TMP/codes" || { cat "$TEST_TMP/codes" >&2; fail "no $c"; }
done
read -r bg _ bglen < <(python3 "$EDIT" "$img" first 2 192) || fail "no block group item"
{
	rebuilt EXTENT_ITEM_MISSING "$bytenr" "$len"
	for i in $(seq 1 "$keyed"); do rebuilt EXTENT_BACKREF_NO_ITEM "$bytenr" 0; done
	echo "BLOCK_GROUP_USED | rebuild block group item ($bg BLOCK_GROUP_ITEM $bglen) used, with the extent tree"
	echo "SUPER_BYTES_USED | change nothing: right after the fixes before it"
} > "$TEST_TMP/expected"
repaired "$img"
echo "ok $keyed keyed references of an extent without its item"

# the data extent item after the last tree block of the metadata group
# moved to the next tree block's place, its length with it
img=$(fsck_base_image) || exit
file_sums "$img" "$TEST_TMP/sums.before" ro
extent_items "$img" > "$TEST_TMP/items.before"
read -r bytenr len to mbg mlen dbg dlen < <(python3 - "$img" "$EDIT" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
groups = {}
items = []
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(2)):
    items.append((blk, slot, key))
    if key[1] == 192:
        groups[key[0]] = (key[2], struct.unpack_from('<Q', img.read_block(blk), 101 + off + 16)[0])
def group(b):
    return [(s, l) for s, (l, f) in groups.items() if s <= b < s + l][0]
for (pb, ps, pk), (b, s, k) in zip(items, items[1:]):
    if pb == b and pk[1] == 169 and k[1] == 168 and groups[group(pk[0])[0]][1] & 4:
        to = pk[0] + img.nodesize
        m = group(pk[0])
        d = group(k[0])
        if to + k[2] <= m[0] + m[1]:
            print(k[0], k[2], to, m[0], m[1], d[0], d[1])
            break
PY
)
[ -n "$dlen" ] || fail "no data extent item after the metadata group's last tree block"
python3 "$EDIT" "$img" set-key 2 "$bytenr" 168 "$len" "$to" 168 "$len" || fail "edit failed"
finding_codes "$img" > "$TEST_TMP/codes"
for c in EXTENT_OUTSIDE_BLOCK_GROUP EXTENT_ITEM_UNUSED EXTENT_ITEM_MISSING; do
	grep -qx $c "$TEST_TMP/codes" || { cat "$TEST_TMP/codes" >&2; fail "no $c"; }
done
"$GHEE" check "$img" 2>&1 |
	grep -q "\[EXTENT_OUTSIDE_BLOCK_GROUP\] extent \[$to $len\] is not inside a block group of the right type: a data extent in block group $mbg of type " ||
	fail "EXTENT_OUTSIDE_BLOCK_GROUP does not name the metadata group"
{
	rebuilt EXTENT_OUTSIDE_BLOCK_GROUP "$to" "$len"
	rebuilt EXTENT_ITEM_UNUSED "$to" "$len"
	rebuilt EXTENT_ITEM_MISSING "$bytenr" "$len"
	echo "BLOCK_GROUP_USED | rebuild block group item ($mbg BLOCK_GROUP_ITEM $mlen) used, with the extent tree"
	echo "BLOCK_GROUP_USED | rebuild block group item ($dbg BLOCK_GROUP_ITEM $dlen) used, with the extent tree"
} > "$TEST_TMP/expected"
repaired "$img"
exit 0
