#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the fields of an inode item, one damage at a time on a fresh
# copy of a kernel-written image: link count, nbytes, directory size,
# unknown flags, a bad mode, a generation and a transid from the future.  Each repair
# changes exactly the damaged field back (the plan of --dry-run matches),
# ghee check, btrfs check 6.2 and 6.19 are clean afterwards, and a second
# repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# damage CODE FIELD_OFF WIDTH INO EDIT_OP VALUE FIELD: damage, repair, and
# expect the field back at its original value
damage()
{
	local code=$1 off=$2 width=$3 ino=$4 op=$5 value=$6 field=$7 orig bad

	IMG=$(fs_base_image) || exit
	orig=$(fs_item_field 5 "$ino" 1 0 "$off" "$width")
	fs_edit "$op" 5 "$ino" 1 0 "$off" "$width" "$value"
	bad=$(fs_item_field 5 "$ino" 1 0 "$off" "$width")
	expect_fs_codes "$IMG" "$code"
	expect_plan_matches "$IMG"
	expect_repaired "$IMG"
	expect_change "$TEST_TMP/repair.json" \
		"$code | change root 5 ($ino INODE_ITEM 0) $field: $bad -> $orig"
	[ "$(fs_item_field 5 "$ino" 1 0 "$off" "$width")" = "$orig" ] ||
		fail "$field of inode $ino is not back to $orig"
	[ "$(wc -l < "$TEST_TMP/changes")" -eq 1 ] ||
		{ cat "$TEST_TMP/changes" >&2; fail "$code: more than the one change"; }
	expect_second_repair_noop "$IMG"
}

damage INODE_NLINK 40 4 "$FS_INO_TWO" set-item 2 nlink
damage INODE_NBYTES 24 8 "$FS_INO_BIG" add-item 4096 nbytes
damage DIR_ISIZE 16 8 "$FS_INO_DIR" add-item 2 size
damage INODE_FLAGS_INVALID 64 8 "$FS_INO_BIG" set-item 0x200000000 flags
# a bit beyond the file type: the type comes back from the dir index
damage INODE_MODE_INVALID 52 4 "$FS_INO_TWO" add-item 0x40000000 mode

# a transid from the future becomes the last committed generation
IMG=$(fs_base_image) || exit
gen=$(python3 -c 'import struct,sys; f=open(sys.argv[1],"rb"); f.seek(65536+72); print(struct.unpack("<Q", f.read(8))[0])' "$IMG")
orig=$(fs_item_field 5 "$FS_INO_INLINE" 1 0 8 8)
fs_edit add-item 5 "$FS_INO_INLINE" 1 0 8 8 1000000
expect_fs_codes "$IMG" INODE_GENERATION_INVALID
expect_plan_matches "$IMG"
expect_repaired "$IMG"
expect_change "$TEST_TMP/repair.json" \
	"INODE_GENERATION_INVALID | change root 5 ($FS_INO_INLINE INODE_ITEM 0) transid: $((orig + 1000000)) -> $gen"
expect_second_repair_noop "$IMG"
