#!/bin/bash
# The v1 free space cache the engine writes at commit when the free space
# tree is off: mkfs writes none (cache_generation -1, like mkfs.btrfs);
# after the engine adds files to the image (the unit-test binary's image
# mode, test_v1_image) every block group of 100 MiB or more has a cache of
# this generation, btrfs check (which verifies caches whose generation
# matches) and ghee check are clean, and the kernel mounts it with
# space_cache=v1, takes writes and leaves it clean.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
units=$BUILDDIR/tests/unit/unit-tests
[ -x "$units" ] || skip "no unit-test binary (configure found no Check library)"
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt

super_field()
{
	btrfs inspect-internal dump-super "$1" | awk -v f="$2" '$1 == f { print $2 }'
}

# the engine's commit must leave caches btrfs check verifies, not skips
check_caches()
{
	local out gen

	gen=$(super_field "$img" generation)
	[ "$(super_field "$img" cache_generation)" = "$gen" ] ||
		fail "cache_generation is not the generation ($gen)"
	out=$(btrfs check --readonly "$img" 2>&1)
	if echo "$out" | grep -qiE "don't match|failed to load free space|wrong amount|cache appears valid"; then
		echo "$out" >&2
		fail "btrfs check did not accept the v1 caches"
	fi
	check_image "$img"
	run_check_cmd "$GHEE" check "$img"
}

new_image "$img" 4G
ghee_mkfs -R ^free-space-tree "$img"
[ "$(super_field "$img" cache_generation)" = 18446744073709551615 ] ||
	fail "mkfs wrote a v1 cache (mkfs.btrfs writes none)"

# 16 MiB of files: beyond the first data group, so a big one appears
GHEE_V1_CACHE_IMAGE=$img GHEE_V1_CACHE_FILES=16 CK_FORK=no "$units" v1_cache > units.log 2>&1 ||
	{ cat units.log >&2; fail "adding files through the engine failed"; }
nr=$(btrfs inspect-internal dump-tree -t root "$img" | grep -c 'FREE_SPACE UNTYPED')
[ "$nr" -ge 2 ] || fail "expected caches for the metadata and the new data group, found $nr"
check_caches

# a second engine commit rewrites them
GHEE_V1_CACHE_IMAGE=$img GHEE_V1_CACHE_FILES=3 CK_FORK=no "$units" v1_cache > units.log 2>&1 ||
	{ cat units.log >&2; fail "adding more files through the engine failed"; }
check_caches

mount_image "$img" "$mnt" space_cache=v1
[ "$(ls "$mnt" | wc -l)" -eq 19 ] || fail "the kernel does not see the 19 files"
head -c 20M /dev/urandom > "$mnt/k" || fail "writing through the kernel failed"
rm -f "$mnt/v1-258" || fail "removing through the kernel failed"
sync
umount_image "$mnt" || fail "umount failed"
check_caches

# the engine again, over the caches the kernel wrote: their inodes are
# reused, their extents dropped
GHEE_V1_CACHE_IMAGE=$img GHEE_V1_CACHE_FILES=2 CK_FORK=no "$units" v1_cache > units.log 2>&1 ||
	{ cat units.log >&2; fail "adding files after the kernel failed"; }
check_caches
