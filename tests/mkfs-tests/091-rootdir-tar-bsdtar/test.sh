#!/bin/bash
# mkfs --rootdir ARCHIVE with archives made by bsdtar (libarchive-tools):
# its default restricted pax with --xattrs --acls (LIBARCHIVE.xattr and
# SCHILY.acl headers, sparse maps) and ustar: checks clean, the mounted
# image equals the archive.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_tar_input
need_progs bsdtar

src=$TEST_TMP/src
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
tar_tree "$src"
bsdtar --xattrs --acls -C "$src" -cf "$TEST_TMP/pax.tar" . || fail "bsdtar failed"
tar_roundtrip "$TEST_TMP/pax.tar" "$img" "$mnt"

# ustar: 8-byte octal sizes and 100-byte names cannot hold all of the
# tree; a part of it that fits
bsdtar --format=ustar -C "$src" -cf "$TEST_TMP/ustar.tar" f100 f65536 links/target \
	chr blk fifo link owned || fail "bsdtar --format=ustar failed"
tar_roundtrip "$TEST_TMP/ustar.tar" "$img" "$mnt" --ignore-atime
exit 0
