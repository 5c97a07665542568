#!/bin/bash
# mkfs --rootdir --subvol: rw, ro (nested in another subvolume), default
# and default-ro; with -O quota (a qgroup per subvolume, numbers checked by
# every checker and equal to a kernel rescan).  The whole tree (mounted at
# subvolid=5) equals the source; subvolumes are listed with their parents,
# read-only ones refuse writes, the default one is what a plain mount
# shows; the read-write workload leaves everything clean.  Bad --subvol
# arguments are refused.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"

new_image "$img" 512M
ghee_mkfs -O quota -u d0/d1 -u ro:d0/d1/d2/d3 -u default:owned -u acldir \
	--rootdir "$src" "$img"
check_all "$img"
mount_image "$img" "$mnt" "ro,subvolid=5"
compare_tree "$src" "$mnt"
list=$(btrfs subvolume list "$mnt" | awk '{ print $2, $7, $9 }')
# ids in walk order: the top directory's entries first, then d0's tree
want="256 5 acldir
257 5 owned
258 5 d0/d1
259 258 d0/d1/d2/d3"
[ "$list" = "$want" ] || { echo "$list" >&2; fail "subvolumes: expected ids, parents and paths differ"; }
[ "$(btrfs property get "$mnt/d0/d1/d2/d3" ro)" = "ro=true" ] || fail "d0/d1/d2/d3 is not read-only"
[ "$(btrfs property get "$mnt/d0/d1" ro)" = "ro=false" ] || fail "d0/d1 is read-only"
[ "$(stat -c %i "$mnt/d0/d1/d2")" = 257 ] || fail "inode numbers in a subvolume do not start at 257"
umount_image "$mnt"

mount_image "$img" "$mnt"
[ -f "$mnt/f" ] && [ "$(stat -c %u:%g "$mnt/f")" = 1234:5678 ] ||
	fail "the default subvolume (owned) is not what a plain mount shows"
umount_image "$mnt"

mount_image "$img" "$mnt" "subvolid=5"
touch "$mnt/d0/d1/d2/d3/new" 2>/dev/null && fail "a file was created in a read-only subvolume"
touch "$mnt/d0/d1/d2/new" || fail "cannot write in a read-write subvolume"
btrfs quota rescan -w "$mnt" >/dev/null || fail "quota rescan failed"
umount_image "$mnt"
check_all "$img"
workload "$img" "$mnt"

# the kernel's rescan gives the numbers mkfs wrote
new_image "$img" 512M
ghee_mkfs -O quota -u d0/d1 -u ro:d0/d1/d2/d3 -u default-ro:owned --rootdir "$src" "$img"
mount_image "$img" "$mnt" "subvolid=5"
before=$(btrfs qgroup show --raw "$mnt" | grep '^0/')
btrfs quota rescan -w "$mnt" >/dev/null || fail "quota rescan failed"
after=$(btrfs qgroup show --raw "$mnt" | grep '^0/')
[ "$(btrfs property get "$mnt/owned" ro)" = "ro=true" ] || fail "default-ro:owned is not read-only"
umount_image "$mnt"
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") >&2; fail "qgroup numbers differ from a rescan"; }

# refused: not inside DIR, not a directory, twice, two defaults
for bad in "../x" "f100" "missing" "/abs"; do
	run_expect_status 2 "$GHEE" mkfs -q -f -u "$bad" --rootdir "$src" "$img" 2> err.out
	grep -q -- "--subvol $bad" err.out || { cat err.out >&2; fail "no message for --subvol $bad"; }
done
run_expect_status 2 "$GHEE" mkfs -q -f -u acldir -u rw:acldir/ --rootdir "$src" "$img" 2> err.out
grep -q "given twice" err.out || fail "a repeated --subvol is not refused"
run_expect_status 2 "$GHEE" mkfs -q -f -u default:acldir -u default-ro:owned --rootdir "$src" "$img" 2> err.out
grep -q "at most one default" err.out || fail "two default subvolumes are not refused"
exit 0
