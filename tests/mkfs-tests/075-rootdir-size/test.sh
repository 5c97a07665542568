#!/bin/bash
# Sizing for --rootdir: a missing image file (no -b) is created with the
# size the pre-scan computes; an existing image file that is too small
# grows; --shrink truncates the image to the end of the last device
# extent (and is not bigger than mkfs.btrfs 6.19 --shrink makes it); a
# block device that is too small is refused before anything is written,
# with the size needed.  Sparse files count by their data.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"
# 300 MiB apparent, 1 MiB of data: must not make a filesystem that big
truncate -s 300M "$src/huge-sparse"
head -c 1M /dev/urandom | dd of="$src/huge-sparse" bs=1M seek=200 conv=notrunc status=none

rm -f "$img"
"$GHEE" mkfs -q -r "$src" "$img" || fail "mkfs of a missing image without -b failed"
size=$(stat -c %s "$img")
[ "$size" -lt $((250 * 1024 * 1024)) ] || fail "the sparse file was counted by its size: $size bytes"
check_all "$img"
mount_image "$img" "$mnt" ro
compare_tree "$src" "$mnt"
umount_image "$mnt"

new_image "$img" 1M
"$GHEE" mkfs -q -f -r "$src" "$img" || fail "mkfs of a too small image file failed"
[ "$(stat -c %s "$img")" = "$size" ] || fail "a 1 MiB image grew to $(stat -c %s "$img"), expected $size"
check_all "$img"

rm -f "$img"
"$GHEE" mkfs -q --shrink -r "$src" "$img" || fail "mkfs --shrink failed"
shrunk=$(stat -c %s "$img")
end=$(btrfs inspect-internal dump-tree -t dev "$img" |
      awk '/DEV_EXTENT/ { split($0, a, "DEV_EXTENT "); off = a[2] + 0 } /length/ { for (i = 1; i <= NF; i++) if ($i == "length") { e = off + $(i + 1); if (e > m) m = e } } END { print m }')
[ "$shrunk" = "$end" ] || fail "--shrink: image of $shrunk bytes, the last device extent ends at $end"
total=$(btrfs inspect-internal dump-super "$img" | awk '$1 == "total_bytes" { print $2 }')
[ "$total" = "$shrunk" ] || fail "--shrink: total_bytes $total, image $shrunk"
check_all "$img"
mount_image "$img" "$mnt" ro
compare_tree "$src" "$mnt"
umount_image "$mnt"
if [ -x "$PROGS619/mkfs.btrfs" ]; then
	new_image "$TEST_TMP/p.img" 2G
	"$PROGS619/mkfs.btrfs" -q -f --rootdir "$src" --shrink "$TEST_TMP/p.img" >/dev/null 2>&1 ||
		fail "mkfs.btrfs 6.19 --shrink failed"
	p=$(stat -c %s "$TEST_TMP/p.img")
	pa=$(du -B1 "$TEST_TMP/p.img" | cut -f1)
	ga=$(du -B1 "$img" | cut -f1)
	echo "--shrink: ghee $shrunk bytes ($ga allocated), mkfs.btrfs 6.19 $p bytes ($pa allocated)"
	[ "$shrunk" -le "$p" ] || fail "--shrink image bigger than mkfs.btrfs 6.19's"
	[ "$ga" -le "$pa" ] || fail "--shrink image allocates more than mkfs.btrfs 6.19's"
	rm -f "$TEST_TMP/p.img"
fi

# a block device too small: refused before any write
new_image "$TEST_TMP/dev.img" 160M
mkfs.btrfs -q -f "$TEST_TMP/dev.img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
dev=$(losetup --find --show "$TEST_TMP/dev.img") || fail "losetup failed"
at_exit "detach_file '$TEST_TMP/dev.img'"
before=$(sha256sum < "$TEST_TMP/dev.img")
big=$TEST_TMP/big
mkdir -p "$big"
head -c 120M /dev/zero > "$big/data"
out=$("$GHEE" mkfs -q -f -r "$big" "$dev" 2>&1)
rc=$?
[ $rc = 1 ] || fail "a too small block device: exit status $rc, expected 1"
echo "$out" | grep -qE "$dev is too small for --rootdir $big: [0-9]+ bytes, at least [0-9]+ needed" ||
	{ echo "$out" >&2; fail "no message with the size needed"; }
losetup -d "$dev"
[ "$(sha256sum < "$TEST_TMP/dev.img")" = "$before" ] || fail "the too small block device was written"
exit 0
