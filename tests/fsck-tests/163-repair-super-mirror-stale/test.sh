#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SUPER_MIRROR_STALE: superblock mirror 1 of a kernel-written image left
# at the previous commit (generation, tree root and bytes used of the
# backup slot before the newest: a commit whose mirror writes were lost),
# and then one ahead of the primary.  The kernel and btrfs check read the
# primary only (both call it clean): a warning, exit 0.  --repair rewrites
# the mirror from the primary (the dry run plans exactly that), every
# checker is clean and the warning gone, a second repair writes nothing.
# -s 1 --repair instead makes the stale mirror's commit the current one.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/altroot-lib.sh"
need_progs python3

M1=67108864

# stale_mirror IMG GEN ROOT LEVEL USED: mirror 1 says that, with a fresh checksum
stale_mirror()
{
	python3 - "$@" <<'PY' || fail "cannot edit mirror 1"
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "pylib"))
from btrfs_crc import crc32c
img, gen, root, level, used = sys.argv[1], *map(int, sys.argv[2:])
with open(img, "r+b") as f:
    f.seek(67108864)
    sb = bytearray(f.read(4096))
    struct.pack_into("<QQ", sb, 72, gen, root)
    struct.pack_into("<Q", sb, 120, used)
    sb[198] = level
    struct.pack_into("<I", sb, 0, crc32c(bytes(sb[32:])))
    f.seek(67108864)
    f.write(sb)
PY
}

base=$(fsck_base_image) || exit
gen=$(super_field "$base" generation)
root=$(super_field "$base" root)
level=$(super_field "$base" root_level)
used=$(super_field "$base" bytes_used)
read -r prev _ < <(backup_slot "$base" $((gen - 1)))
[ -n "$prev" ] || skip "no backup slot of generation $((gen - 1))"
prev_used=$("$GHEE" dump-super -f "$base" | awk -v r="$prev" '
	$1 == "backup_tree_root:" { hit = ($2 == r) }
	hit && $1 == "backup_bytes_used:" { print $2; exit }')
[ -n "$prev_used" ] || fail "no bytes used of the backup slot"
cp --sparse=always "$base" "$TEST_TMP/pristine.img"

for case in behind ahead; do
	img=$TEST_TMP/$case.img
	cp --sparse=always "$TEST_TMP/pristine.img" "$img"
	if [ $case = behind ]; then
		mgen=$((gen - 1))
		stale_mirror "$img" $mgen "$prev" "$level" "$prev_used"
	else
		mgen=$((gen + 1))
		stale_mirror "$img" $mgen "$root" "$level" "$used"
	fi
	"$GHEE" check "$img" > "$TEST_TMP/check.out" 2>&1
	rc=$?
	[ $rc -eq "$CHECK_CLEAN" ] || { cat "$TEST_TMP/check.out" >&2; fail "$case: a stale mirror is not an error (status $rc)"; }
	grep -qxF "WARNING: [SUPER_MIRROR_STALE] superblock mirror 1 at $M1: generation $mgen, primary has $gen" "$TEST_TMP/check.out" ||
		{ cat "$TEST_TMP/check.out" >&2; fail "$case: no SUPER_MIRROR_STALE warning"; }
	btrfs check --readonly "$img" > /dev/null 2>&1 || fail "$case: btrfs check 6.2 does not accept the image"
	expect_plan_matches "$img"
	expect_repaired "$img"
	repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
	echo "SUPER_MIRROR_STALE | rebuild superblock mirror 1 at $M1 from the primary" > "$TEST_TMP/expected"
	compare_outputs "$TEST_TMP/expected" "$TEST_TMP/changes" || fail "$case: not exactly the one change"
	expect_mirror_is_primary "$img"
	[ "$(super_field "$img" root)" != "$prev" ] || fail "$case: the stale mirror's root became current"
	"$GHEE" check "$img" 2>&1 | grep -q "SUPER_MIRROR_STALE" && fail "$case: still stale after the repair"
	expect_second_repair_noop "$img"
done

# -s 1: the mirror's older commit becomes current, the newest abandoned
img=$TEST_TMP/keep-mirror.img
cp --sparse=always "$TEST_TMP/pristine.img" "$img"
stale_mirror "$img" $((gen - 1)) "$prev" "$level" "$prev_used"
"$GHEE" check --repair -y -s 1 "$img" > "$TEST_TMP/s1.out" 2>&1
rc=$?
[ $rc -eq "$CHECK_CORRECTED" ] || { cat "$TEST_TMP/s1.out" >&2; fail "-s 1: status $rc"; }
grep -q "generations $gen to $gen abandoned" "$TEST_TMP/s1.out" || { cat "$TEST_TMP/s1.out" >&2; fail "-s 1: the abandoned generation is not named"; }
expect_all_clean "$img"
expect_mirror_is_primary "$img"
[ "$(super_field "$img" generation)" -gt "$gen" ] || fail "-s 1: the new commit is not newer than generation $gen"
expect_kernel_takes "$img"
exit 0
