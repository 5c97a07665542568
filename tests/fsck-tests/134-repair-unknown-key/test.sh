#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of an item of a key type no kernel defines in a filesystem tree
# (FS_TREE_UNKNOWN_KEY, as in corpus image 069-unknown-fs-tree-key): an
# item (INO 8 256) inserted among an inode's items is deleted, the leaf
# holds what it held before, and ghee check, btrfs check 6.2 and 6.19 are
# clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# leaf_items IMG LEAF: "key data-hex" of every item of the leaf
leaf_items()
{
	python3 "$EDIT" "$1" leaf-items "$2" | awk '{ print $2, $3, $4, $7 }'
}

img=$(fsck_base_image) || exit
# an inode whose inode item and inode ref share a leaf with room for one more
read -r ino leaf < <(python3 - "$img" "$EDIT" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[2])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[1])
leaves = {}
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(5)):
    leaves.setdefault(blk, []).append((key, off))
for blk, items in leaves.items():
    free = items[-1][1] - 25 * len(items)
    for (k, _), (n, _) in zip(items, items[1:]):
        if free >= 64 and k[1] == 1 and n[0] == k[0] and n[1] == 12 and k[0] > 256:
            print(k[0], blk)
            sys.exit(0)
sys.exit(1)
PY
) || fail "no leaf with room"
leaf_items "$img" "$leaf" > "$TEST_TMP/items.before"
python3 "$EDIT" "$img" insert-item 5 "$ino" 8 256 16 || fail "edit failed"
expect_codes "$img" FS_TREE_UNKNOWN_KEY
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" \
	"FS_TREE_UNKNOWN_KEY | delete root 5 item ($ino 8 256) (16 bytes)"
[ "$(grep -c . "$TEST_TMP/changes")" -eq 1 ] ||
	{ cat "$TEST_TMP/changes" >&2; fail "more than the one change"; }
new=$(python3 "$EDIT" "$img" leaf-of 5 "$ino" 1 0) || fail "no leaf after the repair"
leaf_items "$img" "$new" > "$TEST_TMP/items.after"
compare_outputs "$TEST_TMP/items.before" "$TEST_TMP/items.after" ||
	fail "the leaf's items differ from the undamaged leaf"
expect_second_repair_noop "$img"
