#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a name held twice by one directory (the case of btrfs-progs'
# 067-dupe-filename): two names of one hash share a dir item (the kernel
# wrote them), and the second file's name is changed to the first's in
# all three copies (dir item, dir index, inode ref).  The first keeps the
# name; the second is renamed NAME.dup-INO in all three copies and the
# directory's size follows.  Both files read back through the kernel
# afterwards; the plan of --dry-run matches, all three checkers are
# clean, a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/names-lib.sh"
need_progs python3

a=abcdefgh
b=$(names_colliding $a) || fail "no name colliding with $a"
IMG=$(names_collision_image $a "$b") || exit
"$GHEE" check "$IMG" > "$TEST_TMP/base.out" 2>&1 || { cat "$TEST_TMP/base.out" >&2; fail "the collision image is not clean"; }
dir=257
h=$(python3 "$EDIT" "$IMG" find 5 $dir 84 | awk '{print $NF}') || fail "no dir item in $dir"
first=$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 0 8) || fail "no first entry"
second=$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 38 8) || fail "no second entry"
index=$(python3 "$EDIT" "$IMG" get-item 5 "$second" 12 $dir 0 8) || fail "no inode ref of $second"
v=$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 30 8) || fail "cannot read the first name"
if [ "$v" = "$(names_le $a)" ]; then keep=$a; else keep=$b; fi
size=$(python3 "$EDIT" "$IMG" get-item 5 $dir 1 0 16 8) || fail "no inode item of $dir"
le=$(names_le $keep)
fs_edit set-item 5 $dir 84 "$h" 68 8 "$le"
fs_edit set-item 5 $dir 96 "$index" 30 8 "$le"
fs_edit set-item 5 "$second" 12 $dir 10 8 "$le"
expect_fs_codes "$IMG" DIR_ENTRY_DUPLICATE

dup=$keep.dup-$second
newhash=$(python3 - "$TOP/tests/pylib" "$dup" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from btrfs_crc import _TABLE
# the btrfs name hash: crc32c seeded with ~1, not inverted
crc = 0xFFFFFFFE
for x in sys.argv[2].encode():
    crc = _TABLE[(crc ^ x) & 0xFF] ^ (crc >> 8)
print(crc)
PY
)
expect_plan_matches "$IMG"
expect_repaired "$IMG"
for line in \
	"DIR_ENTRY_DUPLICATE | delete root 5 ($dir DIR_ITEM $h) name $keep" \
	"DIR_ENTRY_DUPLICATE | insert root 5 ($dir DIR_ITEM $newhash) name $dup" \
	"DIR_ENTRY_DUPLICATE | delete root 5 ($dir DIR_INDEX $index) name $keep" \
	"DIR_ENTRY_DUPLICATE | insert root 5 ($dir DIR_INDEX $index) name $dup" \
	"DIR_ENTRY_DUPLICATE | delete root 5 ($second INODE_REF $dir) index $index name $keep" \
	"DIR_ENTRY_DUPLICATE | insert root 5 ($second INODE_REF $dir) index $index name $dup" \
	"DIR_ENTRY_DUPLICATE | change root 5 ($dir INODE_ITEM 0) size: $size -> $((size + 2 * (${#dup} - ${#keep})))"; do
	expect_change "$TEST_TMP/repair.json" "$line"
done
expect_second_repair_noop "$IMG"
[ "$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 0 8)" = "$first" ] ||
	fail "the first file lost its name"

# both files are reachable, each with its own content
if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems; then
	mount_image "$IMG" "$TEST_TMP/mnt"
	c1=$(cat "$TEST_TMP/mnt/d/$keep") c2=$(cat "$TEST_TMP/mnt/d/$dup")
	umount_image "$TEST_TMP/mnt"
	[ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ] ||
		fail "the two files do not read back apart: '$c1' '$c2'"
	echo "read back: $keep: $c1, $dup: $c2" >&2
fi
