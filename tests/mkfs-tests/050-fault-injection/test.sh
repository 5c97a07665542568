#!/bin/bash
# Crash safety of mkfs: a build with --enable-fault-injection fails the Nth
# device write (GHEE_FAIL_WRITE_AT=N) or flush (GHEE_FAIL_FLUSH_AT=N), for
# every N, during a mkfs over an image that already held a filesystem.
# Whatever N, the result is never a filesystem that mounts or checks as
# valid but differs from a completed mkfs: either mkfs succeeded and the
# image equals a completed one, or mkfs failed (exit 1) and neither the
# kernel nor btrfs check accepts what is left (not even the old one).
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_progs make gcc

fault_injection_build

base=$TEST_TMP/base.img
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"
UUID=5c9a1e37-3e0b-4d0e-9f5e-6c1b8f0e2a41

# the old filesystem, with some data
new_image "$base" 512M
mkfs.btrfs -q -f "$base" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
mount -t btrfs -o loop "$base" "$mnt" || fail "cannot mount the old filesystem"
cp -a "$TOP/cmds" "$mnt/" && sync
umount "$mnt" || fail "umount failed"

# the completed mkfs this must match
cp --sparse=always "$base" "$img"
"$FGHEE" mkfs -q -f -U "$UUID" "$img" || fail "mkfs without faults failed"
check_image "$img"
dump_masked "$img" > reference.dump

# mounts IMG: the kernel accepts IMG (read only)
# shellcheck disable=SC2317 # called by run_faulty
mounts()
{
	mount -t btrfs -o loop,ro "$1" "$mnt" 2>/dev/null || return 1
	umount "$mnt"
	return 0
}

# run_faulty VAR N: 0 when mkfs succeeded, 1 when it failed properly
# shellcheck disable=SC2317 # called by fault_sweep
run_faulty()
{
	local var=$1 n=$2 rc

	cp --sparse=always "$base" "$img"
	env "$var=$n" "$FGHEE" mkfs -q -f -U "$UUID" "$img" > out.log 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		check_image "$img"
		dump_masked "$img" > got.dump
		compare_outputs reference.dump got.dump ||
			fail "$var=$n: mkfs succeeded but made a different filesystem"
		return 0
	fi
	[ $rc -eq 1 ] || { cat out.log >&2; fail "$var=$n: exit status $rc, expected 1"; }
	grep -q ERROR out.log || fail "$var=$n: failure without an error message"
	if btrfs check --readonly "$img" >/dev/null 2>&1; then
		fail "$var=$n: mkfs failed but btrfs check accepts the image"
	fi
	if mounts "$img"; then
		fail "$var=$n: mkfs failed but the kernel mounts the image"
	fi
	return 1
}

# sweep VAR: N = 1, 2, ... until mkfs succeeds three times in a row
sweep()
{
	FAULT_DONE=3 fault_sweep "$1" 2000 run_faulty
	echo "$1: $FAULTS failing points, every one left no valid filesystem"
}

sweep GHEE_FAIL_WRITE_AT
sweep GHEE_FAIL_FLUSH_AT
exit 0
