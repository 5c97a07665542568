#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a repair refuses, writing nothing: a mounted filesystem (through
# its loop device), -p (preen) when a finding is not of a safe class
# ("needs a full repair", exit 4), option combinations that make no sense
# (exit 16); and a clean filesystem is left alone (exit 0, no write).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
cp --sparse=always "$IMG" "$TEST_TMP/clean.img"
run_expect_status "$CHECK_CLEAN" "$GHEE" check --repair "$IMG" > /dev/null
cmp -s "$IMG" "$TEST_TMP/clean.img" || fail "the repair of a clean filesystem wrote"
run_expect_status "$CHECK_CLEAN" "$GHEE" check --repair --dry-run "$IMG" > /dev/null

for opts in "--readonly --repair" "--dry-run" "--undo $TEST_TMP/u" "-p -s 1" \
	    "--clear-space-cache v2 -b" "--repair --check-data-csum" "--repair --dry-run --undo $TEST_TMP/u" \
	    "--clear-space-cache v3"; do
	# shellcheck disable=SC2086
	run_expect_status "$CHECK_USAGE" "$GHEE" check $opts "$IMG" > /dev/null 2>&1
done
[ -e "$TEST_TMP/u" ] && fail "an undo file from a refused command"

fs_edit set-item 5 "$FS_INO_TWO" 1 0 40 4 2
cp --sparse=always "$IMG" "$TEST_TMP/damaged.img"
"$GHEE" check -p "$IMG" > "$TEST_TMP/preen.out"
rc=$?
[ $rc -eq "$CHECK_ERRORS" ] || fail "preen of a link count: status $rc, expected $CHECK_ERRORS"
grep -q "needs a full repair" "$TEST_TMP/preen.out" || fail "no 'needs a full repair'"
cmp -s "$IMG" "$TEST_TMP/damaged.img" || fail "the refused preen wrote"
"$GHEE" check -p --format json "$IMG" > "$TEST_TMP/preen.json"
grep -q '"status": *"needs-full-repair"' "$TEST_TMP/preen.json" || fail "the JSON report does not say why"

if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems; then
	mnt=$TEST_TMP/mnt
	cp --sparse=always "$TEST_TMP/clean.img" "$TEST_TMP/m.img"
	cp --sparse=always "$TEST_TMP/m.img" "$TEST_TMP/m-before.img"
	mount_image "$TEST_TMP/m.img" "$mnt" ro
	"$GHEE" check --repair "$TEST_TMP/m.img" > /dev/null 2> "$TEST_TMP/mounted.err"
	rc=$?
	umount_image "$mnt"
	[ "$rc" -eq "$CHECK_CANNOT" ] || fail "a mounted filesystem was not refused (status $rc)"
	cmp -s "$TEST_TMP/m.img" "$TEST_TMP/m-before.img" || fail "the refused repair wrote"
	grep -q "mounted" "$TEST_TMP/mounted.err" || { cat "$TEST_TMP/mounted.err" >&2; fail "the refusal does not say mounted"; }
fi
exit 0
