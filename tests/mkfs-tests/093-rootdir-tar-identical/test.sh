#!/bin/bash
# An archive and its unpacked tree give byte-identical images
# (SOURCE_DATE_EPOCH and -U): the walk over the archive's index has the
# directory walk's order and inode numbers.  GNU tar unpacks (as root,
# -p --xattrs --acls) an archive without atimes (it sets atime to the
# unpack time, which the epoch clamps, as the archive's missing atime is);
# bsdtar unpacks its own archive (it restores atimes, but not the mtime of
# the top directory, which is set back by hand).  Also with -O ^no-holes.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_root
need_tar_input
need_progs sha256sum

src=$TEST_TMP/src
tar_tree "$src"
export SOURCE_DATE_EPOCH=1600000000
UUID=5d6e7f80-9a0b-4c1d-8e2f-3a4b5c6d7e8f

same()
{
	local archive=$1 dir=$2 a b

	shift 2
	rm -f "$TEST_TMP/a.img" "$TEST_TMP/d.img"
	"$GHEE" mkfs -q -U "$UUID" "$@" --rootdir "$archive" "$TEST_TMP/a.img" ||
		fail "mkfs --rootdir $archive failed"
	"$GHEE" mkfs -q -U "$UUID" "$@" --rootdir "$dir" "$TEST_TMP/d.img" ||
		fail "mkfs --rootdir $dir failed"
	a=$(sha256sum < "$TEST_TMP/a.img")
	b=$(sha256sum < "$TEST_TMP/d.img")
	if [ "$a" != "$b" ]; then
		diff <(btrfs inspect-internal dump-tree -t 5 "$TEST_TMP/a.img") \
		     <(btrfs inspect-internal dump-tree -t 5 "$TEST_TMP/d.img") | head -20 >&2
		fail "$archive and its unpacked tree give different images ($*)"
	fi
}

tar --xattrs --xattrs-include='*' --acls --sparse --format=posix \
	--pax-option=delete=atime,delete=ctime -C "$src" -cf "$TEST_TMP/gnu.tar" . ||
	fail "GNU tar failed"
mkdir "$TEST_TMP/gnu"
tar --xattrs --xattrs-include='*' --acls -xpf "$TEST_TMP/gnu.tar" -C "$TEST_TMP/gnu" ||
	fail "GNU tar -x failed"
same "$TEST_TMP/gnu.tar" "$TEST_TMP/gnu"
same "$TEST_TMP/gnu.tar" "$TEST_TMP/gnu" -O ^no-holes -n 4096

# a generated tree with many hard-link groups, symlinks, xattrs and
# non-ASCII names; with GHEE_LONG=1 more than the 16384 inodes after which
# the walk commits (the link counts are then set on committed leaves, whose
# copy-on-write order must not depend on host inode numbers)
python3 "$TOP/tests/tools/gen-tree.py" --files "$([ -n "${GHEE_LONG:-}" ] && echo 20000 || echo 3000)" --hardlink-pct 5 --no-owners \
	"$TEST_TMP/gen" > /dev/null || fail "gen-tree.py failed"
find "$TEST_TMP/gen" -type s -delete
tar --xattrs --xattrs-include='*' --acls --sparse --format=posix \
	--pax-option=delete=atime,delete=ctime -C "$TEST_TMP/gen" -cf "$TEST_TMP/gen.tar" . ||
	fail "GNU tar of the generated tree failed"
mkdir "$TEST_TMP/gen-un"
tar --xattrs --xattrs-include='*' --acls -xpf "$TEST_TMP/gen.tar" -C "$TEST_TMP/gen-un" 2>/dev/null ||
	fail "GNU tar -x of the generated tree failed"
same "$TEST_TMP/gen.tar" "$TEST_TMP/gen-un"

if command -v bsdtar >/dev/null; then
	bsdtar --xattrs --acls -C "$src" -cf "$TEST_TMP/bsd.tar" . || fail "bsdtar failed"
	mkdir "$TEST_TMP/bsd"
	bsdtar --xattrs --acls -xpf "$TEST_TMP/bsd.tar" -C "$TEST_TMP/bsd" || fail "bsdtar -x failed"
	touch -m -d @1400000000.999999999 "$TEST_TMP/bsd"
	same "$TEST_TMP/bsd.tar" "$TEST_TMP/bsd"
else
	echo "no bsdtar: its half skipped" >&2
fi
exit 0
