#!/bin/bash
# mkfs --rootdir with the defaults on a tree with every kind of file
# (sizes around the inline limit, sparse files, 300+ hard links with long
# names, xattrs of every namespace with ACLs and capabilities, symlinks,
# devices, fifos, sockets, deep paths, 255-byte names, ns times): all three
# checks clean, the mounted image equals the source, inode numbers follow
# the sorted walk from 257, and after a read-write workload (write,
# delete, snapshot, scrub, balance) everything is still clean.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"

roundtrip "$src" "$img" "$mnt"

# inode numbers: the top directory's entries sorted by name from 257
mount_image "$img" "$mnt" ro
want=$(cd "$src" && LC_ALL=C ls -A | LC_ALL=C sort | awk '{ print NR + 256 " " $0 }')
got=$(cd "$mnt" && LC_ALL=C ls -A | LC_ALL=C sort | while read -r n; do echo "$(stat -c %i -- "$n") $n"; done)
[ "$want" = "$got" ] || { diff <(echo "$want") <(echo "$got") >&2; umount_image "$mnt"; fail "inode numbers do not follow the sorted walk"; }
[ "$(stat -c %i "$mnt")" = 256 ] || fail "the top directory is not inode 256"
umount_image "$mnt"

# the data layout: large extents (two for 9 MiB where the first 8 MiB data
# chunk ends), inline where the kernel inlines, csums packed
dump=$(btrfs inspect-internal dump-tree -t 5 "$img")
nr_extents()
{
	local ino

	ino=$(cd "$src" && LC_ALL=C ls -A | LC_ALL=C sort | grep -nx "$1" | cut -d: -f1)
	echo "$dump" | grep -c "key ($((ino + 256)) EXTENT_DATA"
}
[ "$(nr_extents f9437307)" -le 2 ] || fail "a 9 MiB file took $(nr_extents f9437307) extents"
[ "$(nr_extents f1048576)" = 1 ] || fail "a 1 MiB file took $(nr_extents f1048576) extents"
[ "$(nr_extents sparse-none)" = 0 ] || fail "a file of holes has extents (no-holes)"
inl=$(echo "$dump" | grep -c "inline extent data size")
# f1 f100 f2047 f2048, the 255-byte name, deep leaf, xattrs, owned/f, link, longlink, dangling
[ "$inl" -ge 11 ] || fail "only $inl inline extents"
csums=$(btrfs inspect-internal dump-tree -t csum "$img" | grep -c "EXTENT_CSUM")
[ "$csums" -le 3 ] || fail "$csums csum items for about 20 MiB of data, expected a few"

# the JSON summary counts what was copied (and -v adds nothing to stdout)
new_image "$TEST_TMP/j.img" 512M
"$GHEE" mkfs -q -f -v -v --format json --rootdir "$src" "$TEST_TMP/j.img" > sum.json ||
	fail "mkfs --format json failed"
python3 - sum.json "$src" <<'PY' || fail "the JSON summary is wrong"
import json, os, stat, sys
r = json.load(open(sys.argv[1]))["rootdir"]
files = set()
for root, dirs, names in os.walk(sys.argv[2]):
    for n in names:
        st = os.lstat(os.path.join(root, n))
        if stat.S_ISREG(st.st_mode):
            files.add(st.st_ino)
assert r["files"] == len(files), (r["files"], len(files))
assert r["extra_hard_links"] == 321, r
assert r["extents"] > 0 and r["inline_extents"] > 0 and r["bytes"] > 10 << 20, r
PY
rm -f "$TEST_TMP/j.img"

workload "$img" "$mnt"
exit 0
