#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --repair --init-uuid-tree: the uuid tree made again from the root items.
# A kernel-written image (top level, a subvolume and a snapshot) gets a
# uuid entry pointed at a root that does not exist (UUID_ITEM_STALE, the
# subvolume's entry then missing) and a received uuid on the subvolume
# with no entry for it (UUID_ITEM_MISSING).  The rebuild leaves exactly
# the entries the root items call for: the original ones and the
# received one; every checker is clean and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

# uuid_items IMG: "objectid type offset: subvol ids" of every uuid tree item
uuid_items()
{
	python3 - "$1" <<'PY'
import importlib.util, os, struct, sys
spec = importlib.util.spec_from_file_location("e", os.environ["EDIT"])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(9)):
    leaf = img.read_block(blk)
    ids = struct.unpack_from('<%dQ' % (size // 8), leaf, 101 + off)
    print('%d %d %d:' % key, ' '.join(str(i) for i in ids))
PY
}
export EDIT

img=$(fsck_base_image) || exit
uuid_items "$img" > "$TEST_TMP/items.orig" || fail "cannot read the uuid tree"
[ "$(wc -l < "$TEST_TMP/items.orig")" -ge 3 ] || { cat "$TEST_TMP/items.orig" >&2; fail "expected 3 uuid entries"; }

# a stale id in the first entry
read -r obj type off < <(python3 "$EDIT" "$img" first 9 251) || fail "no uuid subvol item"
python3 "$EDIT" "$img" set-item 9 "$obj" 251 "$off" 0 8 999 || fail "edit failed"
# a received uuid on subvolume 256 (received_uuid at 279 in the root item)
read -r _ _ _ _ _ _ roff < <(python3 "$EDIT" "$img" find 1 256 132) || fail "no root item 256"
python3 "$EDIT" "$img" set-item 1 256 132 "$roff" 279 8 0x1122334455667788 || fail "edit failed"
python3 "$EDIT" "$img" set-item 1 256 132 "$roff" 287 8 0x7766554433221100 || fail "edit failed"
finding_codes "$img" > "$TEST_TMP/codes"
grep -qx UUID_ITEM_STALE "$TEST_TMP/codes" && grep -qx UUID_ITEM_MISSING "$TEST_TMP/codes" ||
	{ cat "$TEST_TMP/codes" >&2; fail "expected UUID_ITEM_STALE and UUID_ITEM_MISSING"; }

"$GHEE" check --repair --init-uuid-tree --dry-run "$img" > "$TEST_TMP/plan.out" 2>&1
grep -q "would rebuild the uuid tree: $(($(wc -l < "$TEST_TMP/items.orig") + 1)) entries (1 received) from the root items" "$TEST_TMP/plan.out" ||
	{ cat "$TEST_TMP/plan.out" >&2; fail "the plan does not name the entries"; }

expect_repaired "$img" --init-uuid-tree
{ cat "$TEST_TMP/items.orig"; echo "1234605616436508552 252 8603657889541918976: 256"; } | sort > "$TEST_TMP/items.want"
uuid_items "$img" | sort > "$TEST_TMP/items.now"
diff "$TEST_TMP/items.want" "$TEST_TMP/items.now" >&2 || fail "the uuid tree is not what the root items call for"
expect_second_repair_noop "$img"
