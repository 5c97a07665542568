#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair from a backup root (-b) of a kernel-written image whose newest
# tree root block is bad (every copy): -b passes over the newest slot (the
# same bad block) to the previous commit's, asks (declined without a
# terminal, nothing written), then makes it current: every superblock copy
# written, the newest generation abandoned and said so, the new commit
# newer than it; all checkers and the kernel take the result and a second
# repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/altroot-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
gen=$(super_field "$img" generation)
root=$(super_field "$img" root)
[ -n "$gen" ] && [ -n "$root" ] || fail "cannot read the superblock"
read -r prev _ < <(backup_slot "$img" $((gen - 1)))
[ -n "$prev" ] || skip "no backup slot of generation $((gen - 1))"
python3 "$EDIT" "$img" break-csum "$root" || fail "edit failed"
cp --sparse=always "$img" "$TEST_TMP/damaged.img"
run_expect_status "$CHECK_CANNOT" "$GHEE" check "$img" > /dev/null 2>&1

# declined: the first check's finding stays (exit 32 + 4)
"$GHEE" check --repair -b "$img" < /dev/null > /dev/null 2> "$TEST_TMP/ask.err"
rc=$?
[ $rc -eq $((CHECK_CANCELLED | CHECK_ERRORS)) ] || { cat "$TEST_TMP/ask.err" >&2; fail "declined -b: status $rc"; }
grep -q "abandons newer generations" "$TEST_TMP/ask.err" || { cat "$TEST_TMP/ask.err" >&2; fail "the refusal does not say what is abandoned"; }
expect_unchanged "$img" "$TEST_TMP/damaged.img" "declined repair"

"$GHEE" check --repair -y -b "$img" > "$TEST_TMP/text.out" 2>&1
rc=$?
[ $rc -eq "$CHECK_CORRECTED" ] || { cat "$TEST_TMP/text.out" >&2; fail "repair -b: status $rc"; }
grep -q "every superblock copy written from backup root slot [0-3] (tree root generation $((gen - 1)))" "$TEST_TMP/text.out" &&
	grep -q "generations $gen to $gen abandoned" "$TEST_TMP/text.out" ||
	{ cat "$TEST_TMP/text.out" >&2; fail "the report does not say what it did"; }
expect_all_clean "$img"
[ "$(super_field "$img" generation)" -gt "$gen" ] || fail "the new commit is not newer than the abandoned generation $gen"
[ "$(super_field "$img" root)" != "$root" ] || fail "the bad tree root is still the root"
expect_kernel_takes "$img"

# the JSON report of the same repair
img=$TEST_TMP/json.img
cp --sparse=always "$TEST_TMP/damaged.img" "$img"
expect_source_repaired "$img" -b
exit 0
