#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Device accounting of a kernel-written image, one damage at a time:
#  - SUPER_FIELD (device total_bytes alignment): the device item, its copy
#    in the superblock and the superblock's total_bytes made 100 bytes more
#    than a sector multiple below the size (a resize to an unaligned size
#    by an old tool; corpus image 028-unaligned-super-dev-sizes): the
#    device's size is rounded down and the superblock's total_bytes, the
#    sum of the devices, follows (btrfs check then has no warning left);
#  - DEV_EXTENT_NO_CHUNK: a dev extent no chunk uses, after the last one
#    (corpus image 068-orphan-dev-extent): it goes, and the device's
#    bytes_used is the length of the dev extents left, once with the
#    orphan counted in bytes_used (it shrinks) and once without
#    (DEV_BYTES_USED as well: nothing to change), in one transaction.
# The exact changes (the plan of --dry-run matches), clean for ghee check,
# btrfs check 6.2 and 6.19, the kernel reads every file back as before and
# a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3 sha256sum
need_loop
need_kernel_btrfs

ITEMS=$TOP/tests/fsck-tests/lib/fs-items.py

# repaired IMG CHANGE...: exactly these changes in one transaction
repaired()
{
	local img=$1

	shift
	expect_exact_repair "$img" "$@"
	grep -q '"transactions": *1,' "$TEST_TMP/repair.json" || fail "more than one transaction"
	expect_same_files "$img" "$TEST_TMP/sums.before"
}

img=$(fsck_base_image) || exit
file_sums "$img" "$TEST_TMP/sums.before" ro
cp --sparse=always "$img" "$TEST_TMP/base.img" || fail "cannot copy the image"
total=$(python3 "$EDIT" "$img" get-item 3 1 216 1 8 8) || fail "no device item"
[ $((total % 4096)) = 0 ] || fail "the device size is not aligned already"
bad=$((total - 3996))
python3 "$EDIT" "$img" set-item 3 1 216 1 8 8 $bad &&
	python3 "$EDIT" "$img" set-super 209 8 $bad &&
	python3 "$EDIT" "$img" set-super 112 8 $bad || fail "edit failed"
expect_codes "$img" SUPER_FIELD
grep -qF "[SUPER_FIELD] superblock: device total_bytes alignment (remainder) is 100, expected 0" "$TEST_TMP/check.out" ||
	fail "not the alignment finding"
repaired "$img" \
	"SUPER_FIELD | change chunk tree (DEV_ITEMS DEV_ITEM 1) total_bytes: $bad -> $((total - 4096))" \
	"SUPER_FIELD | change superblock total_bytes: $bad -> $((total - 4096))"
for off in 112 209; do
	[ "$(python3 "$EDIT" "$img" get-super $off 8)" = $((total - 4096)) ] ||
		fail "superblock field $off is not $((total - 4096))"
done
btrfs check --readonly "$img" 2>&1 | grep -i "unaligned\|mismatch" && fail "btrfs check 6.2 still warns"
echo "ok SUPER_FIELD"

# the dev extent: after the last one, for a chunk offset no chunk has
read -r end < <(python3 - "$TEST_TMP/base.img" "$EDIT" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
end = 0
for blk, slot, key, off, size in img.walk_leaves(img.tree_root(4)):
    if key[1] == 204:
        end = max(end, key[2] + struct.unpack_from('<Q', img.read_block(blk), 101 + off + 24)[0])
print(end)
PY
)
len=8388608
orphan=$(python3 -c 'import struct, sys
print((struct.pack("<QQQQ", 3, 256, 1 << 40, int(sys.argv[1])) + bytes(16)).hex())' $len)
used=$(python3 "$EDIT" "$TEST_TMP/base.img" get-item 3 1 216 1 16 8) || fail "no device item"
for counted in yes no; do
	img=$TEST_TMP/orphan-$counted.img
	cp --sparse=always "$TEST_TMP/base.img" "$img" || fail "cannot copy the image"
	python3 "$ITEMS" "$img" add 4 1 204 "$end" "$orphan" || fail "cannot add the dev extent"
	if [ $counted = yes ]; then
		python3 "$EDIT" "$img" add-item 3 1 216 1 16 8 $len || fail "edit failed"
		expect_codes "$img" DEV_EXTENT_NO_CHUNK
		repaired "$img" "DEV_EXTENT_NO_CHUNK | delete dev tree item (1 DEV_EXTENT $end)" \
			"DEV_EXTENT_NO_CHUNK | change chunk tree (DEV_ITEMS DEV_ITEM 1) bytes_used: $((used + len)) -> $used"
	else
		expect_codes "$img" DEV_EXTENT_NO_CHUNK DEV_BYTES_USED
		repaired "$img" "DEV_EXTENT_NO_CHUNK | delete dev tree item (1 DEV_EXTENT $end)" \
			"DEV_BYTES_USED | change nothing: right after the fixes before it"
	fi
	[ "$(python3 "$EDIT" "$img" get-item 3 1 216 1 16 8)" = "$used" ] || fail "bytes_used is not $used"
	echo "ok DEV_EXTENT_NO_CHUNK, bytes_used counted it: $counted"
done
exit 0
