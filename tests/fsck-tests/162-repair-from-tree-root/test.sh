#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair from an explicit tree root (-r) of a kernel-written image whose
# newest tree root block is bad: the previous commit's tree root (its
# backup slot's chunk root with it) becomes current; all checkers and the
# kernel take the result and a second repair writes nothing.  Refused,
# writing nothing, with the reason: a tree root not aligned, one no chunk
# maps, and a chunk root newer than the tree root (its generation would be
# abandoned and its blocks reused under it).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/altroot-lib.sh"
need_progs python3

img=$(fsck_base_image) || exit
gen=$(super_field "$img" generation)
root=$(super_field "$img" root)
chunk=$(super_field "$img" chunk_root)
chunk_gen=$(super_field "$img" chunk_root_generation)
[ -n "$gen" ] && [ -n "$root" ] && [ -n "$chunk_gen" ] || fail "cannot read the superblock"
read -r prev _ < <(backup_slot "$img" $((gen - 1)))
[ -n "$prev" ] || skip "no backup slot of generation $((gen - 1))"
python3 "$EDIT" "$img" break-csum "$root" || fail "edit failed"
cp --sparse=always "$img" "$TEST_TMP/damaged.img"

refused()
{
	local what=$1 reason=$2 rc

	shift 2
	"$GHEE" check --repair -y "$@" "$img" > "$TEST_TMP/refused.out" 2>&1
	rc=$?
	[ $((rc & CHECK_CANNOT)) -ne 0 ] || { cat "$TEST_TMP/refused.out" >&2; fail "$what: status $rc, expected $CHECK_CANNOT"; }
	grep -q "$reason" "$TEST_TMP/refused.out" || { cat "$TEST_TMP/refused.out" >&2; fail "$what: no reason '$reason'"; }
	expect_unchanged "$img" "$TEST_TMP/damaged.img" "$what"
}
refused "unaligned -r" "tree block bytenr 12345 is not aligned" -r 12345
refused "unmapped -r" "is not mapped by any chunk" -r $((1 << 40))
# a slot older than the chunk tree, given with today's chunk root
for g in $(seq 1 $((chunk_gen - 1))); do
	read -r old _ < <(backup_slot "$img" "$g")
	[ -n "$old" ] && break
done
if [ -n "$old" ]; then
	refused "newer chunk root" "is newer than the tree root" -r "$old" --chunk-root "$chunk"
else
	echo "no backup slot older than the chunk tree: that refusal not tried" >&2
fi

expect_source_repaired "$img" -r "$prev"
grep -q '"from": *"the tree root at '"$prev"'"' "$TEST_TMP/repair.json" ||
	{ cat "$TEST_TMP/repair.json" >&2; fail "the report does not name the tree root"; }
[ "$(super_field "$img" generation)" -gt "$gen" ] || fail "the new commit is not newer than the abandoned generation $gen"
expect_kernel_takes "$img"

# a healthy primary: -r the previous commit abandons the newest, whose tree
# blocks the repair kept unused: that generation still reads whole
img=$TEST_TMP/healthy.img
cp --sparse=always "$TEST_TMP/damaged.img" "$img"
python3 "$EDIT" "$img" break-csum "$root" || fail "edit failed"	# flipped back
run_expect_status "$CHECK_CLEAN" "$GHEE" check "$img" > /dev/null
"$GHEE" check --repair -y -r "$prev" "$img" > "$TEST_TMP/healthy.out" 2>&1
rc=$?
[ $rc -eq "$CHECK_CORRECTED" ] || { cat "$TEST_TMP/healthy.out" >&2; fail "-r on a healthy primary: status $rc"; }
grep -q "tree blocks of the primary's generation kept unused" "$TEST_TMP/healthy.out" ||
	{ cat "$TEST_TMP/healthy.out" >&2; fail "the abandoned generation's blocks were not kept"; }
expect_all_clean "$img"
"$GHEE" check -r "$root" --format json "$img" > "$TEST_TMP/abandoned.json" 2>&1
python3 - "$TEST_TMP/abandoned.json" <<'PY' || { cat "$TEST_TMP/abandoned.json" >&2; fail "the abandoned generation was overwritten by the repair"; }
import json, sys
doc = json.load(open(sys.argv[1]))
codes = {m["code"] for p in doc.get("phases", []) for m in p.get("messages", [])
         if m.get("type") == "finding"}
# only the superblock's counter is of another generation
sys.exit(0 if doc.get("result") != "cannot-check" and codes <= {"SUPER_BYTES_USED"} else 1)
PY
exit 0
