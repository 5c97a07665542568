#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A file extent's disk_bytenr pointing where no data can be is fixed on
# the file side before any back reference follows it: restored when an
# extent of its length has the unused back reference naming it (an extent
# item of its own made unaligned, as in corpus 001; a reflinked extent's
# pointer moved onto a tree block), else made a hole (the extent item's
# back reference names another inode too), after which the extent tree
# rebuild, nbytes and the csum repairs follow.  Never are checksums
# computed over the tree block the pointer named.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# "BYTENR LEN INODE" of the first data extent with refs REFS in the fs tree
data_extent()
{
	"$GHEE" dump-tree -t 2 "$1" | awk -v refs="$2" '
		/ EXTENT_ITEM / { split($0, k, /[( )]+/); b = k[4]; l = k[6]; want = 0 }
		$1 == "refs" && $2 == refs && $NF == "DATA" { want = 1; next }
		want && /extent data backref root FS_TREE/ { print b, l, $7; exit }
		{ want = 0 }'
}

# disk_bytenr of a file extent item: after generation, ram_bytes, compression,
# encryption, other_encoding and type
FE_BYTENR=21

img=$(fsck_base_image) || exit
read -r bytenr len ino < <(data_extent "$img" 1) || fail "no data extent with one ref"
[ -n "$ino" ] || fail "no data extent with one ref"
python3 "$EDIT" "$img" set-item 5 "$ino" 108 0 $FE_BYTENR 8 $((bytenr + 1)) || fail "edit failed"
expect_codes "$img" EXTENT_ITEM_MISSING EXTENT_ITEM_UNUSED TREE_ITEM_INVALID
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "EXTENT_ITEM_MISSING | change root 5 ($ino EXTENT_DATA 0) disk_bytenr (restored: the extent [$bytenr $len] has an unused back reference to this file extent): $((bytenr + 1)) -> $bytenr"
expect_second_repair_noop "$img"

# the second file of a reflinked extent, pointed at a tree block
img=$(fsck_base_image) || exit
read -r sbytenr slen _ < <(data_extent "$img" 2) || fail "no shared data extent"
sino=$("$GHEE" dump-tree -t 2 "$img" | grep -A3 "($sbytenr EXTENT_ITEM $slen)" |
	awk '/extent data backref root FS_TREE/ { i = $7 } END { print i }')
read -r tb _ _ < <(python3 "$EDIT" "$img" first 2 169) || fail "no tree block"
python3 "$EDIT" "$img" set-item 5 "$sino" 108 0 $FE_BYTENR 8 "$tb" || fail "edit failed"
expect_code_present "$img" EXTENT_BACKREF_MISSING
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "EXTENT_BACKREF_MISSING | change root 5 ($sino EXTENT_DATA 0) disk_bytenr (restored: the extent [$sbytenr $slen] has an unused back reference to this file extent): $tb -> $sbytenr"
repair_changes "$TEST_TMP/repair.json" | grep -q "^CSUM_MISSING" && fail "checksums were computed over the tree block"
expect_second_repair_noop "$img"

# no back reference names the file extent: a hole of the same length
img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" set-item 5 "$ino" 108 0 $FE_BYTENR 8 "$tb" || fail "edit failed"
# the extent item's inline data ref: root (25), objectid (33), offset (41)
python3 "$EDIT" "$img" set-item 2 "$bytenr" 168 "$len" 33 8 $((ino + 100000)) || fail "edit failed"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "EXTENT_BACKREF_MISSING | change root 5 ($ino EXTENT_DATA 0) disk_bytenr (a hole: no data block group holds [$tb $len]): $tb -> 0"
expect_change "$TEST_TMP/repair.json" "EXTENT_ITEM_UNUSED | rebuild extent tree: items and back references of [$bytenr $len] from the trees (with every other extent)"
expect_change "$TEST_TMP/repair.json" "INODE_NBYTES | change root 5 ($ino INODE_ITEM 0) nbytes: $len -> 0"
repair_changes "$TEST_TMP/repair.json" | grep -q "^CSUM_MISSING" && fail "checksums were computed over the tree block"
expect_second_repair_noop "$img"
