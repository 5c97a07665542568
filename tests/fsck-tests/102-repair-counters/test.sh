#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the counters: a device item's bytes_used, a block group's used,
# the superblock's bytes_used and total_bytes, each damaged alone on a
# fresh copy of a kernel-written image.  The repair writes the value back
# (the plan of --dry-run matches), every checker is clean afterwards and a
# second repair writes nothing; -p (preen) fixes these classes as well.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

check_fixed()
{
	local img=$1 code=$2 line=$3

	finding_codes "$img" > "$TEST_TMP/codes.before"
	grep -qx "$code" "$TEST_TMP/codes.before" || { cat "$TEST_TMP/codes.before" >&2; fail "$code not found"; }
	expect_plan_matches "$img"
	expect_repaired "$img"
	expect_change "$TEST_TMP/repair.json" "$line"
	expect_second_repair_noop "$img"
}

# device item bytes_used + 1 MiB
img=$(fsck_base_image) || exit
used=$(python3 "$EDIT" "$img" get-item 3 1 216 1 16 8) || fail "read failed"
python3 "$EDIT" "$img" add-item 3 1 216 1 16 8 1048576 || fail "edit failed"
check_fixed "$img" DEV_BYTES_USED \
	"DEV_BYTES_USED | change chunk tree (DEV_ITEMS DEV_ITEM 1) bytes_used: $((used + 1048576)) -> $used"
[ "$(python3 "$EDIT" "$img" get-item 3 1 216 1 16 8)" = "$used" ] || fail "device item not restored"

# block group used + 4096
img=$(fsck_base_image) || exit
read -r start type len < <(python3 "$EDIT" "$img" first 2 192) || fail "no block group item"
used=$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 0 8) || fail "read failed"
python3 "$EDIT" "$img" add-item 2 "$start" 192 "$len" 0 8 4096 || fail "edit failed"
check_fixed "$img" BLOCK_GROUP_USED \
	"BLOCK_GROUP_USED | change block group item ($start BLOCK_GROUP_ITEM $len) used: $((used + 4096)) -> $used"

# superblock bytes_used + 4096 (preen)
img=$(fsck_base_image) || exit
used=$(python3 "$EDIT" "$img" get-super 120 8)
python3 "$EDIT" "$img" add-super 120 8 4096 || fail "edit failed"
check_fixed "$img" SUPER_BYTES_USED \
	"SUPER_BYTES_USED | change superblock bytes_used: $((used + 4096)) -> $used"

img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" add-super 120 8 4096 || fail "edit failed"
run_expect_status "$CHECK_CORRECTED" "$GHEE" check -p "$img" > "$TEST_TMP/preen.out"
expect_all_clean "$img"

# superblock total_bytes - 1 MiB (less than the devices hold)
img=$(fsck_base_image) || exit
total=$(python3 "$EDIT" "$img" get-super 112 8)
python3 "$EDIT" "$img" add-super 112 8 -1048576 || fail "edit failed"
check_fixed "$img" SUPER_TOTAL_BYTES \
	"SUPER_TOTAL_BYTES | change superblock total_bytes: $((total - 1048576)) -> $total"
