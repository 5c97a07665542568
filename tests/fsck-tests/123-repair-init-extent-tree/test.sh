#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee check --repair --init-extent-tree on a kernel-written image (files,
# compression, reflinks, a NODATASUM and preallocated files, a two-level
# subvolume and its snapshot both changed, so one leaf is FULL_BACKREF).
# Undamaged, the rebuilt tree holds the kernel's items: every item at a
# key both trees have is identical (data extent generations aside: the
# file extent items do not always tell them), and the keys only one has are the
# blocks the commit itself copies (root, extent and free space trees).
# Damaged (a data extent's ref count, a tree block's backref root, the
# generation of the FULL_BACKREF leaf, a data backref's count, a block
# group's used, the whole tree unreadable), the
# rebuild gives the same tree, all three checkers call it clean, and the
# kernel mounts it, reads every file back, writes and unmounts clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/rebuild-lib.sh"
need_progs python3

base=$(rebuild_base_image) || exit
extent_items "$base" > "$TEST_TMP/base.items"
grep -q "FULL_BACKREF" "$TEST_TMP/base.items" || fail "the base image has no FULL_BACKREF block"

# rebuild IMG STATUS
rebuild()
{
	local img=$1 want=$2 rc

	"$GHEE" check --repair --init-extent-tree "$img" > "$TEST_TMP/rebuild.out" 2> "$TEST_TMP/rebuild.err"
	rc=$?
	_status_is_crash $rc && { cat "$TEST_TMP/rebuild.err" >&2; fail "the rebuild crashed"; }
	[ $rc -eq "$want" ] || { cat "$TEST_TMP/rebuild.out" "$TEST_TMP/rebuild.err" >&2; fail "rebuild: status $rc, expected $want"; }
	grep -q "rebuilt the extent tree" "$TEST_TMP/rebuild.out" || fail "no rebuild reported"
	grep -q "no error found after repair" "$TEST_TMP/rebuild.out" || fail "problems left after the rebuild"
}

# same_items IMG [TREE...]: the kernel's items, up to the blocks the commit
# copied (and those of the trees named, rewritten as well)
same_items()
{
	extent_items "$1" > "$TEST_TMP/new.items"
	shift
	python3 - "$TEST_TMP/base.items" "$TEST_TMP/new.items" "$@" <<'PY' || fail "the rebuilt extent tree differs from the kernel's"
import re, sys
# a data extent's generation is the transaction that allocated it; file
# extent items split later may all carry a newer one: not compared
def load(p):
    d = {}
    for line in open(p):
        k, _, v = line.rstrip("\n").partition("\t")
        if "EXTENT_ITEM" in k:
            v = re.sub(r" gen \d+", "", v)
        d[k] = v
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = 0
for k in sorted(set(a) & set(b)):
    if a[k] != b[k]:
        print("%s\n  kernel:  %s\n  rebuilt: %s" % (k, a[k], b[k]), file=sys.stderr); bad = 1
copied = tuple("root " + t for t in ["ROOT_TREE", "EXTENT_TREE", "FREE_SPACE_TREE"] + sys.argv[3:])
for k in sorted(set(a) ^ set(b)):
    v = a.get(k, b.get(k))
    if "METADATA_ITEM" not in k or not v.endswith(copied):
        print("only in one tree: %s %s" % (k, v), file=sys.stderr); bad = 1
sys.exit(bad)
PY
}

# undamaged
img=$TEST_TMP/same.img
cp --sparse=always "$base" "$img"
rebuild "$img" "$CHECK_CLEAN"
grep -q "(1 FULL_BACKREF)" "$TEST_TMP/rebuild.out" || { cat "$TEST_TMP/rebuild.out" >&2; fail "the FULL_BACKREF leaf is not found"; }
same_items "$img"
expect_data_clean "$img"

