#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FREE_SPACE_ORPHAN, the most common finding in the wild: mkfs.btrfs before
# 6.16 leaves the free space tree entries of its temporary chunks on every
# image.  The repair deletes exactly those items (the plan of --dry-run is
# what the repair does), every checker is clean afterwards, the kernel
# mounts and writes the result, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs mkfs.btrfs python3

img=$TEST_TMP/fs.img
truncate -s 256M "$img"
mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
"$GHEE" check --format json "$img" > "$TEST_TMP/before.json"
[ $? -eq "$CHECK_ERRORS" ] || skip "this mkfs.btrfs leaves no orphan free space entries"
orphans=$(grep -o '"FREE_SPACE_ORPHAN"' "$TEST_TMP/before.json" | wc -l)
[ "$orphans" -ge 1 ] || skip "no FREE_SPACE_ORPHAN finding"

# the dry run writes nothing and plans what the repair does
expect_plan_matches "$img"
grep -q '"status": *"planned"' "$TEST_TMP/plan.json" || fail "no planned action in the dry run"
"$GHEE" check --repair --dry-run "$img" > "$TEST_TMP/plan.txt"
grep -q "would fix \[FREE_SPACE_ORPHAN\]" "$TEST_TMP/plan.txt" || fail "the text plan names no fix"
grep -q "^    delete free space tree item (" "$TEST_TMP/plan.txt" || fail "the text plan names no item"

# the repair: every change deletes an orphan item (an orphan info item and
# its entries), and nothing else; one commit
expect_repaired "$img"
grep -q '"transactions": *1,' "$TEST_TMP/repair.json" || fail "more than one commit"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
[ -s "$TEST_TMP/changes" ] || fail "no change reported"
grep -v '^FREE_SPACE_ORPHAN | delete free space tree item (' "$TEST_TMP/changes" &&
	fail "changes other than orphan deletions"
python3 - "$TEST_TMP/repair.json" <<'PY' || fail "the summary does not count the fixes"
import json, sys
doc = json.load(open(sys.argv[1]))
n = sum(1 for f in doc["fixes"] if f["status"] == "fixed")
sys.exit(0 if doc["fixed"].get("FREE_SPACE_ORPHAN") == n and n >= 1 else 1)
PY

expect_second_repair_noop "$img"

# the kernel takes it: mount, write, unmount, still clean
if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems; then
	mnt=$TEST_TMP/mnt
	mount_image "$img" "$mnt"
	head -c 1000000 /dev/urandom > "$mnt/file" || fail "cannot write to the repaired filesystem"
	mkdir "$mnt/dir" && echo x > "$mnt/dir/y" || fail "cannot create files"
	umount_image "$mnt"
	"$GHEE" check "$img" > "$TEST_TMP/after-mount.out" ||
		{ cat "$TEST_TMP/after-mount.out" >&2; fail "not clean after the kernel wrote to it"; }
fi

# text report: fixed lines, a summary, the final verdict
truncate -s 0 "$img"; truncate -s 256M "$img"
mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
run_expect_status "$CHECK_CORRECTED" "$GHEE" check --repair "$img" > "$TEST_TMP/repair.txt"
grep -q "^  fixed \[FREE_SPACE_ORPHAN\]" "$TEST_TMP/repair.txt" || fail "no fixed line"
grep -q "^  FREE_SPACE_ORPHAN  *[0-9]* fixed" "$TEST_TMP/repair.txt" || fail "no summary line"
grep -q "^no error found after repair" "$TEST_TMP/repair.txt" || fail "no final verdict"
# preen fixes this class too
truncate -s 0 "$img"; truncate -s 256M "$img"
mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
run_expect_status "$CHECK_CORRECTED" "$GHEE" check -p "$img" > /dev/null
expect_all_clean "$img"
