#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --clear-log: an image copied right after an fsync carries a log tree.
# A repair refuses it (the kernel would replay the log over the repair)
# and names --clear-log; --clear-log asks first (no terminal: cancelled,
# exit 32 | 4), and with -y drops the log, repairs the rest, and every
# checker is clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_root
need_loop
need_kernel_btrfs
need_progs mkfs.btrfs python3

img=$TEST_TMP/fs.img mnt=$TEST_TMP/mnt log=$TEST_TMP/log.img
truncate -s 256M "$img"
mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$mnt"
sync
python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY)
os.write(fd, b"x" * 10000); os.fsync(fd); os.close(fd)' "$mnt/f" || fail "fsync failed"
cp --sparse=always "$img" "$log"
umount_image "$mnt"
[ "$(python3 "$TOP/tests/fsck-tests/lib/btrfs-edit.py" "$log" get-super 96 8)" != 0 ] ||
	skip "the copy has no log tree"
cp --sparse=always "$log" "$TEST_TMP/orig.img"

"$GHEE" check --repair "$log" > /dev/null 2> "$TEST_TMP/refused.err"
rc=$?
[ $((rc & CHECK_CANNOT)) -ne 0 ] || fail "a repair over a log tree did not refuse (status $rc)"
grep -q -- "--clear-log" "$TEST_TMP/refused.err" || { cat "$TEST_TMP/refused.err" >&2; fail "the refusal does not name --clear-log"; }
cmp -s "$log" "$TEST_TMP/orig.img" || fail "the refused repair wrote"

run_expect_status $((CHECK_CANCELLED | CHECK_ERRORS)) "$GHEE" check --repair --clear-log "$log" < /dev/null > /dev/null 2>&1
cmp -s "$log" "$TEST_TMP/orig.img" || fail "the cancelled repair wrote"

"$GHEE" check --repair --clear-log -y "$log" > "$TEST_TMP/cleared.out"
rc=$?
[ $((rc & CHECK_ERRORS)) -eq 0 ] || { cat "$TEST_TMP/cleared.out" >&2; fail "problems left (status $rc)"; }
grep -q "dropped the log tree" "$TEST_TMP/cleared.out" || fail "the log drop is not reported"
[ "$(python3 "$TOP/tests/fsck-tests/lib/btrfs-edit.py" "$log" get-super 96 8)" = 0 ] || fail "log_root is not 0"
expect_all_clean "$log"