# damage: EDIT ARGS... on a fresh copy, then rebuild and compare
damaged()
{
	img=$TEST_TMP/damaged.img
	cp --sparse=always "$base" "$img"
	python3 "$EDIT" "$img" "$@" || fail "edit $* failed"
	"$GHEE" check -q "$img" > /dev/null 2>&1 && fail "edit $*: the damage is not seen"
	rebuild "$img" "$CHECK_CORRECTED"
	same_items "$img"
	expect_data_clean "$img"
}

read -r dobj _ doff < <(python3 "$EDIT" "$base" first 2 168) || fail "no data extent item"
read -r mobj _ moff < <(python3 "$EDIT" "$base" first 2 169) || fail "no metadata item"
fb=$(grep FULL_BACKREF "$TEST_TMP/base.items" | head -n1 | cut -d' ' -f1)
read -r bobj _ boff < <(python3 "$EDIT" "$base" first 2 192) || fail "no block group item"

damaged add-item 2 "$dobj" 168 "$doff" 0 8 1			# refs
damaged set-item 2 "$mobj" 169 "$moff" 25 8 12345		# backref root
damaged set-item 2 "$fb" 169 0 8 8 999999			# generation from the future
damaged add-item 2 "$dobj" 168 "$doff" 49 4 1			# data backref count
damaged add-item 2 "$bobj" 192 "$boff" 0 8 -4096		# block group used
expect_kernel_roundtrip "$img"

# the extent tree unreadable (its only leaf's checksum broken): rebuilt
# from nothing, block group items included
img=$TEST_TMP/unreadable.img
cp --sparse=always "$base" "$img"
leaf=$(python3 "$EDIT" "$img" leaf-of 2 "$dobj" 168 "$doff") || fail "no extent leaf"
python3 "$EDIT" "$img" break-csum "$leaf" || fail "edit failed"
rebuild "$img" "$CHECK_CORRECTED"
grep -q "old tree: 1 blocks kept" "$TEST_TMP/rebuild.out" || fail "the unreadable old root is not kept"
same_items "$img"
expect_data_clean "$img"
expect_kernel_roundtrip "$img"

# the dry run plans it and writes nothing
cp --sparse=always "$base" "$img"
"$GHEE" check --repair --dry-run --init-extent-tree "$img" > "$TEST_TMP/dry.out" 2>&1
grep -q "would rebuild the extent tree" "$TEST_TMP/dry.out" || fail "the dry run does not plan the rebuild"
cmp -s "$img" "$base" || fail "the dry run wrote"

# both rebuilds at once, both trees damaged, with an undo file: clean,
# and the undo puts the damaged image back byte for byte
img=$TEST_TMP/both.img
cp --sparse=always "$base" "$img"
python3 "$EDIT" "$img" add-item 2 "$dobj" 168 "$doff" 0 8 1 || fail "edit failed"
read -r obj type off < <(python3 "$EDIT" "$img" first 7 128) || fail "no csum item"
python3 "$EDIT" "$img" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 || fail "edit failed"
cp --sparse=always "$img" "$TEST_TMP/both-orig.img"
"$GHEE" check --repair --init-extent-tree --init-csum-tree --undo "$TEST_TMP/both.undo" "$img" > "$TEST_TMP/both.out" 2>&1
[ $? -eq "$CHECK_CORRECTED" ] || { cat "$TEST_TMP/both.out" >&2; fail "both rebuilds: unexpected status"; }
grep -q "rebuilt the extent tree" "$TEST_TMP/both.out" && grep -q "rebuilt the csum tree" "$TEST_TMP/both.out" ||
	fail "not both trees rebuilt"
same_items "$img" CSUM_TREE
expect_data_clean "$img"
"$GHEE" undo "$TEST_TMP/both.undo" "$img" > /dev/null 2> "$TEST_TMP/undo.err" || { cat "$TEST_TMP/undo.err" >&2; fail "undo failed"; }
cmp -s "$img" "$TEST_TMP/both-orig.img" || fail "the undo did not restore the damaged image"
