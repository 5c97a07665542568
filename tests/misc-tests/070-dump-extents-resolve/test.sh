#!/bin/bash
# ghee dump-extents resolves owners like the kernel: on a kernel-written
# filesystem (DUP data and metadata; files created and deleted, hard links,
# reflinks, compression, nested subvolumes, snapshots changed afterwards,
# so keyed, shared and full back references all occur), a sample of ~300
# data extent addresses (extent starts and offsets inside extents) gives,
# offline, the same (subvolume, inode, offset) triples as the kernel's
# LOGICAL_INO (btrfs inspect-internal logical-resolve -P) and the same
# paths as inode-resolve; --inode/--subvol gives inode-resolve's paths and
# subvolid-resolve's subvolume path; every copy --logical names maps back
# with --physical, and holds the file's bytes.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3 chattr

img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
truncate -s 1G "$img"
mkfs.btrfs -q -f -d dup -m dup "$img" >/dev/null || fail "mkfs.btrfs failed"
mount_image "$img" "$mnt" noatime
bash "$TEST_DIR/make-fs.sh" "$mnt" "${GHEE_RESOLVE_FILES:-400}" ||
	fail "populating the filesystem failed"
umount_image "$mnt" || fail "umount failed"
btrfs check --readonly "$img" > "$TEST_TMP/check.log" 2>&1 ||
	fail "kernel image not clean: $(tail -5 "$TEST_TMP/check.log")"

# the whole filesystem resolves with no error and no unresolved owner
"$GHEE" dump-extents "$img" > "$TEST_TMP/all.txt" 2> "$TEST_TMP/all.err" ||
	fail "dump-extents failed: $(head -5 "$TEST_TMP/all.err")"
tail -n 1 "$TEST_TMP/all.txt" | grep -q ', 0 unresolved$' ||
	fail "unresolved owners: $(tail -n 1 "$TEST_TMP/all.txt")"
grep -q 'backref inline shared_data\|backref keyed shared_data' "$TEST_TMP/all.txt" ||
	fail "no shared data back reference: the image does not test them"
grep -q 'owner .* compressed' "$TEST_TMP/all.txt" || fail "no compressed extent"

python3 "$TEST_DIR/resolve.py" ghee "$GHEE" "$img" "$TEST_TMP/state.json" 300 ||
	fail "ghee side failed"
mount_image "$img" "$mnt" ro,noatime
python3 "$TEST_DIR/resolve.py" kernel "$img" "$mnt" "$TEST_TMP/state.json" ||
	fail "ghee and the kernel disagree"
umount_image "$mnt"

# a logical address outside every chunk, and a device offset outside every stripe
run_expect_status 1 "$GHEE" dump-extents --logical 1 "$img" 2> "$TEST_TMP/err1"
grep -q 'ERROR: logical address 1 is not inside any chunk' "$TEST_TMP/err1" ||
	fail "no clear error for an address outside every chunk: $(cat "$TEST_TMP/err1")"
run_expect_status 1 "$GHEE" dump-extents --physical 1:1 "$img" 2> "$TEST_TMP/err2"
grep -q 'not inside any chunk stripe' "$TEST_TMP/err2" ||
	fail "no clear error for a device offset outside every stripe"
run_expect_status 2 "$GHEE" dump-extents --inode 257 "$img" 2>/dev/null
echo "dump-extents agrees with the kernel"
