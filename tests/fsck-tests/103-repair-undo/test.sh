#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --undo FILE saves what the repair overwrites; `ghee undo FILE DEVICE`
# puts the image back byte for byte (so dump-tree is the original's too).
# Undo is refused onto an image that changed since the repair, an undo
# file is never overwritten, and a repair that writes nothing leaves none.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

IMG=$(fs_base_image) || exit
fs_edit set-item 5 "$FS_INO_TWO" 1 0 40 4 2
orig=$TEST_TMP/orig.img
cp --sparse=always "$IMG" "$orig"
"$GHEE" dump-tree "$orig" > "$TEST_TMP/orig.dump" || fail "dump-tree failed"

undo=$TEST_TMP/repair.undo
expect_repaired "$IMG" --undo "$undo"
[ -s "$undo" ] || fail "no undo file"
cmp -s "$IMG" "$orig" && fail "the repair changed nothing"
repaired=$TEST_TMP/repaired.img
cp --sparse=always "$IMG" "$repaired"

# an undo file is never overwritten
run_expect_status $((CHECK_CANNOT | CHECK_ERRORS)) "$GHEE" check --repair --undo "$undo" "$orig" > /dev/null 2>&1
cmp -s "$orig" "$TEST_TMP/orig.img" || fail "the refused repair wrote"

# refused while the image is not what the repair left
python3 "$EDIT" "$IMG" add-super 120 8 4096 || fail "edit failed"
run_mustfail_cmd "$GHEE" undo "$undo" "$IMG" 2> "$TEST_TMP/refused.err"
grep -q "changed since the repair" "$TEST_TMP/refused.err" || { cat "$TEST_TMP/refused.err" >&2; fail "no reason given"; }
cp --sparse=always "$repaired" "$IMG"

# the round trip
run_check_cmd "$GHEE" undo "$undo" "$IMG" > /dev/null
cmp "$IMG" "$orig" || fail "the undone image differs from the original"
"$GHEE" dump-tree "$IMG" > "$TEST_TMP/undone.dump" || fail "dump-tree failed"
compare_outputs "$TEST_TMP/orig.dump" "$TEST_TMP/undone.dump" || fail "dump-tree differs after undo"
fs_phase_codes "$IMG"
grep -qx INODE_NLINK "$TEST_TMP/codes" || fail "the damage is not back after undo"

# nothing to repair: no undo file
IMG=$(fs_base_image) || exit
run_expect_status "$CHECK_CLEAN" "$GHEE" check --repair --undo "$TEST_TMP/none.undo" "$IMG" > /dev/null
[ -e "$TEST_TMP/none.undo" ] && fail "an undo file for a repair that wrote nothing"
exit 0
