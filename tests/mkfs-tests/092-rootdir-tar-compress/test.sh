#!/bin/bash
# mkfs --rootdir ARCHIVE: the archive compressed with gzip, zstd, xz and
# bzip2, and the plain archive on stdin (--rootdir -), give images
# byte-identical to the plain archive's (SOURCE_DATE_EPOCH and -U); one of
# them is checked and compared with the archive.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_progs_version
need_tar_input
need_progs sha256sum gzip

src=$TEST_TMP/src
tar_tree "$src"
# without the two big files: compressing them is all the time it would take
tar --xattrs --xattrs-include='*' --acls --sparse --format=posix -C "$src" \
	--exclude=./f9437307 --exclude=./f1048576 -cf "$TEST_TMP/a.tar" . || fail "tar failed"
export SOURCE_DATE_EPOCH=1600000000
UUID=3b1f0c9e-2a4d-4e6f-8b7a-1c2d3e4f5a6b

build()
{
	local img=$1

	shift
	rm -f "$img"
	"$GHEE" mkfs -q -U "$UUID" "$@" "$img" || fail "mkfs $* failed"
	no_spool_left
}
build "$TEST_TMP/plain.img" --rootdir "$TEST_TMP/a.tar"
want=$(sha256sum < "$TEST_TMP/plain.img")
check_all "$TEST_TMP/plain.img"

for c in gzip zstd xz bzip2; do
	command -v "$c" >/dev/null || { echo "no $c: skipped" >&2; continue; }
	case $c in
	gzip) ext=gz ;; zstd) ext=zst ;; xz) ext=xz ;; bzip2) ext=bz2 ;;
	esac
	"$c" -1 -c < "$TEST_TMP/a.tar" > "$TEST_TMP/a.tar.$ext" || fail "$c failed"
	build "$TEST_TMP/$c.img" --rootdir "$TEST_TMP/a.tar.$ext"
	[ "$(sha256sum < "$TEST_TMP/$c.img")" = "$want" ] ||
		fail "the image from the $c archive differs from the plain archive's"
	rm -f "$TEST_TMP/$c.img"
done

# stdin, compressed and not
build "$TEST_TMP/stdin.img" --rootdir - < "$TEST_TMP/a.tar"
[ "$(sha256sum < "$TEST_TMP/stdin.img")" = "$want" ] || fail "the image from stdin differs"
gzip -c < "$TEST_TMP/a.tar" | { rm -f "$TEST_TMP/stdin.img"; "$GHEE" mkfs -q -U "$UUID" --rootdir - "$TEST_TMP/stdin.img"; } ||
	fail "mkfs --rootdir - from a gzip pipe failed"
[ "$(sha256sum < "$TEST_TMP/stdin.img")" = "$want" ] || fail "the image from a gzip pipe differs"

exit 0
