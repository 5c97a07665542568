#!/bin/bash
# mkfs --rootdir ARCHIVE on bad input: a truncated archive (plain and
# gzip), garbage (file and stdin), a path with a ".." component (refused,
# not sanitized: tar -x skips such members, an image builder should not
# silently lose files) and a hard link to a path not in the archive each
# fail with a message that names the problem, before anything is written:
# the target stays what it was (no filesystem on it), and no spool is left
# (--subvol paths the archive lacks: mkfs-tests/085).
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_tar_input
need_progs gzip

img=$TEST_TMP/img

# refused ARCHIVE-OR-- MESSAGE [MKFS-ARGS...] (stdin as given)
refused()
{
	local archive=$1 msg=$2 out

	shift 2
	new_image "$img" 256M
	out=$("$GHEE" mkfs -q -f "$@" --rootdir "$archive" "$img" 2>&1) &&
		fail "mkfs --rootdir $archive $* succeeded"
	echo "$out" | grep -qF -- "$msg" || fail "mkfs --rootdir $archive: no message '$msg' in: $out"
	[ "$(head -c 128K "$img" | tr -d '\0' | wc -c)" = 0 ] ||
		fail "mkfs --rootdir $archive wrote to the target"
	no_spool_left
}

mkdir "$TEST_TMP/src"
head -c 300000 /dev/urandom > "$TEST_TMP/src/big"
echo small > "$TEST_TMP/src/small"
tar -C "$TEST_TMP/src" -cf "$TEST_TMP/good.tar" big small
head -c 200000 "$TEST_TMP/good.tar" > "$TEST_TMP/trunc.tar"
refused "$TEST_TMP/trunc.tar" "Truncated tar archive"
gzip -c "$TEST_TMP/good.tar" | head -c 100000 > "$TEST_TMP/trunc.tar.gz"
refused "$TEST_TMP/trunc.tar.gz" "--rootdir $TEST_TMP/trunc.tar.gz"

head -c 20000 /dev/urandom > "$TEST_TMP/garbage"
refused "$TEST_TMP/garbage" "is not a directory nor a tar archive"
refused - "--rootdir - is not a directory nor a tar archive" < "$TEST_TMP/garbage"

python3 - "$TEST_TMP" <<'PY' || fail "cannot write the archives"
import io, sys, tarfile
def archive(path, *members):
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        for name, kind, link in members:
            ti = tarfile.TarInfo(name)
            ti.type = kind
            ti.linkname = link
            tf.addfile(ti, io.BytesIO(b""))
archive(sys.argv[1] + "/dotdot.tar", ("ok", tarfile.REGTYPE, ""),
        ("a/../../etc/evil", tarfile.REGTYPE, ""))
archive(sys.argv[1] + "/badlink.tar", ("ok", tarfile.REGTYPE, ""),
        ("l", tarfile.LNKTYPE, "missing"))
PY
refused "$TEST_TMP/dotdot.tar" "'a/../../etc/evil': a path with a '..' component is refused"
refused "$TEST_TMP/badlink.tar" "hard link to 'missing', which is not in the archive before it"

# the good archive works, and from stdin too
new_image "$img" 256M
ghee_mkfs --rootdir "$TEST_TMP/good.tar" "$img"
check_image "$img"
ghee_mkfs --rootdir - "$img" < "$TEST_TMP/good.tar"
check_image "$img"
no_spool_left
exit 0
