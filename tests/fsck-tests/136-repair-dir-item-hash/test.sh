#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of a DIR_ITEM whose key is not the hash of a name it holds, or
# whose location is broken, each on a fresh copy:
#  - the key of "two"'s dir item changed: the entry moves to its hash;
#  - one byte of the name in the dir item changed ("Two"): the inode ref
#    holds "two", which hashes to the key, so the entry is renamed back;
#  - the location's key type changed: the entry is replaced by a copy of
#    the dir index's;
#  - two names share one dir item (the kernel wrote two names with one
#    hash), and the second file's name changed in all three copies (the
#    case of btrfs-progs' 026-bad-dir-item-name): the entry moves out of
#    the shared item to its own hash, the first name stays.
# The plan of --dry-run matches, all three checkers are clean, a second
# repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/names-lib.sh"
need_progs python3

# btrfs name hash of "two" (crc32c seeded with ~1, not inverted)
hash=140959266

check_fixed()
{
	local img=$1 line

	shift
	expect_plan_matches "$img"
	expect_repaired "$img"
	for line in "$@"; do
		expect_change "$TEST_TMP/repair.json" "$line"
	done
	expect_second_repair_noop "$img"
}

# the key
IMG=$(fs_base_image) || exit
fs_edit set-key 5 "$FS_INO_DIR" 84 $hash "$FS_INO_DIR" 84 $((hash + 1))
expect_fs_codes "$IMG" DIR_ITEM_HASH
check_fixed "$IMG" \
	"DIR_ITEM_HASH | delete root 5 ($FS_INO_DIR DIR_ITEM $((hash + 1))) name two" \
	"DIR_ITEM_HASH | insert root 5 ($FS_INO_DIR DIR_ITEM $hash) name two"

# the name in the dir item
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 84 $hash 30 1 0x54
fs_phase_codes "$IMG"
grep -qx DIR_ITEM_HASH "$TEST_TMP/codes" || fail "no DIR_ITEM_HASH for the renamed entry"
check_fixed "$IMG" \
	"DIR_ITEM_HASH | delete root 5 ($FS_INO_DIR DIR_ITEM $hash) name Two" \
	"DIR_ITEM_HASH | insert root 5 ($FS_INO_DIR DIR_ITEM $hash) name two"
repair_changes "$TEST_TMP/repair.json" | grep -v "^DIR_ITEM_HASH " | grep -v "nothing: right" &&
	fail "changes beyond the dir item"

# the key type of the location in "two"'s dir item: the entry gives way to
# a copy of the dir index's
IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_DIR" 84 $hash 8 1 0x55
expect_fs_codes "$IMG" DIR_ENTRY_INVALID DIR_ITEM_MISSING
check_fixed "$IMG" \
	"DIR_ITEM_MISSING | delete root 5 ($FS_INO_DIR DIR_ITEM $hash) name two (no inode)" \
	"DIR_ITEM_MISSING | insert root 5 ($FS_INO_DIR DIR_ITEM $hash) name two"
[ "$(python3 "$EDIT" "$IMG" get-item 5 "$FS_INO_DIR" 84 $hash 8 1)" = 1 ] ||
	fail "the dir item location is not an inode again"

# out of a shared dir item
a=abcdefgh
b=$(names_colliding $a) || fail "no name colliding with $a"
IMG=$(names_collision_image $a "$b") || exit
"$GHEE" check "$IMG" > "$TEST_TMP/base.out" 2>&1 || { cat "$TEST_TMP/base.out" >&2; fail "the collision image is not clean"; }
dir=257
h=$(python3 "$EDIT" "$IMG" find 5 $dir 84 | awk '{print $NF}') || fail "no dir item in $dir"
second=$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 38 8) || fail "no second entry"
index=$(python3 "$EDIT" "$IMG" get-item 5 "$second" 12 $dir 0 8) || fail "no inode ref of $second"
# which of the two names the second entry holds
v=$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 68 8) || fail "cannot read the second name"
if [ "$v" = "$(names_le $a)" ]; then name2=$a; else name2=$b; fi
new="Z${name2:1}"
fs_edit set-item 5 $dir 84 "$h" 68 1 0x5a
fs_edit set-item 5 $dir 96 "$index" 30 1 0x5a
fs_edit set-item 5 "$second" 12 $dir 10 1 0x5a
expect_fs_codes "$IMG" DIR_ITEM_HASH
check_fixed "$IMG" \
	"DIR_ITEM_HASH | delete root 5 ($dir DIR_ITEM $h) name $new"
grep -q "insert root 5 ($dir DIR_ITEM [0-9]*) name $new" "$TEST_TMP/changes" || fail "$new not inserted"
[ "$(python3 "$EDIT" "$IMG" get-item 5 $dir 84 "$h" 27 2)" = 8 ] || fail "the first name left its dir item"
