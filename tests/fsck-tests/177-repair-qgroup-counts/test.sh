#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QGROUP_COUNTS: a kernel-written filesystem with quotas on (a subvolume,
# files in both, counts rescanned) gets one qgroup info field wrong at a
# time: the subvolume's referenced bytes 4 KiB more, then the top level's
# exclusive bytes 4 KiB less.  The repair writes the counts the trees give
# back, and only the field that was wrong: the one change (the plan of
# --dry-run matches); ghee check, btrfs check 6.2 and 6.19 are clean, the
# kernel shows the counts of before the damage and a second repair writes
# nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_verdict_tools
need_progs python3

EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py
mnt=$TEST_TMP/mnt
base=$TEST_TMP/quota.img

# qgroups IMG OUT: the kernel's qgroup counts, in bytes
qgroups()
{
	mount_image "$1" "$mnt"
	btrfs qgroup show --raw "$mnt" > "$2" 2>&1 || { umount_image "$mnt"; cat "$2" >&2; fail "qgroup show failed"; }
	umount_image "$mnt"
}

kernel_quota_image "$base"
qgroups "$base" "$TEST_TMP/qgroups.before"

# qgroup info item: generation 0, referenced 8, exclusive 24
for damage in "256 8 4096 referenced" "5 24 -4096 exclusive"; do
	set -- $damage
	id=$1 field=$2 delta=$3 what=$4
	img=$TEST_TMP/$what.img
	cp --sparse=always "$base" "$img" || fail "cannot copy the image"
	old=$(python3 "$EDIT" "$img" get-item 8 0 242 "$id" "$field" 8) || fail "no qgroup 0/$id"
	python3 "$EDIT" "$img" add-item 8 0 242 "$id" "$field" 8 "$delta" || fail "edit failed"
	"$GHEE" check -q "$img" > "$TEST_TMP/check.out" 2>&1
	[ "$(grep -c '^ERROR: ' "$TEST_TMP/check.out")" = 1 ] &&
		grep -q "^ERROR: \[QGROUP_COUNTS\] qgroup 0/$id: counts are different: " "$TEST_TMP/check.out" ||
		{ cat "$TEST_TMP/check.out" >&2; fail "$what: not the one QGROUP_COUNTS finding"; }
	expect_exact_repair "$img" \
		"QGROUP_COUNTS | change quota tree (0 QGROUP_INFO 0/$id) $what: $((old + delta)) -> $old"
	qgroups "$img" "$TEST_TMP/qgroups.after"
	compare_outputs "$TEST_TMP/qgroups.before" "$TEST_TMP/qgroups.after" ||
		fail "$what: the kernel shows other counts than before the damage"
	echo "ok $what"
done
exit 0
