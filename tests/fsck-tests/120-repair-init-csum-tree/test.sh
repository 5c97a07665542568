#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee check --repair --init-csum-tree on a kernel-written image (plain,
# compressed, reflinked, snapshotted, NODATASUM and preallocated files):
# on the undamaged image the new tree holds exactly the checksums of the
# old one; with the csum tree's leaf unreadable, with a checksum item
# moved off its data and with a wrong checksum value, the rebuild leaves
# an image all three checkers (and --check-data-csum) call clean, that the
# kernel mounts, reads back byte for byte, writes to and unmounts clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/rebuild-lib.sh"
need_progs python3

base=$(rebuild_base_image) || exit
csum_map "$base" > "$TEST_TMP/before.map"
[ -s "$TEST_TMP/before.map" ] || fail "the base image has no checksums"

# rebuild IMG: the repair exits with EXPECTED and says it rebuilt the tree
rebuild()
{
	local img=$1 want=$2 rc

	"$GHEE" check --repair --init-csum-tree "$img" > "$TEST_TMP/rebuild.out" 2> "$TEST_TMP/rebuild.err"
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/rebuild.err" >&2; fail "the rebuild crashed"; }
	[ $rc -eq "$want" ] || { cat "$TEST_TMP/rebuild.out" "$TEST_TMP/rebuild.err" >&2; fail "rebuild: status $rc, expected $want"; }
	grep -q "rebuilt the csum tree" "$TEST_TMP/rebuild.out" || fail "no rebuild reported"
	grep -q "no error found after repair" "$TEST_TMP/rebuild.out" || fail "problems left after the rebuild"
}

# undamaged: the same checksums, every one taken as before
img=$TEST_TMP/same.img
cp --sparse=always "$base" "$img"
rebuild "$img" "$CHECK_CLEAN"
grep -q " 0 added, 0 recomputed" "$TEST_TMP/rebuild.out" || { cat "$TEST_TMP/rebuild.out" >&2; fail "an undamaged tree is not taken as it was"; }
csum_map "$img" > "$TEST_TMP/after.map"
diff "$TEST_TMP/before.map" "$TEST_TMP/after.map" >&2 || fail "the rebuilt tree differs from the kernel's"
expect_data_clean "$img"

# the csum tree's leaf unreadable
img=$TEST_TMP/unreadable.img
cp --sparse=always "$base" "$img"
leaf=$(python3 "$EDIT" "$img" leaf-of 7 18446744073709551606 128) || fail "no csum leaf"
python3 "$EDIT" "$img" break-block "$leaf" || fail "edit failed"
rebuild "$img" "$CHECK_CORRECTED"
grep -q "1 unreadable" "$TEST_TMP/rebuild.out" || fail "the unreadable old leaf is not reported"
csum_map "$img" > "$TEST_TMP/after.map"
diff "$TEST_TMP/before.map" "$TEST_TMP/after.map" >&2 || fail "the recomputed checksums differ from the kernel's"
expect_data_clean "$img"
expect_kernel_roundtrip "$img"

# the first csum item moved to address 0: its data has no checksums
img=$TEST_TMP/moved.img
cp --sparse=always "$base" "$img"
read -r obj type off < <(python3 "$EDIT" "$img" first 7 128) || fail "no csum item"
python3 "$EDIT" "$img" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 || fail "edit failed"
rebuild "$img" "$CHECK_CORRECTED"
csum_map "$img" > "$TEST_TMP/after.map"
diff "$TEST_TMP/before.map" "$TEST_TMP/after.map" >&2 || fail "the rebuilt tree differs from the kernel's"
expect_data_clean "$img"

# a wrong checksum value: recomputed from the data (one copy only)
img=$TEST_TMP/wrong.img
cp --sparse=always "$base" "$img"
read -r obj type off < <(python3 "$EDIT" "$img" first 7 128) || fail "no csum item"
python3 "$EDIT" "$img" add-item 7 "$obj" "$type" "$off" 8 4 1 || fail "edit failed"
"$GHEE" check --check-data-csum "$img" > /dev/null 2>&1 && fail "the damage is not seen"
rebuild "$img" "$CHECK_CLEAN"	# the plain check reads no data
grep -q " 1 recomputed" "$TEST_TMP/rebuild.out" || { cat "$TEST_TMP/rebuild.out" >&2; fail "the wrong checksum is not recomputed"; }
csum_map "$img" > "$TEST_TMP/after.map"
diff "$TEST_TMP/before.map" "$TEST_TMP/after.map" >&2 || fail "the rebuilt tree differs from the kernel's"
expect_data_clean "$img"
expect_kernel_roundtrip "$img"

# the options: --dry-run plans and writes nothing; the rebuilds need
# --repair (-p is not enough)
img=$TEST_TMP/dry.img
cp --sparse=always "$base" "$img"
"$GHEE" check --repair --dry-run --init-csum-tree "$img" > "$TEST_TMP/dry.out" 2>&1
[ $? -eq "$CHECK_CLEAN" ] || { cat "$TEST_TMP/dry.out" >&2; fail "dry run: unexpected status"; }
grep -q "would rebuild the csum tree" "$TEST_TMP/dry.out" || fail "the dry run does not plan the rebuild"
cmp -s "$img" "$base" || fail "the dry run wrote"
"$GHEE" check --init-csum-tree "$img" > /dev/null 2> "$TEST_TMP/opt.err"
[ $? -eq "$CHECK_USAGE" ] || fail "--init-csum-tree without --repair accepted"
grep -q "need --repair" "$TEST_TMP/opt.err" || fail "no reason given for the refusal"
"$GHEE" check -p --init-extent-tree "$img" > /dev/null 2> "$TEST_TMP/opt.err"
[ $? -eq "$CHECK_USAGE" ] || fail "--init-extent-tree with -p accepted"
cmp -s "$img" "$base" || fail "a refused option wrote"
