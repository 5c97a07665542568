#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of tree block headers that disagree with what points to them
# (TREE_BLOCK_INVALID), one damage at a time on a kernel-written image:
# - a node pointer's generation differs from its leaf's (a transid
#   mismatch, as after a lost write of the parent);
# - a leaf's level differs from what its parent expects;
# - the fs tree's root node and root item carry a generation newer than
#   the superblock (also ROOT_ITEM_INVALID; corpus image
#   041-invalid-root-generation).
# The block is copied on write: a new address and the current generation,
# its parent pointer (or root item) follows; ghee check, btrfs check 6.2
# and 6.19 are clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ino=$((256 + 300))

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

# repaired WHY CHANGE...: the finding, the repair with exactly these changes
# (and the copy on write of $blk), the block replaced, all clean
repaired()
{
	local why=$1 c

	shift
	expect_code_present "$img" TREE_BLOCK_INVALID "$why"
	expect_plan_matches "$img"
	expect_repaired "$img"
	for c in "$@" "TREE_BLOCK_INVALID | rebuild tree 5 block $blk (level $level): copied to a new address with the current generation"; do
		expect_change "$TEST_TMP/repair.json" "$c"
	done
	[ "$(grep -c . "$TEST_TMP/changes")" -eq $(($# + 1)) ] ||
		{ cat "$TEST_TMP/changes" >&2; fail "more changes than expected"; }
	[ "$($locate)" != "$blk" ] || fail "the block is still at $blk"
	expect_second_repair_noop "$img"
}

leaf_now() { edit leaf-of 5 "$ino" 1 0; }
root_now()
{
	python3 - "$img" "$EDIT" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[2])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
print(edit.Image(sys.argv[1]).tree_root(5))
PY
}

# a node pointer's generation one below its leaf's
img=$(fsck_base_image) || exit
locate=leaf_now
leaf=$(edit leaf-of 5 "$ino" 1 0)
blk=$leaf level=0
read -r node slot < <(edit parent-of 5 "$leaf")
gen=$(edit get-block "$leaf" 80 8)
edit set-block "$node" $((101 + 33 * slot + 25)) 8 $((gen - 1))
repaired "parent transid verify failed on $leaf wanted $((gen - 1)) found $gen" \
	"TREE_BLOCK_INVALID | change block $leaf header generation: $gen -> $((gen - 1))"

# a leaf that says it is a node
img=$(fsck_base_image) || exit
edit set-block "$leaf" 100 1 1
repaired "level mismatch, wanted 0 found 1" \
	"TREE_BLOCK_INVALID | change block $leaf header level: 1 -> 0"

# the fs tree's root: node and root item from the future
img=$(fsck_base_image) || exit
sgen=$(edit get-super 72 8)
locate=root_now
blk=$(root_now)
level=$(edit get-block "$blk" 100 1)
edit set-block "$blk" 80 8 $((sgen + 100))
edit set-item 1 5 132 0 160 8 $((sgen + 100))
expect_codes "$img" TREE_BLOCK_INVALID ROOT_ITEM_INVALID
repaired "generation $((sgen + 100)) is newer than its superblock ($sgen)"
