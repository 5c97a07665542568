#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the free space tree and the superblock mirrors: a free space
# extent shortened (FREE_SPACE_MISMATCH: the group's entries are rebuilt),
# a free space info moved off its group (FREE_SPACE_ORPHAN and
# FREE_SPACE_INFO_INVALID), a damaged superblock mirror (rewritten from
# the primary); each with its exact changes, clean for every checker, and
# a second repair writes nothing.  Last --clear-space-cache v2, which
# rebuilds the whole tree of a clean filesystem (exit 0: nothing was wrong).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
read -r start type len < <(python3 "$EDIT" "$img" first 10 199) || fail "no free space extent"
[ "$len" -gt 4096 ] || skip "first free space extent is a single sector"
python3 "$EDIT" "$img" set-key 10 "$start" 199 "$len" "$start" 199 $((len - 4096)) || fail "edit failed"
expect_codes "$img" FREE_SPACE_MISMATCH
expect_plan_matches "$img"
expect_repaired "$img"
read -r bg _ < <(python3 "$EDIT" "$img" first 10 198) || fail "no free space info"
expect_changes "FREE_SPACE_MISMATCH | rebuild free space tree entries of block group $bg"
[ "$(python3 "$EDIT" "$img" first 10 199)" = "$start 199 $len" ] || fail "the free space extent is not back"
expect_second_repair_noop "$img"

img=$(fsck_base_image) || exit
read -r start type len < <(python3 "$EDIT" "$img" first 10 198) || fail "no free space info"
python3 "$EDIT" "$img" set-key 10 "$start" 198 "$len" $((start - 4096)) 198 "$len" || fail "edit failed"
expect_codes "$img" FREE_SPACE_ORPHAN FREE_SPACE_INFO_INVALID
expect_repaired "$img"
expect_changes "FREE_SPACE_INFO_INVALID | rebuild free space tree entries of block group $start" \
	"FREE_SPACE_ORPHAN | delete free space tree item ($((start - 4096)) FREE_SPACE_INFO $len)"
[ "$(python3 "$EDIT" "$img" first 10 198)" = "$start 198 $len" ] || fail "the free space info is not back"
expect_second_repair_noop "$img"

img=$(fsck_base_image) || exit
cp --sparse=always "$img" "$TEST_TMP/good.img"
printf 'X' | dd of="$img" bs=1 seek=$((67108864 + 299)) conv=notrunc status=none
expect_codes "$img" SUPER_MIRROR_BAD
expect_exact_repair "$img" "SUPER_MIRROR_BAD | rebuild superblock mirror 1 at 67108864 from the primary"
expect_mirror_is_primary "$img"

img=$TEST_TMP/good.img
run_expect_status "$CHECK_CLEAN" "$GHEE" check --clear-space-cache v2 "$img" > "$TEST_TMP/clear.out"
grep -q "rebuilt the free space tree of every block group" "$TEST_TMP/clear.out" ||
	{ cat "$TEST_TMP/clear.out" >&2; fail "no rebuild reported"; }
expect_all_clean "$img"
