#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TREE_BLOCK_INVALID "first key mismatch": a node's key for a leaf is not
# the leaf's first key (ghee check; btrfs check 6.2 and 6.19: "Wrong key
# of child node/leaf").
# (a) the node's key lies between the last key of the leaf before and the
#     leaf's first key: every item of the leaf is in the range the node
#     gives it; the repair raises the node's key to the leaf's first key
#     (one change line), the dry run plans exactly that, ghee check, btrfs
#     check 6.2 and 6.19 are clean, a second repair writes nothing, the
#     kernel mounts it and reads every file as before the damage.
# (b) the node's key is the leaf's second key: its first item lies below
#     the range, where searches go to the leaf before it, and the dir index
#     it holds is missing to phase 7.  The repair refuses to change the key
#     and inserts nothing in the leaf's range (it used to insert that dir
#     index into the leaf before: a duplicate key), says why for both, and
#     leaves no more findings than it found, no new structural one.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 sha256sum

edit() { python3 "$EDIT" "$img" "$@" || fail "btrfs-edit.py $* failed"; }

# key OBJ TYPE OFF: "(OBJ NAME OFF)", as ghee prints it
key()
{
	local name

	case $2 in
	1) name=INODE_ITEM ;; 12) name=INODE_REF ;; 84) name=DIR_ITEM ;;
	96) name=DIR_INDEX ;; 108) name=EXTENT_DATA ;; *) name=$2 ;;
	esac
	echo "($1 $name $3)"
}

# no key twice in tree 5, every key above the one before it
expect_keys_in_order()
{
	python3 - "$EDIT" "$img" <<'PY' || fail "tree 5 has keys out of order or twice"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[1])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[2])
keys = [k for blk, slot, k, off, size in img.walk_leaves(img.tree_root(5))]
bad = [(a, b) for a, b in zip(keys, keys[1:]) if a >= b]
for a, b in bad[:5]:
    print("key %s then %s" % (a, b), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

img=$(fsck_base_image) || exit
file_sums "$img" "$TEST_TMP/sums.before" ro
root=$(edit parent-of 5 "$(edit leaf-of 5 256 1 0)" | cut -d' ' -f1)
[ "$(edit get-block "$root" 100 1)" -eq 1 ] || fail "tree 5 is not of level 1"
edit children "$root" > "$TEST_TMP/children"

# ---- (a) the node's key below the leaf's first key, above the leaf before ----
# a leaf whose first key has a free key just below it, after the leaf before
read -r slot leaf o t off < <(python3 - "$TEST_TMP/children" <<'PY'
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
for prev, row in zip(rows, rows[1:]):
    first, last_before = tuple(row[5:8]), tuple(prev[8:11])
    if first[2] > 0 and last_before < (first[0], first[1], first[2] - 1):
        print(row[0], row[1], *first)
        sys.exit(0)
sys.exit(1)
PY
) || fail "no leaf to damage"
edit set-ptr-key "$root" "$slot" "$o" "$t" $((off - 1))
expect_code_present "$img" TREE_BLOCK_INVALID \
	"block $leaf: tree block $leaf first key mismatch, wanted ($o $t $((off - 1))) found ($o $t $off)"
btrfs check --readonly "$img" > "$TEST_TMP/progs.out" 2>&1 &&
	fail "btrfs check 6.2 calls the damage clean"
grep -q "Wrong key of child node/leaf, wanted: ($o, $t, $((off - 1))), have: ($o, $t, $off)" \
	"$TEST_TMP/progs.out" || { cat "$TEST_TMP/progs.out" >&2; fail "btrfs check 6.2 does not see the damage"; }
expect_exact_repair "$img" \
	"TREE_BLOCK_INVALID | change tree 5 node $root slot $slot key $(key "$o" "$t" $((off - 1))) -> $(key "$o" "$t" "$off"), the first key of block $leaf"
expect_same_files "$img" "$TEST_TMP/sums.before"
echo "ok (a): the node's key raised to the leaf's first key"

# ---- (b) the node's key is the leaf's second key ----
img=$(fsck_base_image) || exit
# the last leaf that begins with two dir index items of one directory
read -r slot leaf o t off second < <(python3 - "$EDIT" "$img" "$TEST_TMP/children" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("edit", sys.argv[1])
edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edit)
img = edit.Image(sys.argv[2])
found = None
for l in open(sys.argv[3]):
    row = list(map(int, l.split()))
    if row[0] == 0:
        continue
    keys = [k for k, body in img.items(img.read_block(row[1]))[:2]]
    if len(keys) == 2 and keys[0][1] == keys[1][1] == 96 and keys[0][0] == keys[1][0]:
        found = (row[0], row[1], *keys[0], keys[1][2])
if not found:
    sys.exit(1)
print(*found)
PY
) || fail "no leaf to damage"
edit set-ptr-key "$root" "$slot" "$o" "$t" "$second"
expect_code_present "$img" TREE_BLOCK_INVALID \
	"tree block $leaf first key mismatch, wanted ($o $t $second) found ($o $t $off)"
grep -q "^ERROR: \[DIR_INDEX_MISSING\] root 5 dir $o: no dir index for .* (index $off)\$" "$TEST_TMP/check.out" ||
	fail "phase 7 does not miss the dir index the leaf holds below its range"
before=$(count_findings "$img" "$TEST_TMP/codes.before")
[ "$before" -gt 0 ] || fail "cannot count the findings"

"$GHEE" check --repair "$img" > "$TEST_TMP/refused.out" 2>&1
rc=$?
_status_is_crash $rc && { cat "$TEST_TMP/refused.out" >&2; fail "repair crashed (status $rc)"; }
[ $rc -eq "$CHECK_ERRORS" ] || { cat "$TEST_TMP/refused.out" >&2; fail "refused repair: status $rc"; }
grep -qF "  could not fix [TREE_BLOCK_INVALID] tree 5: block $leaf: tree block $leaf first key mismatch, wanted ($o $t $second) found ($o $t $off): key pointer not changed: the first key $(key "$o" "$t" "$off") of block $leaf lies below its parent's key $(key "$o" "$t" "$second")" \
	"$TEST_TMP/refused.out" || fail "the first key mismatch is not refused with its reason"
grep -q "^  could not fix \[DIR_INDEX_MISSING\] root 5 dir $o: no dir index for .* (index $off): key $(key "$o" "$t" "$off") lies in the range of unreadable block $leaf\$" \
	"$TEST_TMP/refused.out" || fail "the dir index is not refused with its reason"
expect_keys_in_order
after=$(count_findings "$img" "$TEST_TMP/codes.after")
[ "$after" -ge 0 ] && [ "$after" -le "$before" ] ||
	fail "the repair left $after findings, $before before it"
new=$(new_structural "$TEST_TMP/codes.before" "$TEST_TMP/codes.after")
[ -z "$new" ] || fail "the repair made new structural findings: $new"
echo "ok (b): refused, nothing inserted in the leaf's range ($before findings, $after after)"
exit 0
