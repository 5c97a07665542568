#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A tree block whose checksum is wiped is taken as written only when the
# checksum is all that is wrong with it (fsck-tests/165).  Here it is not,
# and the repair refuses, saying why, and writes nothing:
# - the checksum wiped and an item of the leaf damaged (an inode ref
#   whose name overflows the item);
# - the checksum wiped and the leaf's generation differing from its
#   parent pointer's.
# The finding stays TREE_BLOCK_UNREADABLE, the image is byte for byte as
# it was.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

ino=$((256 + 300))

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

# refused WHY: the repair does not fix the block, says WHY, writes nothing
refused()
{
	local why=$1 csum line

	csum=$(edit wipe-csum "$leaf") || exit
	expect_code_present "$img" TREE_BLOCK_UNREADABLE "block $leaf cannot be read: checksum verify failed"
	cp --sparse=always "$img" "$TEST_TMP/before.img" || fail "cannot copy the image"
	"$GHEE" check --repair --dry-run "$img" > "$TEST_TMP/plan.out" 2>&1
	"$GHEE" check --repair "$img" > "$TEST_TMP/repair.out" 2>&1
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/repair.out" >&2; fail "repair crashed (status $rc)"; }
	line="  could not fix [TREE_BLOCK_UNREADABLE] tree 5: block $leaf cannot be read: checksum verify failed on $leaf wanted 0x00000000 found $csum; checksum not recomputed: $why: Structure needs cleaning"
	for out in plan repair; do
		grep -qxF "$line" "$TEST_TMP/$out.out" ||
			{ grep TREE_BLOCK "$TEST_TMP/$out.out" >&2; fail "$out: not the line: $line"; }
		grep -q "^  \(would \)\?fix" "$TEST_TMP/$out.out" &&
			{ grep "^  \(would \)\?fix" "$TEST_TMP/$out.out" >&2; fail "$out: something was fixed"; }
	done
	cmp -s "$img" "$TEST_TMP/before.img" || fail "the refused repair changed the image"
	expect_code_present "$img" TREE_BLOCK_UNREADABLE "block $leaf cannot be read: checksum verify failed"
}

# an item of the leaf damaged too
img=$(fsck_base_image) || exit
leaf=$(edit leaf-of 5 "$ino" 12 257)
slot=$(edit find 5 "$ino" 12 257 | cut -d' ' -f2)
edit set-item 5 "$ino" 12 257 8 2 1000
refused "item $slot: corrupt leaf: root=5 block=$leaf slot=$slot, inode ref name overflows the item"

# the leaf's generation not its parent pointer's
img=$(fsck_base_image) || exit
leaf=$(edit leaf-of 5 "$ino" 1 0)
gen=$(edit get-block "$leaf" 80 8)
edit set-block "$leaf" 80 8 $((gen - 1))
refused "its generation is $((gen - 1)), its parent says $gen"
exit 0
