#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repair of the chunk, block group and device findings, each damaged alone
# on a fresh copy of a kernel-written image: a block group item removed
# (CHUNK_NO_BLOCK_GROUP: made again from the chunk, used counted from the
# extents); the item keyed with a wrong length (BLOCK_GROUP_NO_CHUNK:
# deleted, and the chunk's made again); its profile changed
# (BLOCK_GROUP_MISMATCH: the chunk's flags come back); a device extent
# removed (CHUNK_STRIPE_NO_DEV_EXTENT: made again from the chunk's stripe,
# the device's bytes_used stays); a device item claiming 1 MiB more than
# the image holds (DEV_TOTAL_BYTES: back to the image's size, the
# superblock's total_bytes with it); one claiming less than its dev
# extents need while the image holds them (DEV_EXTENT_BEYOND_DEVICE:
# total_bytes grows to the image's size).  The exact change is asserted,
# every checker is clean afterwards and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3
DEL=$TOP/tests/fsck-tests/lib/btrfs-del-item.py
export EDIT

check_fixed()
{
	local img=$1 code=$2 line=$3

	finding_codes "$img" > "$TEST_TMP/codes.before"
	grep -qx "$code" "$TEST_TMP/codes.before" || { cat "$TEST_TMP/codes.before" >&2; fail "$code not found"; }
	expect_plan_matches "$img"
	expect_repaired "$img"
	expect_change "$TEST_TMP/repair.json" "$line"
	expect_second_repair_noop "$img"
}

# the data block group: its item removed (the plan matches the repair
# across its phases: the superblock bytes_used and the group's free space
# entries are right once the item is back)
img=$(fsck_base_image) || exit
while read -r start type len; do
	flags=$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 16 8) || fail "read failed"
	[ $((flags & 1)) -eq 1 ] && break
done < <(python3 "$EDIT" "$img" first 2 192)
[ $((flags & 1)) -eq 1 ] || fail "the first block group is not a data one"
used=$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 0 8) || fail "read failed"
python3 "$DEL" "$img" 2 "$start" 192 "$len" || fail "edit failed"
check_fixed "$img" CHUNK_NO_BLOCK_GROUP \
	"CHUNK_NO_BLOCK_GROUP | insert block group item ($start BLOCK_GROUP_ITEM $len) flags $(printf 0x%x "$flags"), used: 0 -> $used"
[ "$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 0 8)" = "$used" ] || fail "used not restored"
[ "$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 16 8)" = "$flags" ] || fail "flags not restored"

# the same group's item keyed with twice its length: no chunk has it
# (BLOCK_GROUP_NO_CHUNK: deleted, its extents belong to the chunk) and the
# chunk has no item (made again)
img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" set-key 2 "$start" 192 "$len" "$start" 192 $((len * 2)) || fail "edit failed"
check_fixed "$img" BLOCK_GROUP_NO_CHUNK \
	"BLOCK_GROUP_NO_CHUNK | delete block group item ($start BLOCK_GROUP_ITEM $((len * 2)))"
expect_change "$TEST_TMP/repair.json" \
	"CHUNK_NO_BLOCK_GROUP | insert block group item ($start BLOCK_GROUP_ITEM $len) flags $(printf 0x%x "$flags"), used: 0 -> $used"
python3 "$EDIT" "$img" find 2 "$start" 192 $((len * 2)) > /dev/null 2>&1 && fail "the stray item is still there"

# the same group's item says DUP
img=$(fsck_base_image) || exit
python3 "$EDIT" "$img" set-item 2 "$start" 192 "$len" 16 8 $((flags | 32)) || fail "edit failed"
check_fixed "$img" BLOCK_GROUP_MISMATCH \
	"BLOCK_GROUP_MISMATCH | change block group item ($start BLOCK_GROUP_ITEM $len) flags: $((flags | 32)) -> $flags"
[ "$(python3 "$EDIT" "$img" get-item 2 "$start" 192 "$len" 16 8)" = "$flags" ] || fail "flags not restored"

