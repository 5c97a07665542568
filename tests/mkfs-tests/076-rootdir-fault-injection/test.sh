#!/bin/bash
# Crash safety of mkfs --rootdir: with the fault-injection build, the Nth
# device write (GHEE_FAIL_WRITE_AT) or flush (GHEE_FAIL_FLUSH_AT) fails,
# for N = 1, 2, ... (every N up to 40, then every 7th; GHEE_LONG=1: every
# N) until mkfs succeeds.  A failed mkfs exits 1 with a message and leaves
# nothing that btrfs check or the kernel accepts (not even the old
# filesystem); a successful one is complete (checks clean).  Also with
# --reflink on a scratch btrfs holding tree and image: the clones are
# device writes too (some failing point is a clone, and says so).
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_progs make gcc

fault_injection_build
"$FGHEE" mkfs --help | grep -q -- --rootdir || fail "the fault-injection build has no --rootdir"

src=$TEST_TMP/src
mkdir -p "$src/dir"
head -c 300000 /dev/urandom > "$src/data"
echo small > "$src/dir/small"
ln -s data "$src/link"
setfattr -n user.x -v y "$src/dir/small"
truncate -s 1M "$src/sparse"
echo tail >> "$src/sparse"

base=$TEST_TMP/base.img
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"
new_image "$base" 256M
mkfs.btrfs -q -f "$base" >/dev/null 2>&1 || fail "mkfs.btrfs failed"

# run_faulty VAR N [MKFS-ARGS...]: mkfs of $src to $img (a copy of $base);
# clones counts the failing points that were clones
# shellcheck disable=SC2317 # called by fault_sweep
run_faulty()
{
	local var=$1 n=$2 rc

	shift 2
	cp --sparse=always "$base" "$img"
	env "$var=$n" "$FGHEE" mkfs -q -f "$@" -r "$src" "$img" > out.log 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		check_all "$img"
		return 0
	fi
	[ $rc -eq 1 ] || { cat out.log >&2; fail "$var=$n: exit status $rc, expected 1"; }
	grep -q ERROR out.log || fail "$var=$n: failure without an error message"
	btrfs check --readonly "$img" >/dev/null 2>&1 &&
		fail "$var=$n: mkfs failed but btrfs check accepts the image"
	if mount -t btrfs -o loop,ro "$img" "$mnt" 2>/dev/null; then
		umount "$mnt"
		fail "$var=$n: mkfs failed but the kernel mounts the image"
	fi
	grep -q -- "--reflink: cloning the data of" out.log && clones=$((clones + 1))
	return 1
}

# sweep VAR [MKFS-ARGS...]; with FULL_SWEEP=1 every N
sweep()
{
	local stride=7

	[ -n "${GHEE_LONG:-}${FULL_SWEEP:-}" ] && stride=1
	clones=0
	FAULT_STRIDE=$stride fault_sweep "$1" 5000 run_faulty "${@:2}"
	echo "$1: $FAULTS failing points up to $FAULT_N, none left a valid filesystem"
}

sweep GHEE_FAIL_WRITE_AT
sweep GHEE_FAIL_FLUSH_AT

# --reflink: tree and image on one btrfs, files of whole sectors (all cloned)
truncate -s 1G "$TEST_TMP/host.img" || fail "cannot create the scratch image"
mkfs.btrfs -q -f "$TEST_TMP/host.img" >/dev/null 2>&1 || fail "mkfs.btrfs of the scratch filesystem failed"
mount_image "$TEST_TMP/host.img" "$TEST_TMP/host"
src=$TEST_TMP/host/src
mkdir -p "$src"
head -c 262144 /dev/urandom > "$src/a"
head -c 131072 /dev/urandom > "$src/b"
echo small > "$src/small"
base=$TEST_TMP/host/base.img
img=$TEST_TMP/host/img
new_image "$base" 256M
mkfs.btrfs -q -f "$base" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
FULL_SWEEP=1 sweep GHEE_FAIL_WRITE_AT --reflink
grep -q "cannot clone" out.log && { cat out.log >&2; fail "--reflink did not clone on the scratch btrfs"; }
echo "--reflink: $clones failing points were clones"
[ "$clones" -ge 2 ] || fail "--reflink: no failing point was a clone (clones bypass fault injection?)"
umount_image "$TEST_TMP/host"
exit 0
