#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a leaf whose keys are out of order (TREE_BLOCK_INVALID), on a
# kernel-written image:
# - the keys of two neighbouring items swapped, their data left in place:
#   the keys are put back in order with each slot keeping its data (the
#   other reading, whole items moved, would give an inode item the bytes of
#   an inode ref);
# - one key moved past its neighbour with its item (header and data): the
#   items are sorted with their data.
# The leaf is copied on write; the items read back as before the damage,
# and ghee check, btrfs check 6.2 and 6.19 are clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# an inode in the middle of the fs tree: its inode item and inode ref
ino=$((256 + 300))

# item_bytes IMG KEY...: the data of the item, in hex
item_bytes()
{
	local img=$1 out blk off size

	shift
	out=$(python3 "$EDIT" "$img" find "$@") || fail "item ($*) not found"
	read -r blk _ off size _ <<< "$out"
	python3 - "$img" "$blk" "$off" "$size" "$EDIT" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[5])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[1])
data = img.read_block(int(sys.argv[2]))
off, size = int(sys.argv[3]), int(sys.argv[4])
print(bytes(data[101 + off:101 + off + size]).hex())
PY
}

# check_repaired IMG LEAF WHY CHANGE: one leaf fix and the copy on write
check_repaired()
{
	local img=$1 leaf=$2 why=$3 change=$4

	expect_code_present "$img" TREE_BLOCK_INVALID "$why"
	expect_plan_matches "$img"
	expect_repaired "$img"
	expect_change "$TEST_TMP/repair.json" "TREE_BLOCK_INVALID | $change"
	expect_change "$TEST_TMP/repair.json" \
		"TREE_BLOCK_INVALID | rebuild tree 5 block $leaf (level 0): copied to a new address with the current generation"
	[ "$(grep -c . "$TEST_TMP/changes")" -eq 2 ] ||
		{ cat "$TEST_TMP/changes" >&2; fail "more than the leaf fix and its copy"; }
	[ "$(item_bytes "$img" 5 "$ino" 1 0)" = "$inode" ] || fail "the inode item's data changed"
	[ "$(item_bytes "$img" 5 "$ino" 12 257)" = "$ref" ] || fail "the inode ref's data changed"
	[ "$(python3 "$EDIT" "$img" leaf-of 5 "$ino" 1 0)" != "$leaf" ] ||
		fail "the leaf was not copied on write"
	expect_second_repair_noop "$img"
}

img=$(fsck_base_image) || exit
inode=$(item_bytes "$img" 5 "$ino" 1 0)
ref=$(item_bytes "$img" 5 "$ino" 12 257)
leaf=$(python3 "$EDIT" "$img" leaf-of 5 "$ino" 1 0) || fail "no leaf"

# the keys swapped, the data stays
python3 "$EDIT" "$img" swap-keys 5 "$ino" 1 0 || fail "edit failed"
nr=$(python3 "$EDIT" "$img" get-block "$leaf" 96 4) || fail "cannot read the leaf"
check_repaired "$img" "$leaf" "bad key order" \
	"change leaf $leaf: keys of its $nr slots put in order, each slot keeping its data"

# the whole item headers swapped (key, offset and size): the data moves back
img=$(fsck_base_image) || exit
python3 - "$img" "$leaf" "$ino" "$EDIT" <<'PY' || fail "edit failed"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[4])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[1])
blk, ino = int(sys.argv[2]), int(sys.argv[3])
data = img.read_block(blk)
nritems, level = img.header(data)
slot = [s for s in range(nritems) if img.item(data, s)[0] == (ino, 1, 0)][0]
a, b = 101 + slot * 25, 101 + (slot + 1) * 25
ha, hb = bytes(data[a:a + 25]), bytes(data[b:b + 25])
data[a:a + 25], data[b:b + 25] = hb, ha
img.write_block(blk, data)
PY
# (the offsets no longer descend: the layout check reports them first)
check_repaired "$img" "$leaf" "unexpected item end" \
	"change leaf $leaf: its $nr items sorted by key, each with its data"
