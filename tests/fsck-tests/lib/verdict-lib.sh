# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the verdict tests 060-079: each builds a filesystem with the
# kernel, then requires ghee check's exact findings and the verdicts of
# btrfs check 6.2 and 6.19 on it.  Source after tests/common.sh.
#
#   need_verdict_tools        root, loop, kernel btrfs, both btrfs-progs
#   progs_verdict IMG [DEV..] "clean" or "errors" from btrfs check 6.2
#   progs619_verdict IMG [DEV..]  the same from 6.19 (judged by its text:
#                             it can exit 0 after printing errors)
#   expect_progs IMG V62 V619 [--] fail unless both verdicts are as given
#   kernel_quota_image IMG    a kernel-written image with quotas (see below)
#   expect_ghee STATUS FILE IMG [ARGS..]
#                             ghee check -q exits STATUS and prints exactly
#                             the ERROR:/WARNING: lines in FILE (in order)

PROGS619=${GHEE_PROGS619:-$TOP/../shared/tools/btrfs-progs-6.19/btrfs}

need_verdict_tools()
{
	need_root
	need_loop
	need_kernel_btrfs
	need_progs btrfs mkfs.btrfs btrfstune
	[ -x "$PROGS619" ] || skip "btrfs-progs 6.19 is not in $PROGS619"
}

progs_verdict()
{
	if btrfs check --readonly "$@" > "$TEST_TMP/progs62.log" 2>&1; then
		echo clean
	else
		echo errors
	fi
}

progs619_verdict()
{
	"$PROGS619" check --readonly "$@" > "$TEST_TMP/progs619.log" 2>&1
	if grep -q 'no error found' "$TEST_TMP/progs619.log" &&
	   ! grep -qi 'error(s) found' "$TEST_TMP/progs619.log"; then
		echo clean
	else
		echo errors
	fi
}

# expect_progs V62 V619 IMG [DEV..]
expect_progs()
{
	local want62=$1 want619=$2 got

	shift 2
	got=$(progs_verdict "$@")
	[ "$got" = "$want62" ] ||
		{ cat "$TEST_TMP/progs62.log" >&2; fail "btrfs check 6.2 says $got, expected $want62"; }
	got=$(progs619_verdict "$@")
	[ "$got" = "$want619" ] ||
		{ cat "$TEST_TMP/progs619.log" >&2; fail "btrfs check 6.19 says $got, expected $want619"; }
}

# expect_ghee STATUS EXPECTED-FILE IMG [ARGS..]
expect_ghee()
{
	local want=$1 expected=$2 rc

	shift 2
	"$GHEE" check -q "$@" > "$TEST_TMP/ghee.out" 2>&1
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/ghee.out" >&2; fail "crash or sanitizer error (status $rc)"; }
	grep -E '^(ERROR|WARNING): \[' "$TEST_TMP/ghee.out" > "$TEST_TMP/ghee.findings"
	if ! diff -u "$expected" "$TEST_TMP/ghee.findings" >&2; then
		cat "$TEST_TMP/ghee.out" >&2
		fail "ghee check findings differ"
	fi
	[ $rc -eq "$want" ] ||
		{ cat "$TEST_TMP/ghee.out" >&2; fail "ghee check exit status $rc, expected $want"; }
}

# kernel_mkfs IMG SIZE [MKFS-OPTIONS..]: mkfs.btrfs without its (pre-6.16)
# free space tree leftovers: the kernel builds the tree at the first mount
kernel_mkfs()
{
	local img=$1 size=$2

	shift 2
	rm -f "$img"
	truncate -s "$size" "$img" || fail "cannot create $img"
	mkfs.btrfs -q -f -R ^free-space-tree "$@" "$img" >/dev/null 2>&1 ||
		fail "mkfs.btrfs $* failed"
}

# kernel_quota_image IMG: a 200 MiB kernel-written filesystem with quotas
# on, a subvolume sv, files in both, the counts rescanned
kernel_quota_image()
{
	local img=$1 mnt=$TEST_TMP/quota-mnt i

	kernel_mkfs "$img" 200M
	mount_image "$img" "$mnt"
	btrfs quota enable "$mnt" || { umount_image "$mnt"; fail "quota enable failed"; }
	btrfs subvolume create "$mnt/sv" > /dev/null || { umount_image "$mnt"; fail "subvolume create failed"; }
	for i in 1 2 3; do
		head -c $((i * 70000)) /dev/urandom > "$mnt/f$i"
		head -c $((i * 50000)) /dev/urandom > "$mnt/sv/g$i"
	done
	btrfs quota rescan -w "$mnt" > /dev/null || { umount_image "$mnt"; fail "quota rescan failed"; }
	umount_image "$mnt" || fail "umount failed"
	"$GHEE" check "$img" > "$TEST_TMP/quota.out" 2>&1 ||
		{ cat "$TEST_TMP/quota.out" >&2; fail "the quota image is not clean"; }
	grep -q "quota groups skipped" "$TEST_TMP/quota.out" && fail "the image has no quotas"
	return 0
}

