#!/bin/bash
# How --rootdir reads file data: a read that asks one byte past the size
# and comes back short has seen end of file (no statx afterwards), also
# for the --compress pieces and the first piece the writer compressed to
# decide.  Files whose data ends
# exactly at a sector, a 128 KiB piece or a read buffer, next to ones
# that end inside them, with and without holes, compressible or not,
# copied plain and with zstd on one and two threads: every copy checks
# clean and equals the source, the thread count changes no byte.  A file
# that reads shorter than its size (a 4 KiB sysfs attribute bind-mounted
# in the tree) is "changed size while it was copied" in every mode, with
# and without the workers, and nothing is left that btrfs check accepts.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_progs python3 sha256sum
"$GHEE" mkfs --help | grep -q -- --compress || skip "this ghee has no --compress"

src=$TEST_TMP/src
python3 - "$src" <<'PY' || fail "cannot generate the tree"
import os, random, sys
top = sys.argv[1]
os.makedirs(top)
r = random.Random(96)
def text(n):
    words = [b"ghee", b"btrfs", b"piece", b"%d" % r.randrange(100)]
    out = bytearray()
    while len(out) < n:
        out += r.choice(words) + b" "
    return bytes(out[:n])
K = 1024
sizes = [1, 2047, 2048, 2049, 4095, 4096, 4097, 8192, 128 * K - 1, 128 * K,
         128 * K + 1, 256 * K, 256 * K + 4096, 1024 * K, 8 * 1024 * K,
         8 * 1024 * K + 1, 9 * 1024 * K]
for n in sizes:
    with open(f"{top}/text-{n}", "wb") as f:
        f.write(text(n))
    with open(f"{top}/rand-{n}", "wb") as f:
        f.write(os.urandom(n))
# data ending at the size after a hole, and a hole at the end
with open(f"{top}/hole-then-end", "wb") as f:
    f.seek(300 * K)
    f.write(text(128 * K))
with open(f"{top}/end-in-hole", "wb") as f:
    f.write(text(200 * K))
    f.truncate(600 * K)
for i in range(200):
    with open(f"{top}/small-{i:03d}", "wb") as f:
        f.write(text(r.randrange(1, 6000)))
PY

img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"
UUID=0c4f2a96-8d1e-4b7a-9f3c-5e6d7a8b9c0d
export SOURCE_DATE_EPOCH=1650000000

# copy NAME THREADS MKFS-ARGS...: mkfs, the checks, the copy equals the source
copy()
{
	local name=$1 threads=$2

	shift 2
	new_image "$img.$name" 256M
	GHEE_MKFS_THREADS=$threads "$GHEE" mkfs -q -f -U "$UUID" "$@" --rootdir "$src" "$img.$name" ||
		fail "mkfs ($name) failed"
	check_all "$img.$name"
	mount_image "$img.$name" "$mnt" ro
	compare_tree "$src" "$mnt" --clamp-time "$SOURCE_DATE_EPOCH"
	umount_image "$mnt"
}
copy plain 1
copy zstd1 1 --compress zstd
copy zstd2 2 --compress zstd
[ "$(sha256sum < "$img.zstd1")" = "$(sha256sum < "$img.zstd2")" ] ||
	fail "--compress zstd on 1 and 2 threads made different images"
rm -f "$img".*

# a file that reads short: a sysfs attribute (4096 bytes by stat)
sysattr=/sys/kernel/mm/transparent_hugepage/enabled
[ -f "$sysattr" ] || sysattr=$(find /sys/kernel -maxdepth 2 -type f -size 4k -readable 2>/dev/null | head -n 1)
if [ -z "$sysattr" ] || [ "$(stat -c %s "$sysattr")" != 4096 ]; then
	echo "no 4 KiB sysfs attribute: the short-read part is left out"
	exit 0
fi
chg=$TEST_TMP/chg
mkdir -p "$chg"
cp "$src"/text-* "$chg"/
touch "$chg/text-5000-short"
mount --bind "$sysattr" "$chg/text-5000-short" || fail "bind mount of $sysattr failed"
at_exit "umount '$chg/text-5000-short' 2>/dev/null"
for mode in plain "zstd 1" "zstd 2"; do
	set -- $mode
	args=()
	[ "$1" = zstd ] && args=(--compress zstd)
	new_image "$img" 256M
	mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
	out=$(GHEE_MKFS_THREADS=${2:-1} "$GHEE" mkfs -q -f "${args[@]}" --rootdir "$chg" "$img" 2>&1)
	rc=$?
	[ "$rc" = 1 ] || { echo "$out" >&2; fail "$mode: exit status $rc, expected 1"; }
	echo "$out" | grep -q "$chg/text-5000-short changed size while it was copied" ||
		{ echo "$out" >&2; fail "$mode: no 'changed size' message"; }
	btrfs check --readonly "$img" >/dev/null 2>&1 &&
		fail "$mode: mkfs failed, but btrfs check accepts what is left"
done
umount "$chg/text-5000-short"
exit 0
