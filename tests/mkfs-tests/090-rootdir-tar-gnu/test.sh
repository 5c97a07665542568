#!/bin/bash
# mkfs --rootdir ARCHIVE with archives made by GNU tar: --format=posix
# with --xattrs --acls --sparse (ns times, every xattr namespace, ACLs,
# capabilities, sparse maps, 300+ hard links, devices, fifos, 255-byte
# names, deep paths) and --format=gnu (GNU sparse headers, seconds only,
# no xattrs): the three checks clean, the mounted image equals the archive
# (tree-compare.py reads the archive), holes stay holes, and after a
# read-write workload all checks are clean again.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_tar_input

src=$TEST_TMP/src
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
tar_tree "$src"
tar --xattrs --xattrs-include='*' --acls --sparse --format=posix -C "$src" \
	-cf "$TEST_TMP/posix.tar" . || fail "GNU tar --format=posix failed"
tar --sparse --format=gnu -C "$src" -cf "$TEST_TMP/gnu.tar" . || fail "GNU tar --format=gnu failed"

tar_roundtrip "$TEST_TMP/posix.tar" "$img" "$mnt"
# the sparse files are holes in the image, not zeros
dump=$(btrfs inspect-internal dump-tree -t 5 "$img")
ino=$(cd "$src" && LC_ALL=C ls -A | LC_ALL=C sort | grep -nx sparse-none | cut -d: -f1)
[ "$(echo "$dump" | grep -c "key ($((ino + 256)) EXTENT_DATA")" = 0 ] ||
	fail "a sparse entry of holes only got data extents"
workload "$img" "$mnt"

# GNU format: no atime in the archive (the image's is the mkfs time)
tar_roundtrip "$TEST_TMP/gnu.tar" "$img" "$mnt" --ignore-atime
exit 0
