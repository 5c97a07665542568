#!/bin/bash
# mkfs --rootdir ARCHIVE --subvol: SUBDIR names a directory of the archive
# (also one the archive only implies, and nested subvolumes of every type,
# with -O quota).  The image is byte-identical to the one made from the
# unpacked tree with the same --subvol options (SOURCE_DATE_EPOCH, -U);
# the three checks are clean, the mounted top subvolume equals the
# archive, the subvolumes are where asked with the asked type, and after a
# read-write workload every check is clean again.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_root
need_progs_version
need_loop
need_kernel_btrfs
need_tar_input
need_progs sha256sum

src=$TEST_TMP/src
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
tar_tree "$src"
export SOURCE_DATE_EPOCH=1600000000
UUID=1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f
SUBVOLS=(-u d0/d1 -u ro:d0/d1/d2/d3 -u default:owned -u links)

tar --xattrs --xattrs-include='*' --acls --sparse --format=posix \
	--pax-option=delete=atime,delete=ctime -C "$src" -cf "$TEST_TMP/a.tar" . ||
	fail "GNU tar failed"
mkdir "$TEST_TMP/un"
tar --xattrs --xattrs-include='*' --acls -xpf "$TEST_TMP/a.tar" -C "$TEST_TMP/un" ||
	fail "GNU tar -x failed"

# same ARGS...: the archive and the unpacked tree give one image
same()
{
	local a b

	rm -f "$TEST_TMP/a.img" "$TEST_TMP/d.img"
	"$GHEE" mkfs -q -U "$UUID" "$@" --rootdir "$TEST_TMP/a.tar" "$TEST_TMP/a.img" ||
		fail "mkfs --rootdir a.tar $* failed"
	no_spool_left
	"$GHEE" mkfs -q -U "$UUID" "$@" --rootdir "$TEST_TMP/un" "$TEST_TMP/d.img" ||
		fail "mkfs --rootdir un $* failed"
	a=$(sha256sum < "$TEST_TMP/a.img")
	b=$(sha256sum < "$TEST_TMP/d.img")
	if [ "$a" != "$b" ]; then
		diff <(btrfs inspect-internal dump-tree "$TEST_TMP/a.img") \
		     <(btrfs inspect-internal dump-tree "$TEST_TMP/d.img") | head -20 >&2
		fail "the archive and its unpacked tree give different images ($*)"
	fi
}
same "${SUBVOLS[@]}"
same -O quota "${SUBVOLS[@]}" --compress zstd

# the image from the archive: checks, contents, subvolumes, workload
new_image "$img" 512M
ghee_mkfs -O quota "${SUBVOLS[@]}" --rootdir "$TEST_TMP/a.tar" "$img"
no_spool_left
check_all "$img"
mount_image "$img" "$mnt" "ro,subvolid=5"
tar_compare "$TEST_TMP/a.tar" "$mnt" --ignore-atime --subvol links --subvol owned --subvol d0/d1 \
	--subvol d0/d1/d2/d3
list=$(btrfs subvolume list "$mnt" | awk '{ print $2, $7, $9 }')
want="256 5 links
257 5 owned
258 5 d0/d1
259 258 d0/d1/d2/d3"
[ "$list" = "$want" ] || { echo "$list" >&2; fail "subvolumes: expected ids, parents and paths differ"; }
[ "$(btrfs property get "$mnt/d0/d1/d2/d3" ro)" = "ro=true" ] || fail "d0/d1/d2/d3 is not read-only"
[ "$(btrfs property get "$mnt/d0/d1" ro)" = "ro=false" ] || fail "d0/d1 is read-only"
# 320 names of links/target inside the subvolume, one outside: two inodes
[ "$(stat -c %h "$mnt/links/target")" = 321 ] || fail "the hard links inside links/ are not one inode of 321 names"
[ "$(stat -c %h "$mnt/link-elsewhere")" = 1 ] || fail "a hard link across a subvolume boundary was not split"
umount_image "$mnt"
mount_image "$img" "$mnt"
[ "$(stat -c %u:%g "$mnt/f")" = 1234:5678 ] || fail "the default subvolume (owned) is not what a plain mount shows"
umount_image "$mnt"
mount_image "$img" "$mnt" "subvolid=5"
before=$(btrfs qgroup show --raw "$mnt" | grep '^0/')
btrfs quota rescan -w "$mnt" >/dev/null || fail "quota rescan failed"
after=$(btrfs qgroup show --raw "$mnt" | grep '^0/')
umount_image "$mnt"
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") >&2; fail "qgroup numbers differ from a rescan"; }
workload "$img" "$mnt"

# a directory the archive only implies (no entry of its own) can be one
mkdir -p "$TEST_TMP/imp/x/y"
echo data > "$TEST_TMP/imp/x/y/file"
tar -C "$TEST_TMP/imp" -cf "$TEST_TMP/imp.tar" x/y/file || fail "tar of x/y/file failed"
new_image "$img" 256M
ghee_mkfs -u x/y --rootdir "$TEST_TMP/imp.tar" "$img"
check_all "$img"
mount_image "$img" "$mnt" ro
[ "$(btrfs subvolume list "$mnt" | awk '{ print $2, $9 }')" = "256 x/y" ] || fail "x/y is not a subvolume"
[ "$(cat "$mnt/x/y/file")" = data ] || fail "x/y/file lost"
umount_image "$mnt"
exit 0