# the data chunk's dev extent removed (the device's bytes_used stays: the
# plan sees the extent it restores)
img=$(fsck_base_image) || exit
phys=$(python3 "$EDIT" "$img" get-item 3 256 228 "$start" $((48 + 8)) 8) || fail "no chunk item"
slen=$(python3 "$EDIT" "$img" get-item 4 1 204 "$phys" 24 8) || fail "no dev extent at $phys"
python3 "$DEL" "$img" 4 1 204 "$phys" || fail "edit failed"
check_fixed "$img" CHUNK_STRIPE_NO_DEV_EXTENT \
	"CHUNK_STRIPE_NO_DEV_EXTENT | insert dev tree item (1 DEV_EXTENT $phys) chunk $start, length: 0 -> $slen"
[ "$(python3 "$EDIT" "$img" get-item 4 1 204 "$phys" 16 8)" = "$start" ] || fail "chunk_offset not restored"
repair_changes "$TEST_TMP/repair.json" | grep -q "^DEV_BYTES_USED | change chunk tree" &&
	fail "bytes_used was changed"

# the device item (and its superblock copy) 1 MiB larger than the image
img=$(fsck_base_image) || exit
size=$(stat -c %s "$img")
total=$(python3 "$EDIT" "$img" get-item 3 1 216 1 8 8) || fail "read failed"
[ "$total" = "$size" ] || fail "device total_bytes $total, image $size"
stotal=$(python3 "$EDIT" "$img" get-super 112 8)
python3 "$EDIT" "$img" set-item 3 1 216 1 8 8 $((total + 1048576)) || fail "edit failed"
python3 "$EDIT" "$img" set-super 209 8 $((total + 1048576)) || fail "edit failed"
python3 "$EDIT" "$img" set-super 112 8 $((stotal + 1048576)) || fail "edit failed"
check_fixed "$img" DEV_TOTAL_BYTES \
	"DEV_TOTAL_BYTES | change chunk tree (DEV_ITEMS DEV_ITEM 1) total_bytes: $((total + 1048576)) -> $total"
expect_change "$TEST_TMP/repair.json" \
	"DEV_TOTAL_BYTES | change superblock total_bytes: $((stotal + 1048576)) -> $stotal"
[ "$(python3 "$EDIT" "$img" get-super 209 8)" = "$total" ] || fail "superblock dev_item total_bytes not restored"

# the device item (and its copy) 1 MiB smaller than the end of the last
# dev extent, the image whole: total_bytes grows to the image's size again
img=$(fsck_base_image) || exit
end=$(python3 - "$img" <<'PY'
import importlib.util, os, struct, sys
spec = importlib.util.spec_from_file_location("e", os.environ["EDIT"])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
end = 0
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(4)):
    if key[1] == 204:
        leaf = img.read_block(blk)
        end = max(end, key[2] + struct.unpack_from('<Q', leaf, 101 + off + 24)[0])
print(end)
PY
) || fail "cannot read the dev extents"
[ "$end" -gt 2097152 ] && [ "$end" -le "$total" ] || fail "last dev extent ends at $end"
python3 "$EDIT" "$img" set-item 3 1 216 1 8 8 $((end - 1048576)) || fail "edit failed"
python3 "$EDIT" "$img" set-super 209 8 $((end - 1048576)) || fail "edit failed"
check_fixed "$img" DEV_EXTENT_BEYOND_DEVICE \
	"DEV_EXTENT_BEYOND_DEVICE | change chunk tree (DEV_ITEMS DEV_ITEM 1) total_bytes: $((end - 1048576)) -> $total"
[ "$(python3 "$EDIT" "$img" get-super 209 8)" = "$total" ] || fail "superblock dev_item total_bytes not restored"
[ "$(python3 "$EDIT" "$img" get-super 112 8)" = "$stotal" ] || fail "superblock total_bytes changed"
