#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair from superblock copy 1 (-s 1) of a kernel-written image whose
# primary superblock is damaged: the dry run plans it and writes nothing,
# without -y and a terminal it is declined (exit 32, nothing written), the
# repair writes every copy from mirror 1 (the primary valid again, its
# generation above the old one), all checkers and the kernel take the
# result, a second repair writes nothing, and --undo puts the damaged
# primary back.  A copy beyond the device is refused with its reason.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/altroot-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
gen=$(super_field "$img" generation)
[ -n "$gen" ] || fail "no generation in dump-super"
printf 'X' | dd of="$img" bs=1 seek=$((65536 + 299)) conv=notrunc status=none
cp --sparse=always "$img" "$TEST_TMP/damaged.img"
run_expect_status "$CHECK_CANNOT" "$GHEE" check "$img" > /dev/null 2>&1

# the plan: written from copy 1, nothing abandoned (the mirror is as new)
run_expect_status "$CHECK_ERRORS" "$GHEE" check --repair --dry-run -s 1 "$img" > "$TEST_TMP/plan.out"
grep -q "would write every superblock copy from superblock copy 1" "$TEST_TMP/plan.out" ||
	{ cat "$TEST_TMP/plan.out" >&2; fail "the dry run does not plan the superblocks"; }
grep -q "abandon" "$TEST_TMP/plan.out" && fail "the dry run abandons a generation of an up-to-date mirror"
expect_unchanged "$img" "$TEST_TMP/damaged.img" "dry run"

# no terminal, no -y: declined
run_expect_status "$CHECK_CANCELLED" "$GHEE" check --repair -s 1 "$img" < /dev/null > /dev/null 2> "$TEST_TMP/ask.err"
grep -q "add -y or --force" "$TEST_TMP/ask.err" || { cat "$TEST_TMP/ask.err" >&2; fail "the refusal does not say how"; }
expect_unchanged "$img" "$TEST_TMP/damaged.img" "declined repair"

expect_source_repaired "$img" -s 1 --undo "$TEST_TMP/undo"
[ "$(super_field "$img" generation)" -gt "$gen" ] || fail "the new commit is not newer than generation $gen"
python3 - "$img" <<'PY' || fail "the primary is not a copy of mirror 1"
import sys
f = open(sys.argv[1], 'rb')
f.seek(65536); p = f.read(4096)
f.seek(67108864); m = f.read(4096)
sys.exit(0 if p[32:48] == m[32:48] and p[56:] == m[56:] else 1)
PY
cp --sparse=always "$img" "$TEST_TMP/repaired.img"
expect_kernel_takes "$img"

# the undo file puts the damaged primary back, byte for byte
"$GHEE" undo "$TEST_TMP/undo" "$TEST_TMP/repaired.img" > "$TEST_TMP/undo.out" 2>&1 ||
	{ cat "$TEST_TMP/undo.out" >&2; fail "ghee undo failed"; }
expect_unchanged "$TEST_TMP/repaired.img" "$TEST_TMP/damaged.img" "undo"

# a mirror the device does not hold (copy 2 is at 256 GiB)
img=$TEST_TMP/damaged.img
cp --sparse=always "$img" "$TEST_TMP/before-s2.img"
"$GHEE" check --repair -y -s 2 "$img" > "$TEST_TMP/s2.out" 2>&1
rc=$?
[ $rc -eq "$CHECK_CANNOT" ] || { cat "$TEST_TMP/s2.out" >&2; fail "-s 2: status $rc, expected $CHECK_CANNOT"; }
grep -q "superblock at 274877906944: device too small" "$TEST_TMP/s2.out" ||
	{ cat "$TEST_TMP/s2.out" >&2; fail "-s 2: the reason is not given"; }
expect_unchanged "$img" "$TEST_TMP/before-s2.img" "-s 2"
exit 0
