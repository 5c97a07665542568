#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# INODE_CACHE_DEPRECATED on corpus image 064-deprecated-inode-cache: no
# kernel since 5.11 writes the inode number cache (mount -o inode_cache is
# gone), so the damage test runs on the image that has one, in the top
# level and in 64 subvolumes (its free space header item, its inode item
# and, in the subvolumes, a file extent whose data extent it alone uses;
# the kernel refuses the image: a data ref of inode FREE_INO).  The repair
# deletes exactly those items from every tree and the data references of
# their extents (the checksums of the freed extents go with
# CSUM_NO_EXTENT, mkfs.btrfs's leftovers with FREE_SPACE_ORPHAN); the plan
# of --dry-run matches, ghee check, btrfs check 6.2 and 6.19 are clean, no
# item of the cache is left, the kernel mounts the result, lists every file
# and writes, and a second repair writes nothing.
# Then a tree with 102 items of the cache (the repair reads and deletes
# them a batch at a time; it used to give up past 64 with E2BIG): the
# inode item and free space header of 064's top level, and 100 hole
# extents of the cache inode, added to a new filesystem.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_corpus
need_progs python3 xz
need_loop
need_kernel_btrfs

img=$(corpus_copy 064-deprecated-inode-cache__4k_nodesize "$TEST_TMP/cache.img") || exit

# cache_items IMG: the changes that delete the cache of every tree, as
# the repair reports them
cache_items()
{
	python3 - "$1" "$EDIT" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("e", sys.argv[2])
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1])
FREE_INO, FREE_SPACE = 2**64 - 12, 2**64 - 11
names = {0: "UNTYPED", 1: "INODE_ITEM", 108: "EXTENT_DATA"}
roots = [k[0] for b, s, k, o, z in img.walk_leaves(img.tree_root(1))
         if k[1] == 132 and (k[0] == 5 or 256 <= k[0] < 2**64 - 256)]
for r in roots:
    for blk, slot, key, off, size in img.walk_leaves(img.tree_root(r)):
        if key[0] not in (FREE_INO, FREE_SPACE):
            continue
        print("INODE_CACHE_DEPRECATED | delete root %d item (%d %s %d)" %
              (r, key[0], names.get(key[1], key[1]), key[2]))
        if key[1] == 108:
            fe = img.read_block(blk)[101 + off:101 + off + size]
            if fe[20] != 0 and struct.unpack_from('<Q', fe, 21)[0]:
                bytenr, length = struct.unpack_from('<QQ', fe, 21)
                print("INODE_CACHE_DEPRECATED | delete extent tree: data ref of [%d %d] by root %d inode FREE_INO" %
                      (bytenr, length, r))
PY
}

cache_items "$img" | sort > "$TEST_TMP/expected"
[ "$(grep -c " delete root [0-9]* item (18446744073709551604 INODE_ITEM 0)$" "$TEST_TMP/expected")" = 65 ] ||
	fail "the image does not hold 65 inode caches"
finding_codes "$img" > "$TEST_TMP/codes"
grep -qx INODE_CACHE_DEPRECATED "$TEST_TMP/codes" || { cat "$TEST_TMP/codes" >&2; fail "no INODE_CACHE_DEPRECATED"; }
expect_plan_matches "$img"
expect_repaired "$img"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
grep "^INODE_CACHE_DEPRECATED " "$TEST_TMP/changes" > "$TEST_TMP/cache.changes"
compare_outputs "$TEST_TMP/expected" "$TEST_TMP/cache.changes" || fail "not the deletes of the caches"
python3 - "$TEST_TMP/repair.json" <<'PY' || fail "not the expected fixes"
import json, sys
doc = json.load(open(sys.argv[1]))
fixed = doc["fixed"]
sys.exit(0 if sorted(fixed) == ["CSUM_NO_EXTENT", "FREE_SPACE_ORPHAN", "INODE_CACHE_DEPRECATED"]
         and fixed["INODE_CACHE_DEPRECATED"] == 65 else 1)
PY
[ -z "$(cache_items "$img")" ] || fail "items of the inode cache are left"
expect_second_repair_noop "$img"

mount_image "$img" "$TEST_TMP/mnt"
n=$(find "$TEST_TMP/mnt" -xdev | wc -l) && echo new > "$TEST_TMP/mnt/after-repair" ||
	{ umount_image "$TEST_TMP/mnt"; fail "the kernel cannot use the repaired filesystem"; }
umount_image "$TEST_TMP/mnt"
[ "$n" -gt 1 ] || fail "the kernel lists nothing"
expect_all_clean "$img"

need_progs mkfs.btrfs
src=$(corpus_image 064-deprecated-inode-cache__4k_nodesize) || exit
img=$TEST_TMP/many.img
truncate -s 256M "$img" || fail "cannot create $img"
mkfs.btrfs -q -f -R ^free-space-tree "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
python3 - "$src" "$img" "$TOP/tests/fsck-tests/lib/fs-items.py" <<'PY' || fail "cannot add the cache items"
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("fs_items", sys.argv[3])
fi = importlib.util.module_from_spec(spec); spec.loader.exec_module(fi)
src, dst = fi.btrfs_edit.Image(sys.argv[1]), fi.btrfs_edit.Image(sys.argv[2])
FREE_INO, FREE_SPACE = 2**64 - 12, 2**64 - 11
for blk, slot, key, off, size in src.walk_leaves(src.tree_root(5)):
    if key[0] in (FREE_INO, FREE_SPACE):
        fi.insert(dst, 5, key, bytes(src.read_block(blk)[101 + off:101 + off + size]))
gen = struct.unpack_from('<Q', dst.sb, 72)[0]
# generation, ram_bytes, compression, encryption, other_encoding, type REG,
# disk_bytenr 0 (a hole), disk_num_bytes, offset, num_bytes
hole = struct.pack('<QQBBHBQQQQ', gen, 4096, 0, 0, 0, 1, 0, 0, 0, 4096)
for i in range(100):
    fi.insert(dst, 5, (FREE_INO, 108, i * 4096), hole)
PY
cache_items "$img" | sort > "$TEST_TMP/expected"
[ "$(wc -l < "$TEST_TMP/expected")" = 102 ] || fail "not 102 items of the cache"
[ "$(finding_codes "$img")" = INODE_CACHE_DEPRECATED ] || { finding_codes "$img" >&2; fail "not only INODE_CACHE_DEPRECATED"; }
mapfile -t lines < "$TEST_TMP/expected"
expect_exact_repair "$img" "${lines[@]}"
grep -qE '"transactions": *1,' "$TEST_TMP/repair.json" || fail "not repaired in one transaction"
[ -z "$(cache_items "$img")" ] || fail "items of the inode cache are left"
exit 0
