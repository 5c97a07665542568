#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TREE_KEY_RANGE: items of a leaf moved to the end of its left neighbour
# (the lost write of a push between neighbours): the left leaf's last keys
# are at or above the key its parent gives the right one, so no search
# finds them (btrfs check 6.2 and 6.19 call the image clean, their lowmem
# mode sees the directory size disagree).  --repair takes them out and
# inserts them where they sort, in the right leaf; the dry run plans
# exactly that, every checker is clean, the kernel reads every file as
# before the damage and a second repair writes nothing.
# - the items moved: they move back;
# - the items copied (both leaves hold them, byte for byte): the stray
#   copies are dropped;
# - copied, the stray copy of one changed: refused, nothing written;
# - in a level-2 tree (4 KiB nodes), items moved to the last leaf of a
#   node, whose bound is the root's key for the next node (the finding
#   names the root): moved back;
# - a node: two key pointers of a level-1 node moved to the end of its
#   left neighbour: the items of the leaves under them move where they sort and the emptied leaves leave the tree.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_progs python3 sha256sum

mnt=$TEST_TMP/mnt

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

# index KEY: the offset of a dir index key "(257 DIR_INDEX N)"
index() { local k=${1##* }; echo "${k%)}"; }

# tree IMG CMD ARGS: questions about tree 5 of IMG (see the commands below)
tree()
{
	python3 - "$EDIT" "$@" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[1])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[2])
cmd, args = sys.argv[3], [int(a) for a in sys.argv[4:]]
NAMES = {1: 'INODE_ITEM', 12: 'INODE_REF', 24: 'XATTR_ITEM', 84: 'DIR_ITEM',
         96: 'DIR_INDEX', 108: 'EXTENT_DATA'}

def ks(key):
    return '(%d %s %d)' % (key[0], NAMES.get(key[1], str(key[1])), key[2])

def ptrs(data):
    nr, level = img.header(data)
    return [(struct.unpack_from('<QBQ', data, 101 + 33 * s),
             struct.unpack_from('<Q', data, 101 + 33 * s + 17)[0]) for s in range(nr)]

def leaves(blk):
    """(leaf, key) of every item under the block, in order"""
    data = img.read_block(blk)
    nr, level = img.header(data)
    if level == 0:
        return [(blk, k) for k, body in img.items(data)]
    return [x for key, child in ptrs(data) for x in leaves(child)]

def leaf_parents(blk):
    """(leaf, parent) of every leaf, in order"""
    data = img.read_block(blk)
    kids = [c for k, c in ptrs(data)]
    if img.header(data)[1] == 1:
        return [(c, blk) for c in kids]
    return [x for c in kids for x in leaf_parents(c)]

root = img.tree_root(5)
if cmd in ('pair', 'pair-across'):
    # two neighbouring leaves (pair-across: under two nodes), the right
    # one's slots 1-3 fit the left one (pair: dir index items): "LEFT RIGHT"
    lp = leaf_parents(root)
    for (left, lpar), (right, rpar) in zip(lp, lp[1:]):
        if (cmd == 'pair-across') != (lpar != rpar):
            continue
        l, r = img.read_block(left), img.read_block(right)
        items = img.items(r)
        need = sum(25 + len(b) for k, b in items[1:4])
        free = img.nodesize - 101 - sum(25 + len(b) for k, b in img.items(l))
        if len(items) > 4 and need < free and (cmd == 'pair-across' or
                                               all(k[1] == 96 for k, b in items[1:4])):
            print(left, right)
            sys.exit(0)
    sys.exit('no leaves to move items between')
elif cmd == 'keys':
    # the keys of slots FIRST.. (N of them) of a leaf
    data = img.read_block(args[0])
    for k, b in img.items(data)[args[1]:args[1] + args[2]]:
        print(ks(k))
elif cmd == 'nodes':
    # the first two level-1 nodes of a level-2 tree: "LEFT NR RIGHT FIRSTKEY"
    data = img.read_block(root)
    if img.header(data)[1] != 2:
        sys.exit('tree 5 is not of level 2')
    (k0, n0), (k1, n1) = ptrs(data)[:2]
    print(n0, img.header(img.read_block(n0))[0], n1, ks(k1))
elif cmd == 'items-under':
    # "LEAF KEY" of every item under pointers FIRST.. (N of them) of a node
    for key, child in ptrs(img.read_block(args[0]))[args[1]:args[1] + args[2]]:
        for leaf, k in leaves(child):
            print(leaf, ks(k))
elif cmd == 'leaf-map':
    # "KEY LEAF" of every item of the tree
    for leaf, k in leaves(root):
        print(ks(k), leaf)
PY
}

expect_same_files()
{
	file_sums "$img" "$TEST_TMP/sums.after" ro
	compare_outputs "$TEST_TMP/sums.before" "$TEST_TMP/sums.after" ||
		fail "the files do not read what they read before the damage"
}

# expect_changes FILE: the changes of the repair are exactly those of FILE
expect_changes()
{
	repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
	sort "$1" > "$TEST_TMP/want.sorted"
	compare_outputs "$TEST_TMP/want.sorted" "$TEST_TMP/changes" || fail "not the expected changes"
}

