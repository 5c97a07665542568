#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --init-csum-tree does not bless damaged data: on a DUP data image whose
# first copy of one sector is damaged, the first copy no longer matches the
# old checksum but the second does, so the old checksum is kept (the check
# afterwards still reports the bad first copy, and the kernel reads the
# file through the good one).  With both copies damaged no copy matches:
# the checksum is recomputed from the first copy.  A csum tree with an
# unreadable middle leaf: the sums after it are still reused.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/rebuild-lib.sh"
need_loop
need_kernel_btrfs
need_progs python3 mkfs.btrfs

img=$TEST_TMP/dup.img
truncate -s 300M "$img"
mkfs.btrfs -q -f -d dup -m dup -R ^free-space-tree "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$TEST_TMP/mnt"
head -c 65536 /dev/urandom > "$TEST_TMP/mnt/f"
(cd "$TEST_TMP/mnt" && sha256sum f) > "$REBUILD_SUMS"
umount_image "$TEST_TMP/mnt"
"$GHEE" check --check-data-csum "$img" > /dev/null 2>&1 || fail "the new image is not clean"
csum_map "$img" > "$TEST_TMP/before.map"
read -r logical _ < "$TEST_TMP/before.map"
[ -n "$logical" ] || fail "no checksums"

# physical offsets of both copies of the DUP data chunk holding LOGICAL
read -r p0 p1 < <("$GHEE" dump-tree -t chunk "$img" | python3 -c '
import re, sys
want = int(sys.argv[1])
start = length = None; data = False; stripes = []
def done():
    if data and start is not None and start <= want < start + length and len(stripes) == 2:
        print(stripes[0] + want - start, stripes[1] + want - start); sys.exit(0)
for line in sys.stdin:
    m = re.search(r"CHUNK_ITEM (\d+)\)", line)
    if m:
        done(); start = int(m.group(1)); stripes = []; data = False; continue
    m = re.search(r"length (\d+) .*type (\S+)", line)
    if m:
        length = int(m.group(1)); data = m.group(2).startswith("DATA"); continue
    m = re.search(r"stripe \d+ devid \d+ offset (\d+)", line)
    if m:
        stripes.append(int(m.group(1)))
done()
sys.exit(1)' "$logical") || fail "no DUP data chunk for $logical"

damage()
{
	printf '\xa5' | dd of="$img" bs=1 seek=$(($1 + 100)) conv=notrunc 2>/dev/null
}

# rebuild IMG: run it and check the report's counts
rebuild_expect()
{
	"$GHEE" check --repair --init-csum-tree "$img" > "$TEST_TMP/rebuild.out" 2>&1
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/rebuild.out" >&2; fail "the rebuild crashed"; }
	[ $rc -eq "$CHECK_CLEAN" ] || { cat "$TEST_TMP/rebuild.out" >&2; fail "rebuild: status $rc"; }
	grep -q "$1" "$TEST_TMP/rebuild.out" || { cat "$TEST_TMP/rebuild.out" >&2; fail "expected: $1"; }
}

damage "$p0"
rebuild_expect " 0 recomputed (old sum wrong on every copy), 1 kept (first copy damaged)"
csum_map "$img" > "$TEST_TMP/after.map"
diff "$TEST_TMP/before.map" "$TEST_TMP/after.map" >&2 || fail "the old checksum was not kept"
"$GHEE" check --check-data-csum "$img" > "$TEST_TMP/dc.out" 2>&1
grep -q "DATA_CSUM_MISMATCH" "$TEST_TMP/dc.out" || { cat "$TEST_TMP/dc.out" >&2; fail "the damaged first copy is no longer seen"; }
expect_all_clean "$img"
mount_image "$img" "$TEST_TMP/mnt" ro
(cd "$TEST_TMP/mnt" && sha256sum --quiet -c "$REBUILD_SUMS") || { umount_image "$TEST_TMP/mnt"; fail "the file does not read back"; }
umount_image "$TEST_TMP/mnt"

# (the kernel's read repaired the first copy: damage both, alike)
damage "$p0"
damage "$p1"
rebuild_expect " 1 recomputed (old sum wrong on every copy), 0 kept"
"$GHEE" check --check-data-csum "$img" > /dev/null 2>&1 ||
	fail "with both copies alike again, the recomputed checksum should match them"

# a csum tree of several leaves (4 KiB nodes) with a middle leaf
# unreadable: the sums of the leaves after it are still taken as before
img=$TEST_TMP/multi.img
truncate -s 300M "$img"
mkfs.btrfs -q -f -n 4096 -R ^free-space-tree "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$TEST_TMP/mnt"
for i in 1 2 3 4; do
	head -c 4M /dev/urandom > "$TEST_TMP/mnt/f$i" || fail "write failed"
done
umount_image "$TEST_TMP/mnt"
csum_map "$img" > "$TEST_TMP/before.map"
leaves=$("$GHEE" dump-tree -t csum "$img" | awk '/^leaf [0-9]+ items/ { print $2 }')
[ "$(echo "$leaves" | wc -l)" -ge 3 ] || fail "the csum tree has fewer than 3 leaves"
python3 "$EDIT" "$img" break-block "$(echo "$leaves" | sed -n 2p)" || fail "edit failed"
"$GHEE" check --repair --init-csum-tree "$img" > "$TEST_TMP/rebuild.out" 2>&1
rc=$?
[ $rc -eq "$CHECK_CORRECTED" ] || { cat "$TEST_TMP/rebuild.out" >&2; fail "rebuild: status $rc"; }
grep -q "1 unreadable$" "$TEST_TMP/rebuild.out" || { cat "$TEST_TMP/rebuild.out" >&2; fail "the unreadable leaf is not reported"; }
python3 - "$TEST_TMP/rebuild.out" <<'PY' || fail "the leaves after the unreadable one were not used"
import re, sys
m = re.search(r"(\d+) as before, (\d+) added", open(sys.argv[1]).read())
same, added = int(m.group(1)), int(m.group(2))
# the first leaf alone holds well under half of the sums
sys.exit(0 if added and same > added else 1)
PY
csum_map "$img" > "$TEST_TMP/after.map"
diff "$TEST_TMP/before.map" "$TEST_TMP/after.map" >&2 || fail "the rebuilt checksums differ"
"$GHEE" check --check-data-csum "$img" > /dev/null 2>&1 || fail "data checksums wrong after the rebuild"
expect_all_clean "$img"
