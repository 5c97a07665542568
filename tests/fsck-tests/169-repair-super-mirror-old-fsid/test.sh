#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SUPER_MIRROR_OLD_FSID: an fsid change (btrfstune -m, and -M with a given
# uuid) that did not reach superblock mirror 1: the mirror is put back as
# it was before the change (the old fsid, the metadata uuid the primary
# still names).  A warning; --repair rewrites the mirror from the primary,
# what the kernel's next commit would do (the dry run plans exactly that),
# every checker is clean, the warning gone and a second repair writes
# nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 btrfstune

M1=67108864

base=$(fsck_base_image) || exit

for how in "-m" "-M $(python3 -c 'import uuid; print(uuid.uuid4())')"; do
	img=$TEST_TMP/fs.img
	cp --sparse=always "$base" "$img"
	dd if="$img" of="$TEST_TMP/mirror1" bs=4096 skip=$((M1 / 4096)) count=1 status=none
	# shellcheck disable=SC2086 # option and its argument
	btrfstune -f $how "$img" > "$TEST_TMP/tune.log" 2>&1 < /dev/null ||
		{ cat "$TEST_TMP/tune.log" >&2; fail "btrfstune $how failed"; }
	dd if="$TEST_TMP/mirror1" of="$img" bs=4096 seek=$((M1 / 4096)) conv=notrunc status=none
	gen=$("$GHEE" dump-super "$img" | sed -n 's/^generation[[:space:]]*//p')
	old=$("$GHEE" dump-super -s 1 "$img" | sed -n 's/^generation[[:space:]]*//p')

	"$GHEE" check "$img" > "$TEST_TMP/check.out" 2>&1
	rc=$?
	[ $rc -eq "$CHECK_CLEAN" ] || { cat "$TEST_TMP/check.out" >&2; fail "$how: an old-fsid mirror is not an error (status $rc)"; }
	grep -qF "WARNING: [SUPER_MIRROR_OLD_FSID] superblock mirror 1 at $M1: another fsid than the primary's but the same metadata uuid: an fsid change (btrfstune -m/-M) did not reach every mirror (generation $old, primary $gen)" "$TEST_TMP/check.out" ||
		{ cat "$TEST_TMP/check.out" >&2; fail "$how: no SUPER_MIRROR_OLD_FSID warning"; }
	btrfs check --readonly "$img" > /dev/null 2>&1 || fail "$how: btrfs check 6.2 does not accept the image"

	expect_plan_matches "$img"
	expect_repaired "$img"
	repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
	echo "SUPER_MIRROR_OLD_FSID | rebuild superblock mirror 1 at $M1 from the primary" > "$TEST_TMP/expected"
	compare_outputs "$TEST_TMP/expected" "$TEST_TMP/changes" || fail "$how: not exactly the one change"
	expect_mirror_is_primary "$img"
	"$GHEE" check "$img" > "$TEST_TMP/after.out" 2>&1
	grep -q "WARNING" "$TEST_TMP/after.out" && { cat "$TEST_TMP/after.out" >&2; fail "$how: a warning remains after the repair"; }
	expect_second_repair_noop "$img"
	echo "ok btrfstune $how"
done
exit 0