# pick WHICH: the leaves to damage, and the keys of the items that move
pick()
{
	read -r left right < <(tree "$img" "$1") || fail "no leaves to damage"
	[ -n "$right" ] || fail "no leaves to damage"
	mapfile -t keys < <(tree "$img" keys "$right" 1 3)
	[ "${#keys[@]}" -eq 3 ] || fail "cannot read the keys of leaf $right"
	# the node the left leaf's bound is a key of: its parent, or the root
	read -r bound _ < <(edit parent-of 5 "$left") || fail "no parent of $left"
	if [ "$1" = pair-across ]; then
		read -r bound _ < <(edit parent-of 5 "$bound") || fail "no root above $left"
		bound="node $bound"
	else
		bound="parent $bound"
	fi
}

# thin DIR: every third small file of DIR goes.  A tree the kernel fills
# in key order has full leaves (a split leaves the left one full), and
# moved items need room in the left leaf; the deletes make room there,
# whatever the layout a given kernel run chose.
thin()
{
	local i

	for ((i = 3; ; i += 3)); do
		[ -e "$1/f$i" ] || [ -e "$1/f$((i + 1))" ] || break
		rm -f "$1/f$i" || fail "cannot delete $1/f$i"
	done
}

# a fresh copy of the base image with room in its leaves (made once),
# its files' sums, and the leaves to damage
setup()
{
	local thinned=$TEST_TMP/thinned.img

	if ! [ -f "$thinned" ]; then
		img=$(fsck_base_image) || exit
		mount_image "$img" "$mnt" space_cache=v2
		thin "$mnt/d"
		umount_image "$mnt" || fail "umount failed"
		mv -f "$img" "$thinned" || fail "cannot keep the thinned image"
		file_sums "$thinned" "$TEST_TMP/sums.before" ro
	fi
	img=$TEST_TMP/test.img
	cp --sparse=always "$thinned" "$img" || fail "cannot copy the thinned image"
	pick pair
}

# moved_back: the items are in one leaf after the repair, not $left; the
# one change line says so
moved_back()
{
	local k to

	tree "$img" leaf-map > "$TEST_TMP/leaf-map" || fail "cannot map the repaired tree"
	to=$(grep -F "${keys[0]} " "$TEST_TMP/leaf-map" | cut -d' ' -f4)
	for k in "${keys[@]}"; do
		[ "$(grep -cF "$k " "$TEST_TMP/leaf-map")" -eq 1 ] || fail "item $k is not in the tree once"
		grep -qxF "$k $to" "$TEST_TMP/leaf-map" || fail "item $k is not in leaf $to"
	done
	[ "$to" != "$left" ] || fail "the items stayed in leaf $left"
	echo "TREE_KEY_RANGE | change tree 5 items ${keys[0]} to ${keys[2]} (3) moved where they sort, leaf: $left -> $to" \
		> "$TEST_TMP/want"
	expect_changes "$TEST_TMP/want"
}

# the damage is seen by ghee check alone, and by btrfs check's lowmem mode
expect_damage()
{
	expect_codes "$img" TREE_KEY_RANGE
	grep -q "^ERROR: \[TREE_KEY_RANGE\] tree 5: block $left key ${keys[2]} outside the range its parent allows: expect keys below .* (next key in $bound)\$" \
		"$TEST_TMP/check.out" || fail "not the expected TREE_KEY_RANGE"
	btrfs check --readonly --mode=lowmem "$img" > "$TEST_TMP/lowmem.out" 2>&1 &&
		{ cat "$TEST_TMP/lowmem.out" >&2; fail "btrfs check --mode=lowmem calls the damage clean"; }
}

# move_and_repair WHAT: slots 1-3 of $right moved to the end of $left, repaired
move_and_repair()
{
	edit move-items "$right" 1 3 "$left"
	expect_damage
	expect_plan_matches "$img"
	expect_repaired "$img"
	moved_back
	expect_second_repair_noop "$img"
	expect_same_files
	echo "ok $1: moved back"
}

# ---- the items moved ----
setup
move_and_repair "moved items"

# ---- the items copied: the stray copies go ----
setup
edit move-items "$right" 1 3 "$left" 1
expect_damage
expect_plan_matches "$img"
expect_repaired "$img"
echo "TREE_KEY_RANGE | delete tree 5 items ${keys[0]} to ${keys[2]} (3) in leaf $left: the same bytes are where they sort, in leaf $right" \
	> "$TEST_TMP/want"
expect_changes "$TEST_TMP/want"
expect_second_repair_noop "$img"
expect_same_files
echo "ok copied items: stray copies dropped"

