#!/bin/bash
# mkfs --rootdir --reflink on a scratch btrfs (loop-mounted) that holds
# both the tree and the image file: the data of the files is cloned
# (FICLONERANGE) to the image offsets of their extents, so the image
# shares those host extents (btrfs filesystem du: "Set shared"); the
# checksums are still those of the data, all checks are clean, the kernel
# reads the same tree and takes a workload.  With the tree on another
# filesystem, a note says the data is copied and the image is the same.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_progs python3 mkfs.btrfs

host=$TEST_TMP/host
mnt=$TEST_TMP/mnt
truncate -s 2G "$TEST_TMP/host.img" || fail "cannot create the scratch image"
mkfs.btrfs -q -f "$TEST_TMP/host.img" || fail "mkfs.btrfs of the scratch filesystem failed"
mount_image "$TEST_TMP/host.img" "$host"
src=$host/src
img=$host/img
make_tree "$src"
head -c 3M /dev/urandom > "$src/random-3m"
head -c $((1048576 + 123)) /dev/urandom > "$src/random-tail"
sync

# json_field FIELD: from the JSON summary in out.json
json_field()
{
	python3 -c 'import json, sys; print(json.load(open("out.json"))["rootdir"][sys.argv[1]])' "$1"
}

export SOURCE_DATE_EPOCH=1600000000
UUID=7d1e2c3b-4a5f-4e6d-9c8b-0a1b2c3d4e5f
# reading symlinks and directories moves their atimes: a first build
# settles them (later than the epoch from then on)
for i in warm plain; do
	"$GHEE" mkfs -q -f -U $UUID --rootdir "$src" "$TEST_TMP/$i.img" -b 512M ||
		fail "mkfs without --reflink failed"
done

"$GHEE" mkfs -f -U $UUID --format json --reflink --rootdir "$src" "$img" -b 512M \
	> out.json 2> err.out || { cat err.out >&2; fail "mkfs --reflink failed"; }
grep -q "cannot clone" err.out && fail "--reflink did not clone on btrfs: $(cat err.out)"
cloned=$(json_field reflinked_bytes)
# f1048576, f9437307 (less its tail), random-3m, random-tail (less its tail), ...
[ "$cloned" -ge $((13 << 20)) ] || fail "only $cloned bytes cloned"
sync
shared=$(btrfs filesystem du -s --raw "$img" | awk 'NR == 2 { print $3 }')
[ "$shared" -ge "$cloned" ] || fail "the image shares $shared bytes with the tree, cloned $cloned"
cmp "$img" "$TEST_TMP/plain.img" || fail "the reflinked image differs from the written one"
check_all "$img"
mount_image "$img" "$mnt" ro
# the reads of the first builds moved atimes past the epoch
python3 "$TOP/tests/tools/tree-compare.py" -q --ignore-atime --clamp-time "$SOURCE_DATE_EPOCH" \
	"$src" "$mnt" || fail "the image differs from the source"
umount_image "$mnt"
workload "$img" "$mnt"
# the workload changed the image, not the tree it shares data with
"$GHEE" mkfs -q -f -U $UUID --rootdir "$src" "$TEST_TMP/again.img" -b 512M ||
	fail "mkfs without --reflink failed"
cmp "$TEST_TMP/again.img" "$TEST_TMP/plain.img" || fail "the source tree changed"

# the tree on another filesystem than the image: copied, with a note
mkdir -p "$TEST_TMP/other"
cp -a "$src/random-3m" "$TEST_TMP/other/" || fail "cannot copy a file"
"$GHEE" mkfs -f --format json --reflink --rootdir "$TEST_TMP/other" "$host/img2" -b 256M \
	> out.json 2> err.out || { cat err.out >&2; fail "mkfs --reflink across filesystems failed"; }
grep -q "cannot clone .* copying the data instead" err.out || fail "no note: $(cat err.out)"
[ "$(json_field reflinked_bytes)" = 0 ] || fail "cloned across filesystems"
check_all "$host/img2"
exit 0
