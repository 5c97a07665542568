#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee check on a mounted filesystem, through a real loop mount: refused
# (exit 8, a message naming the mount point) when mounted read-write, by
# the image file, by the loop device and by the second device of a
# two-device filesystem (the mount table names only one); when mounted
# read-only, refused without --force, checked with --force and a warning.
# mkfs, which shares the probe, still refuses all of them.  A read-only
# bind mount of the read-write filesystem does not make it read-only.
source "$TOP/tests/common.sh"

need_loop
need_kernel_btrfs
need_progs
need_progs python3

# a space in the mount point: the mount table escapes it (\040)
mnt="$TEST_TMP/mnt point"
truncate -s 256M "$TEST_TMP/a.img" "$TEST_TMP/b.img"
"$GHEE" mkfs -q -d raid1 -m raid1 "$TEST_TMP/a.img" "$TEST_TMP/b.img" ||
	fail "ghee mkfs failed"
run_expect_status $CHECK_CLEAN "$GHEE" check -q "$TEST_TMP/a.img" "$TEST_TMP/b.img"

lb=$(losetup --find --show "$TEST_TMP/b.img") || fail "losetup b.img failed"
at_exit "detach_file '$TEST_TMP/b.img'"
mount_image "$TEST_TMP/a.img" "$mnt" "device=$lb"
la=${_GHEE_MOUNT_LOOP[$mnt]}
echo data > "$mnt/file" || fail "cannot write the mounted filesystem"

# expect_refused STATUS GREP-PATTERN CHECK-ARGS...
expect_refused()
{
	local want=$1 pattern=$2

	shift 2
	run_expect_status "$want" "$GHEE" check "$@" > out 2> err
	cat err
	grep -q "^ERROR: .*$pattern" err || fail "no '$pattern' message from check $*"
	if [[ " $* " == *" --format json "* ]]; then
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["result"] != "cannot-check" or d["exit_code"] != 8 or "mounted" not in d["error"])' out ||
			{ cat out; fail "check $* printed no cannot-check JSON document naming the mount"; }
	else
		[ -s out ] && fail "check $* printed on stdout although it refused"
	fi
	return 0
}

for dev in "$TEST_TMP/a.img" "$la" "$lb" "$TEST_TMP/b.img"; do
	expect_refused $CHECK_CANNOT "is mounted read-write on $mnt" "$dev"
	expect_refused $CHECK_CANNOT "is mounted read-write on $mnt" --force "$dev"
done
grep -q "through $la" <("$GHEE" check "$TEST_TMP/a.img" 2>&1) ||
	fail "the message does not name the loop device"
expect_refused $CHECK_CANNOT "mounted read-write" --noscan --format json "$TEST_TMP/a.img"
run_mustfail_cmd "$GHEE" mkfs -f "$TEST_TMP/b.img" 2> err
grep -q "^ERROR: .*is mounted on $mnt" err || { cat err; fail "mkfs does not name the mount"; }

mkdir -p "$TEST_TMP/bind"
mount --bind -o ro "$mnt" "$TEST_TMP/bind" || fail "bind mount failed"
at_exit "umount '$TEST_TMP/bind' 2>/dev/null"
expect_refused $CHECK_CANNOT "is mounted read-write on" --force "$TEST_TMP/a.img"
umount "$TEST_TMP/bind" || fail "umount of the bind mount failed"

mount -o remount,ro "$mnt" || fail "remount read-only failed"
expect_refused $CHECK_CANNOT "is mounted read-only on $mnt.*: use --force" "$TEST_TMP/a.img"
run_expect_status $CHECK_CLEAN "$GHEE" check --force "$TEST_TMP/a.img" > out 2> err
cat err
grep -q "^WARNING: .*mounted read-only on $mnt" err || fail "no warning with --force"
grep -q "no error found" out || fail "no verdict with --force"
run_expect_status $CHECK_CLEAN "$GHEE" check --force -q "$lb" 2> err
grep -q "^WARNING: " err || fail "no warning for the second device"

umount_image "$mnt"
losetup -d "$lb"
run_expect_status $CHECK_CLEAN "$GHEE" check "$TEST_TMP/a.img" > out 2> err
grep "is mounted" err && { cat err; fail "check warns about an unmounted filesystem"; }
exit 0
