#!/bin/bash
# mkfs --rootdir ARCHIVE on archives written entry by entry (Python
# tarfile): directories after their children take their attributes;
# missing parents are made with mode 0755, owner 0:0 (or --root-owner)
# and the SOURCE_DATE_EPOCH time; a later entry for a path replaces the
# earlier one (as tar -x does), also across types; hard-link entries
# (also through "./" and to a later-replaced name) give one inode with
# the link count found; a leading '/' is removed with a warning;
# --inode-flags names a path of the archive.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_progs_version
need_loop
need_kernel_btrfs
need_tar_input

python3 - "$TEST_TMP/e.tar" <<'PY' || fail "cannot write the archive"
import io, sys, tarfile
tf = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)
def add(name, kind=tarfile.REGTYPE, data=b"", mode=0o644, uid=0, gid=0, mtime=1000000000, **kw):
    ti = tarfile.TarInfo(name)
    ti.type, ti.mode, ti.uid, ti.gid, ti.mtime = kind, mode, uid, gid, mtime
    for k, v in kw.items():
        setattr(ti, k, v)
    if kind == tarfile.REGTYPE:
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    else:
        tf.addfile(ti)
add("a/b/file", data=b"in a/b\n")
add("a/", tarfile.DIRTYPE, mode=0o700, uid=11, gid=12, mtime=1100000000)
add("a/b/", tarfile.DIRTYPE, mode=0o750, uid=13, gid=14, mtime=1200000000)
add("x/y/z", data=b"deep\n")
add("dup", data=b"first version, longer than the second\n", mode=0o600)
add("dup", data=b"second\n", mode=0o640, uid=5)
add("h1", data=b"linked\n" * 1000, mode=0o604, uid=21, gid=22)
add("h2", tarfile.LNKTYPE, linkname="h1")
add("a/h3", tarfile.LNKTYPE, linkname="./h1")
add("gone", data=b"replaced by a symlink\n")
add("gone", tarfile.SYMTYPE, linkname="h1")
add("/abs/file", data=b"absolute\n")
add("./dot/./file", data=b"dots\n")
tf.close()
PY
img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
export SOURCE_DATE_EPOCH=1300000000
new_image "$img" 256M
out=$("$GHEE" mkfs -q -f --root-owner 7:8 --inode-flags nodatacow:x/y/z \
	--rootdir "$TEST_TMP/e.tar" "$img" 2>&1) || { echo "$out" >&2; fail "mkfs failed"; }
echo "$out" | grep -q "leading '/' removed from member names (first: '/abs/file')" || fail "no warning about the leading '/': $out"
check_all "$img"
mount_image "$img" "$mnt" ro
st() { stat -c "$2" "$mnt/$1"; }
expect() { [ "$(st "$1" "$2")" = "$3" ] || { umount_image "$mnt"; fail "$1: $2 is $(st "$1" "$2"), expected $3"; }; }
expect a "%a %u:%g %Y" "700 11:12 1100000000"
expect a/b "%a %u:%g %Y" "750 13:14 1200000000"
expect x "%a %u:%g %Y" "755 7:8 1300000000"
expect x/y "%a %u:%g %Y" "755 7:8 1300000000"
expect . "%a %u:%g %Y" "755 7:8 1300000000"
expect dup "%a %u %s" "640 5 7"
[ "$(cat "$mnt/dup")" = second ] || fail "the later entry did not win"
expect h1 "%h %a %u:%g" "3 604 21:22"
[ "$(st h1 %i)" = "$(st h2 %i)" ] && [ "$(st h1 %i)" = "$(st a/h3 %i)" ] ||
	fail "the hard-link entries are not one inode"
expect gone "%F" "symbolic link"
[ "$(readlink "$mnt/gone")" = h1 ] || fail "the symlink that replaced a file is wrong"
[ "$(cat "$mnt/abs/file")" = absolute ] || fail "abs/file is missing"
[ "$(cat "$mnt/dot/file")" = dots ] || fail "dot/file is missing"
lsattr -d "$mnt/x/y/z" | cut -d' ' -f1 | grep -q C || fail "--inode-flags nodatacow:x/y/z not set"
# the walk order: the top entries sorted by name from 257 (h2 is h1)
want=$(printf '%s\n' "257 a" "258 abs" "259 dot" "260 dup" "261 gone" "262 h1" "262 h2" "263 x")
got=$(for n in a abs dot dup gone h1 h2 x; do echo "$(st "$n" %i) $n"; done)
umount_image "$mnt"
[ "$want" = "$got" ] || fail "inode numbers do not follow the sorted walk: $got"
no_spool_left
exit 0
