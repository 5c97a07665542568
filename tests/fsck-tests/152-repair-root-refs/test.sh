#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the root refs of a kernel-written image with a subvolume (sv,
# 256) and a snapshot (snap, 257) in the top level, each damaged alone:
# the ROOT_BACKREF removed, the ROOT_REF removed, both removed (made again
# from the parent's dir index that links the subvolume), and the
# backref's sequence changed (ROOT_REF_MISMATCH: the half the dir index
# confirms wins).  The exact items are asserted, every checker is clean
# afterwards and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3
DEL=$TOP/tests/fsck-tests/lib/btrfs-del-item.py

check_fixed()
{
	local img=$1 code=$2 plan=$3

	shift 3
	finding_codes "$img" > "$TEST_TMP/codes.before"
	grep -qx "$code" "$TEST_TMP/codes.before" || { cat "$TEST_TMP/codes.before" >&2; fail "$code not found"; }
	[ "$plan" = plan ] && expect_plan_matches "$img"
	expect_repaired "$img"
	for line in "$@"; do
		expect_change "$TEST_TMP/repair.json" "$line"
	done
	expect_second_repair_noop "$img"
}

# ref_of IMG OBJECTID TYPE OFFSET: "dirid sequence" of a root ref item
ref_of()
{
	echo "$(python3 "$EDIT" "$1" get-item 1 "$2" "$3" "$4" 0 8) $(python3 "$EDIT" "$1" get-item 1 "$2" "$3" "$4" 8 8)"
}

img=$(fsck_base_image) || exit
sv_ref=$(ref_of "$img" 5 156 256)
snap_ref=$(ref_of "$img" 5 156 257)
read -r dirid seq <<< "$snap_ref"

# the snapshot's backref removed
python3 "$DEL" "$img" 1 257 144 5 || fail "edit failed"
check_fixed "$img" ROOT_REF_MISSING plan \
	"ROOT_REF_MISSING | insert root tree item (257 ROOT_BACKREF 5) dirid $dirid sequence $seq name snap"
[ "$(ref_of "$img" 257 144 5)" = "$snap_ref" ] || fail "the backref is not back"

# the snapshot's ref removed
img=$(fsck_base_image) || exit
python3 "$DEL" "$img" 1 5 156 257 || fail "edit failed"
check_fixed "$img" ROOT_REF_MISSING plan \
	"ROOT_REF_MISSING | insert root tree item (5 ROOT_REF 257) dirid $dirid sequence $seq name snap"
[ "$(ref_of "$img" 5 156 257)" = "$snap_ref" ] || fail "the ref is not back"

# both removed: found again through the dir index in the top level
img=$(fsck_base_image) || exit
python3 "$DEL" "$img" 1 257 144 5 || fail "edit failed"
python3 "$DEL" "$img" 1 5 156 257 || fail "edit failed"
check_fixed "$img" ROOT_REF_MISSING plan \
	"ROOT_REF_MISSING | insert root tree item (5 ROOT_REF 257) dirid $dirid sequence $seq name snap" \
	"ROOT_REF_MISSING | insert root tree item (257 ROOT_BACKREF 5) dirid $dirid sequence $seq name snap"
[ "$(ref_of "$img" 5 156 257)" = "$snap_ref" ] && [ "$(ref_of "$img" 257 144 5)" = "$snap_ref" ] ||
	fail "the pair is not back"

# the subvolume's backref with a wrong sequence
img=$(fsck_base_image) || exit
read -r dirid seq <<< "$sv_ref"
python3 "$EDIT" "$img" set-item 1 256 144 5 8 8 $((seq + 40)) || fail "edit failed"
check_fixed "$img" ROOT_REF_MISMATCH plan \
	"ROOT_REF_MISMATCH | delete root tree item (256 ROOT_BACKREF 5)" \
	"ROOT_REF_MISMATCH | insert root tree item (256 ROOT_BACKREF 5) dirid $dirid sequence $seq name sv"
[ "$(ref_of "$img" 256 144 5)" = "$sv_ref" ] || fail "the backref is not right again"
