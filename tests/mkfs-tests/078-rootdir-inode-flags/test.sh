#!/bin/bash
# mkfs --rootdir --inode-flags: nodatacow and nodatasum on a path and
# everything under it (not across a subvolume), the files without data
# checksums; other files keep theirs.  All checks clean (including ghee
# check --check-data-csum), lsattr shows C, the kernel takes writes.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_progs lsattr

src=$TEST_TMP/src
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
mkdir -p "$src/cow/sub" "$src/cow/vol" "$src/sum" "$src/plain"
head -c 200000 /dev/urandom > "$src/cow/sub/a"
head -c 200000 /dev/urandom > "$src/cow/vol/v"
head -c 300000 /dev/urandom > "$src/sum/b"
head -c 400000 /dev/urandom > "$src/plain/c"
head -c 100000 /dev/urandom > "$src/one"

new_image "$img" 512M
ghee_mkfs --inode-flags nodatacow:cow --inode-flags nodatasum:sum/ \
	--inode-flags nodatacow,nodatasum:one -u cow/vol --rootdir "$src" "$img"
check_all "$img"
# only plain/c and the subvolume's file have checksums: 400000 + 200000 bytes
sums=$(btrfs inspect-internal dump-tree -t csum "$img" | awk '/length/ { n += $NF } END { print n }')
[ "$sums" = $((401408 + 200704)) ] || fail "checksummed $sums bytes, expected those of plain/c and cow/vol/v"
mount_image "$img" "$mnt"
for f in cow cow/sub cow/sub/a one; do
	lsattr -d "$mnt/$f" | grep -q '^[^ ]*C' || fail "$f is not nodatacow"
done
for f in cow/vol cow/vol/v sum/b plain/c; do
	lsattr -d "$mnt/$f" | grep -q '^[^ ]*C' && fail "$f is nodatacow"
done
cmp "$src/cow/sub/a" "$mnt/cow/sub/a" || fail "cow/sub/a differs"
head -c 100000 /dev/urandom | dd of="$mnt/cow/sub/a" conv=notrunc status=none || fail "overwrite failed"
sync
umount_image "$mnt"
check_all "$img"

run_expect_status 2 "$GHEE" mkfs -q -f --inode-flags compress:one --rootdir "$src" "$img" 2> err.out
grep -q "unknown flag 'compress'" err.out || fail "an unknown flag is not refused"
run_expect_status 2 "$GHEE" mkfs -q -f --inode-flags nodatacow:missing --rootdir "$src" "$img" 2> err.out
grep -q "missing" err.out || fail "a missing path is not refused"
exit 0