# ---- copied, one copy changed: refused ----
setup
edit move-items "$right" 1 3 "$left" 1
k=$(index "${keys[0]}")
# the first copy in tree order is the stray one; its transid changes
[ "$(edit leaf-of 5 257 96 "$k")" = "$left" ] || fail "the stray copy is not found first"
edit add-item 5 257 96 "$k" 17 8 1
expect_damage
cp --sparse=always "$img" "$TEST_TMP/before.img" || fail "cannot copy the image"
why="not moved: tree 5 item ${keys[0]} of block $left differs from the item of that key in leaf $right, where it sorts: File exists"
for mode in --dry-run ""; do
	"$GHEE" check --repair $mode "$img" > "$TEST_TMP/refused.out" 2>&1
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/refused.out" >&2; fail "repair crashed (status $rc)"; }
	[ $rc -eq "$CHECK_ERRORS" ] || { cat "$TEST_TMP/refused.out" >&2; fail "refused repair$mode: status $rc"; }
	grep -q "^  could not fix \[TREE_KEY_RANGE\] tree 5: block $left .*; $why\$" "$TEST_TMP/refused.out" ||
		{ cat "$TEST_TMP/refused.out" >&2; fail "repair$mode: not refused with the reason"; }
	cmp -s "$img" "$TEST_TMP/before.img" || fail "the refused repair$mode changed the image"
done
echo "ok different copy: refused, nothing written"

# ---- a level-2 tree (4 KiB nodes) ----
nodes=$TEST_TMP/nodes.img
kernel_mkfs "$nodes" 256M -n 4096
mount_image "$nodes" "$mnt" space_cache=v2
mkdir "$mnt/d" || fail "mkdir failed"
for i in $(seq 1 2200); do
	echo "file $i" > "$mnt/d/f$i"
done
sync
thin "$mnt/d"
head -c 200000 /dev/urandom > "$mnt/data" || fail "cannot write a file"
umount_image "$mnt" || fail "umount failed"
"$GHEE" check "$nodes" > "$TEST_TMP/node-check.out" 2>&1 ||
	{ cat "$TEST_TMP/node-check.out" >&2; fail "the new image is not clean"; }
file_sums "$nodes" "$TEST_TMP/sums.before" ro

# the last leaf of a node: the key it must stay below is the root's
img=$TEST_TMP/across.img
cp --sparse=always "$nodes" "$img" || fail "cannot copy the image"
pick pair-across
move_and_repair "moved items past the end of a node"

# a node: two key pointers moved to the end of its left neighbour
img=$TEST_TMP/node.img
cp --sparse=always "$nodes" "$img" || fail "cannot copy the image"
read -r n0 nr0 n1 hi < <(tree "$img" nodes) || fail "no level-1 nodes"
tree "$img" items-under "$n1" 1 2 > "$TEST_TMP/moved" || fail "cannot list the moved items"
last_leaf=$(tail -n 1 "$TEST_TMP/moved" | cut -d' ' -f1)
edit move-ptrs "$n1" 1 2 "$n0"
expect_codes "$img" TREE_KEY_RANGE
grep -q "^ERROR: \[TREE_KEY_RANGE\] tree 5: block $n0 key .* expect keys below $hi " "$TEST_TMP/check.out" ||
	fail "the node's TREE_KEY_RANGE is not reported"
grep -q "^ERROR: \[TREE_KEY_RANGE\] tree 5: block $last_leaf key .* expect keys below $hi " "$TEST_TMP/check.out" ||
	fail "the last moved leaf's TREE_KEY_RANGE is not reported"
expect_plan_matches "$img"
expect_repaired "$img"
# the change lines: the node's pointers, then each run of items that went
# from one leaf to one leaf, and nothing left for the leaf's own finding
tree "$img" leaf-map > "$TEST_TMP/leaf-map" || fail "cannot map the repaired tree"
python3 - "$TEST_TMP/moved" "$TEST_TMP/leaf-map" "$n0" "$nr0" "$hi" > "$TEST_TMP/want" <<'PY' ||
import sys
moved = [l.split(' ', 1) for l in open(sys.argv[1]).read().splitlines()]
where = dict(l.rsplit(' ', 1) for l in open(sys.argv[2]).read().splitlines())
n0, nr0, hi = sys.argv[3], int(sys.argv[4]), sys.argv[5]
print("TREE_KEY_RANGE | delete tree 5 node %s key pointers %d-%d, at or above %s: "
      "the blocks under them emptied and freed" % (n0, nr0, nr0 + 1, hi))
print("TREE_KEY_RANGE | change nothing: right after the fixes before it")
runs = []
for leaf, key in moved:
    if runs and runs[-1][0] == (leaf, where[key]):
        runs[-1][1].append(key)
    else:
        runs.append(((leaf, where[key]), [key]))
for (src, dst), keys in runs:
    what = ("item %s moved where it sorts" % keys[0] if len(keys) == 1 else
            "items %s to %s (%d) moved where they sort" % (keys[0], keys[-1], len(keys)))
    print("TREE_KEY_RANGE | change tree 5 %s, leaf: %s -> %s" % (what, src, dst))
PY
	fail "cannot compute the expected changes"
expect_changes "$TEST_TMP/want"
expect_second_repair_noop "$img"
expect_same_files
echo "ok node: the items under its stray pointers moved"
exit 0
