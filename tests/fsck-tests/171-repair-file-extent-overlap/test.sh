#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FILE_EXTENT_OVERLAP: a file written as two 8 KiB extents of the same
# byte pattern; the second item's key moves from 8192 to 4096, so it
# overlaps the first by 4 KiB (and its data back reference no longer
# matches).  Both extents hold the same bytes over the overlap, so
# --repair trims the later item to start at 8192 (4 KiB further into its
# data); the back reference and the inode's nbytes follow (the extent
# tree repair moves the reference to where the item now points).  The
# dry run plans exactly that, every checker is clean, the file reads what
# it read before and a second repair writes nothing.  With different bytes over
# the overlap the repair refuses (which extent holds the file's bytes is
# recorded nowhere) and the overlap stays.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_verdict_tools
need_progs python3

EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py
mnt=$TEST_TMP/mnt
INO=257

# build IMG PATTERN2: /f is 8 KiB of 'A' then 8 KiB of PATTERN2, two extents
build()
{
	kernel_mkfs "$1" 200M
	mount_image "$1" "$mnt"
	python3 - "$mnt/f" "$2" <<'PY' || { umount_image "$mnt"; fail "cannot write the file"; }
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"A" * 8192); os.fsync(fd)
os.write(fd, sys.argv[2].encode() * 8192); os.fsync(fd)
os.close(fd)
PY
	umount_image "$mnt" || fail "umount failed"
	[ "$(python3 "$EDIT" "$1" get-item 5 $INO 108 8192 45 8)" = 8192 ] ||
		fail "the file is not two 8 KiB extents"
	python3 "$EDIT" "$1" set-key 5 $INO 108 8192 $INO 108 4096 || fail "edit failed"
}

img=$TEST_TMP/same.img
build "$img" A
"$GHEE" check "$img" > "$TEST_TMP/check.out" 2>&1
grep -qF "[FILE_EXTENT_OVERLAP] root 5 inode $INO: file extent at 4096 overlaps the previous one ending at 8192" "$TEST_TMP/check.out" ||
	{ cat "$TEST_TMP/check.out" >&2; fail "no FILE_EXTENT_OVERLAP"; }
btrfs check --readonly "$img" 2>&1 | grep -q "file extent overlap" || fail "btrfs check 6.2 does not see the overlap"
expect_plan_matches "$img"
expect_repaired "$img"
expect_change "$TEST_TMP/repair.json" "FILE_EXTENT_OVERLAP | change root 5 inode $INO file extent start (same data over the 4096 bytes of overlap): 4096 -> 8192"
python3 - "$TEST_TMP/repair.json" <<'PY' || fail "not the expected fixes"
import json, sys
doc = json.load(open(sys.argv[1]))
codes = sorted(set(it["code"] for it in doc["fixes"] if it["status"] == "fixed"))
want = ["EXTENT_BACKREF_MISSING", "EXTENT_BACKREF_UNUSED", "FILE_EXTENT_OVERLAP", "INODE_NBYTES"]
extra = [c for c in codes if c not in want]
if codes != want:
    print("fixed:", codes, file=sys.stderr); sys.exit(1)
PY
[ "$(python3 "$EDIT" "$img" get-item 5 $INO 108 8192 37 8)" = 4096 ] || fail "the trimmed item's data offset is not 4096"
[ "$(python3 "$EDIT" "$img" get-item 5 $INO 108 8192 45 8)" = 4096 ] || fail "the trimmed item's length is not 4096"
expect_second_repair_noop "$img"
mount_image "$img" "$mnt" ro
head -c 12288 "$mnt/f" | cmp -s - <(head -c 12288 /dev/zero | tr '\0' A) ||
	{ umount_image "$mnt"; fail "the file does not read its bytes"; }
umount_image "$mnt" || fail "umount failed"
echo "ok same data: trimmed"

# different bytes over the overlap: refused, nothing written
img=$TEST_TMP/differ.img
build "$img" B
"$GHEE" check --repair "$img" > "$TEST_TMP/differ.out" 2>&1
grep -qF "could not fix [FILE_EXTENT_OVERLAP] root 5 inode $INO: file extent at 4096 overlaps the previous one ending at 8192" "$TEST_TMP/differ.out" ||
	{ cat "$TEST_TMP/differ.out" >&2; fail "different data: not refused"; }
"$GHEE" check "$img" 2>&1 | grep -qF "[FILE_EXTENT_OVERLAP]" || fail "different data: the overlap is gone"
echo "ok different data: refused"
exit 0
