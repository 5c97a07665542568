#!/bin/bash
# Safety: an existing filesystem or partition table is refused without -f,
# naming what was found; a mounted device is refused even with -f; too small
# a device is refused with the minimum size; a missing image is created only
# with -b; the same device twice and a UUID another btrfs device carries
# are refused.  Failures exit 1.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_root
need_progs
img=$TEST_TMP/img

# expect_fail "MESSAGE PART" ARGS...: exit 1 with the message
expect_fail()
{
	local want=$1

	shift
	run_expect_status 1 "$GHEE" mkfs "$@" 2> err.out
	grep -qF -- "$want" err.out || {
		cat err.out >&2
		fail "no '$want' in the message for: $*"
	}
}

# a missing image: refused without -b, created with it
expect_fail "No such file or directory" "$TEST_TMP/missing.img"
[ -e "$TEST_TMP/missing.img" ] && fail "a missing image was created without -b"
run_check_cmd "$GHEE" mkfs -q -b 300M "$TEST_TMP/new.img"
[ "$(stat -c %s "$TEST_TMP/new.img")" = $((300 << 20)) ] ||
	fail "the created image does not have the -b size"
check_image "$TEST_TMP/new.img"
# -b larger than an existing file
new_image "$img" 200M
expect_fail "is smaller than requested size" -b 1G "$img"

# too small: the minimum of mkfs.btrfs 6.2 for the profiles is named
new_image "$img" 100M
expect_fail "minimum size for each btrfs device is 114294784" "$img"
expect_fail "minimum size for btrfs filesystem is 114294784" -b 50M "$img"
run_check_cmd "$GHEE" mkfs -q -m single "$img"
check_image "$img"
new_image "$img" 10M
expect_fail "minimum size for each btrfs device is 16777216" -M "$img"
new_image "$img" 16M
run_check_cmd "$GHEE" mkfs -q -M "$img"
check_image "$img"

# existing btrfs, ext4, swap and a partition table are named
new_image "$img" 1G
mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
expect_fail "appears to contain an existing filesystem (btrfs)" "$img"
grep -qF "use the -f option to force overwrite" err.out ||
	fail "the refusal does not mention -f"
if command -v mkfs.ext4 >/dev/null; then
	new_image "$img" 1G
	mkfs.ext4 -q -F "$img" || fail "mkfs.ext4 failed"
	expect_fail "appears to contain an existing filesystem (ext4)" "$img"
	run_check_cmd "$GHEE" mkfs -q -f "$img"
	check_image "$img"
	blkid -p -o value -s TYPE "$img" | grep -qx btrfs ||
		fail "blkid does not see btrfs after mkfs -f over ext4"
fi
new_image "$img" 1G
python3 - "$img" <<'PY'
import struct, sys
# an MBR with one Linux partition from sector 2048 to the end
with open(sys.argv[1], "r+b") as f:
    entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048,
                        (1 << 30) // 512 - 2048)
    f.seek(446)
    f.write(entry)
    f.seek(510)
    f.write(b"\x55\xaa")
PY
expect_fail "appears to contain a partition table (dos)" "$img"

# mounted: refused through the image file and the loop device, even with -f
new_image "$img" 1G
mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$TEST_TMP/mnt"
loopdev=${_GHEE_MOUNT_LOOP[$TEST_TMP/mnt]}
expect_fail "is mounted on $TEST_TMP/mnt" -f "$img"
expect_fail "is mounted" -f "$loopdev"
umount_image "$TEST_TMP/mnt"
btrfs check --readonly "$img" >/dev/null 2>&1 ||
	fail "the refused mkfs damaged the mounted filesystem"

# the same device twice, as two names
new_image "$img" 1G
ln -s "$img" "$TEST_TMP/alias"
expect_fail "are the same device" -f -d raid1 -m raid1 "$img" "$TEST_TMP/alias"

# -U: a UUID another btrfs device carries is refused; the target's own is not
uuid=$(cat /proc/sys/kernel/random/uuid)
new_image "$TEST_TMP/other.img" 1G
run_check_cmd "$GHEE" mkfs -q -U "$uuid" "$TEST_TMP/other.img"
otherdev=$(losetup --find --show "$TEST_TMP/other.img") || fail "losetup failed"
at_exit "detach_file '$TEST_TMP/other.img'"
new_image "$img" 1G
expect_fail "non-unique UUID: $uuid" -U "$uuid" "$img"
run_check_cmd "$GHEE" mkfs -q -f -U "$uuid" "$TEST_TMP/other.img"
run_check_cmd "$GHEE" mkfs -q -f -U "$uuid" "$otherdev"
losetup -d "$otherdev"

# discard: a loop device supports it (it punches holes in the file)
new_image "$img" 1G
dd if=/dev/urandom of="$img" bs=1M count=64 seek=512 conv=notrunc status=none
loopdev=$(losetup --find --show "$img") || fail "losetup failed"
at_exit "detach_file '$img'"
run_check_cmd "$GHEE" mkfs -f -v "$loopdev" > v.out
grep -q "Performing full device TRIM $loopdev" v.out ||
	fail "no TRIM message with -v"
[ "$(stat -c %b "$img")" -lt $((64 * 2048)) ] ||
	fail "discard did not free the old data"
run_check_cmd "$GHEE" mkfs -f -v -K "$loopdev" > v.out
grep -q "TRIM" v.out && fail "-K still discards"
check_image "$loopdev"
losetup -d "$loopdev"
exit 0
