#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A mended leaf shared by a subvolume and its snapshot (the situation of
# corpus image 007-bad-offset-snapshots, whose damaged leaf five trees
# share): a data offset of one of its item headers is overwritten
# (TREE_BLOCK_INVALID, mended as in fsck-tests/167).  The copy on write
# must happen in every subvolume tree that points to the leaf, or the
# others keep reading the damaged block: one change, one copy per tree,
# no tree left pointing to the old leaf, each new leaf holding the items
# the undamaged one held; ghee check, btrfs check 6.2 and 6.19 clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

# py IMG ARGS...: run the python snippet on stdin against the image
py()
{
	python3 - "$EDIT" "$@" <<PY
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[1])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[2])
def leaves(t):
    return sorted(set(b for b, s, k, o, n in img.walk_leaves(img.tree_root(t))))
$(cat)
PY
}

# shared_leaf IMG: the first leaf of tree 256 that tree 257 shares, with >= 5 items
shared_leaf()
{
	py "$1" <<'EOF2'
b = set(leaves(257))
for blk in leaves(256):
    if blk in b and img.header(img.read_block(blk))[0] >= 5:
        print(blk)
        break
EOF2
}

# leaf_items IMG LEAF: "key offset size data-hex" of every item of the leaf
leaf_items()
{
	py "$1" "$2" <<'EOF2'
data = img.read_block(int(sys.argv[3]))
for s in range(img.header(data)[0]):
    key, off, size = img.item(data, s)
    print("%d %d %d" % key, off, size, bytes(data[101 + off:101 + off + size]).hex())
EOF2
}

img=$(fsck_base_image) || exit
leaf=$(shared_leaf "$img")
[ -n "$leaf" ] || fail "no leaf shared by the subvolume and its snapshot"
leaf_items "$img" "$leaf" > "$TEST_TMP/items.before"
nr=$(grep -c . "$TEST_TMP/items.before")
slot=$((nr / 2))
read -r _ _ _ off _ _ < <(sed -n "$((slot + 1))p" "$TEST_TMP/items.before")
first_key=$(head -n1 "$TEST_TMP/items.before" | cut -d' ' -f1-3)
bad=$((off + 0x2d0e0000))
edit set-block "$leaf" $((101 + slot * 25 + 17)) 4 "$bad"
expect_code_present "$img" TREE_BLOCK_INVALID "slot=$slot, unexpected item end"
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" \
	"TREE_BLOCK_INVALID | change leaf $leaf slot $slot data offset (the gap its neighbours leave): $bad -> $off"
for tree in 256 257; do
	expect_change "$TEST_TMP/repair.json" \
		"TREE_BLOCK_INVALID | rebuild tree $tree block $leaf (level 0): copied to a new address with the current generation"
done
[ "$(grep -c . "$TEST_TMP/changes")" -eq 3 ] ||
	{ cat "$TEST_TMP/changes" >&2; fail "more than the leaf fix and its two copies"; }
for tree in 256 257; do
	# shellcheck disable=SC2086 # the key's three numbers
	new=$(edit leaf-of "$tree" $first_key)
	[ "$new" != "$leaf" ] || fail "tree $tree still points to the damaged leaf"
	leaf_items "$img" "$new" > "$TEST_TMP/items.$tree"
	compare_outputs "$TEST_TMP/items.before" "$TEST_TMP/items.$tree" ||
		fail "tree $tree: the leaf's items differ from the undamaged leaf"
done
expect_second_repair_noop "$img"
exit 0
