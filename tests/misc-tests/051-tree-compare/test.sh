#!/bin/bash
# Self-test of the tree tools (tests/tools/gen-tree.py, tree-compare.py):
# a generated tree (every kind of path, xattrs, ACLs, capabilities, sparse
# files, 300+ links) on a btrfs mounted noatime is copied with cp -a onto
# a second btrfs made by mkfs.btrfs; tree-compare must find 0 differences,
# also against a tar archive of the tree; then one change at a time to the
# copy (an mtime off by 1 ns, an xattr added, one byte changed with the
# times kept, a block of zeros punched to a hole) must be reported as
# exactly that difference, and the hole only without --zero-holes.  The
# same seed in another creation order must give a tree with 0 differences.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs mkfs.btrfs python3 cp tar fallocate setfattr

TOOLS=$TOP/tests/tools
src=$TEST_TMP/src
dst=$TEST_TMP/dst
truncate -s 1G "$TEST_TMP/src.img" "$TEST_TMP/dst.img"
mkfs.btrfs -q -f "$TEST_TMP/src.img" > /dev/null 2>&1 || fail "mkfs.btrfs src failed"
mkfs.btrfs -q -f "$TEST_TMP/dst.img" > /dev/null 2>&1 || fail "mkfs.btrfs dst failed"
mount_image "$TEST_TMP/src.img" "$src" noatime
mount_image "$TEST_TMP/dst.img" "$dst" noatime

python3 "$TOOLS/gen-tree.py" --seed 51 --files 800 --max-size 4M "$src/tree" ||
	fail "gen-tree failed"
cp -a "$src/tree/." "$dst/" || fail "cp -a failed"
sync

# compare: the differences, one per line (the summary goes to stderr)
compare() {
	python3 "$TOOLS/tree-compare.py" "$@" 2> "$TEST_TMP/summary"
}

out=$(compare "$src/tree" "$dst")
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] ||
	fail "cp -a copy: exit $rc, differences: $(head -20 <<< "$out")"
grep -q " 0 differences" "$TEST_TMP/summary" || fail "summary: $(cat "$TEST_TMP/summary")"
echo "cp -a copy: $(cat "$TEST_TMP/summary")"

# the source as a tar archive (PAX: ns times, xattrs, ACLs, sparse maps)
tar --format=posix --xattrs --xattrs-include='*' --acls --sparse --numeric-owner \
	-C "$src/tree" -cf "$TEST_TMP/tree.tar" . 2> "$TEST_TMP/tar.log" ||
	fail "tar failed: $(cat "$TEST_TMP/tar.log")"
# (tar keeps no sockets)
excl=()
while read -r s; do excl+=(--exclude "$s"); done < <(cd "$dst" && find . -type s)
out=$(compare "${excl[@]}" "$TEST_TMP/tree.tar" "$dst")
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] ||
	fail "tar archive vs copy: exit $rc, differences: $(head -20 <<< "$out")"
echo "tar archive: $(cat "$TEST_TMP/summary")"

# expect_only WHAT REGEX [OPTIONS]: exactly one difference, matching REGEX
expect_only() {
	local what=$1 re=$2

	shift 2
	out=$(compare "$@" "$src/tree" "$dst")
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc, expected 1 (output: $out)"
	[ "$(wc -l <<< "$out")" -eq 1 ] || fail "$what: more than one difference: $out"
	grep -qE "$re" <<< "$out" || fail "$what: unexpected difference: $out"
	echo "$what: $out"
}

# pick the paths to change: a plain file, a file without holes that has an
# aligned block of zeros
read -r f_plain f_zero zero_off < <(python3 - "$dst" <<'PY'
import os, sys
top = sys.argv[1]
plain = zero = None
off = -1
for d, dirs, files in sorted(os.walk(top)):
    dirs.sort()
    for n in sorted(files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        if not os.path.isfile(p) or os.path.islink(p) or st.st_nlink != 1:
            continue
        if plain is None and st.st_size > 100:
            plain = p
        if zero is None and st.st_size >= 3 * 4096:
            fd = os.open(p, os.O_RDONLY)
            sparse = os.lseek(fd, 0, os.SEEK_HOLE) < st.st_size
            os.close(fd)
            if sparse:
                continue
            with open(p, "rb") as f:
                data = f.read()
            for o in range(4096, len(data) - 4096, 4096):
                if data[o:o + 4096] == bytes(4096):
                    zero, off = p, o
                    break
print(os.path.relpath(plain, top), os.path.relpath(zero, top), off)
PY
)
[ -n "$f_zero" ] && [ "$zero_off" -gt 0 ] || fail "no file with a zero block found"

# keep_times FILE CMD...: run CMD, then put FILE's atime and mtime back
keep_times() {
	local f=$1

	shift
	python3 - "$f" "$@" <<'PY'
import os, subprocess, sys
f = sys.argv[1]
st = os.lstat(f)
subprocess.run(sys.argv[2:], check=True)
os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
PY
}

# 1. an mtime off by one nanosecond
python3 - "$dst/$f_plain" <<'PY'
import os, sys
st = os.lstat(sys.argv[1])
os.utime(sys.argv[1], ns=(st.st_atime_ns, st.st_mtime_ns + 1))
PY
expect_only "mtime +1 ns" "^$f_plain: mtime: source [0-9]+\.[0-9]{9}, copy [0-9]+\.[0-9]{9}$"
python3 - "$dst/$f_plain" <<'PY'
import os, sys
st = os.lstat(sys.argv[1])
os.utime(sys.argv[1], ns=(st.st_atime_ns, st.st_mtime_ns - 1))
PY

# 2. an xattr more
setfattr -n user.extra -v added "$dst/$f_plain" || fail "setfattr failed"
expect_only "xattr added" "^$f_plain: xattr user.extra: source missing, copy 'added'$"
setfattr -x user.extra "$dst/$f_plain" || fail "setfattr -x failed"

# 3. one byte changed, size and times kept
keep_times "$dst/$f_plain" python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(50)
    b = f.read(1)
    f.seek(50)
    f.write(bytes([b[0] ^ 0xff]))
' "$dst/$f_plain"
expect_only "one byte" "^$f_plain: content sha256: source [0-9a-f]{64}, copy [0-9a-f]{64}$"
keep_times "$dst/$f_plain" python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(50)
    b = f.read(1)
    f.seek(50)
    f.write(bytes([b[0] ^ 0xff]))
' "$dst/$f_plain"

# 4. a block of zeros punched to a hole: the content stays equal
keep_times "$dst/$f_zero" fallocate -p -o "$zero_off" -l 4096 "$dst/$f_zero"
expect_only "hole punched" "^$f_zero: data ranges: source .*, copy .*$"
out=$(compare --zero-holes "$src/tree" "$dst") ||
	fail "--zero-holes still reports the punched zero block: $out"
echo "--zero-holes: the punched zero block is accepted"

# every change undone but the hole: nothing else is reported
out=$(compare --ignore-holes "$src/tree" "$dst") ||
	fail "after undoing the changes: $out"

# 5. one link of the file with 300+ links removed: the path and the group
many=$(cd "$dst" && find . -name 'many0007' | cut -c3-)
[ -n "$many" ] || fail "no many0007 link in the tree"
keep_times "$(dirname "$dst/$many")" rm "$dst/$many"
out=$(compare --ignore-holes "$src/tree" "$dst")
[ $? -eq 1 ] && [ "$(wc -l <<< "$out")" -eq 2 ] &&
	grep -qE "^$many: presence: source exists, copy missing$" <<< "$out" &&
	grep -qE ": hard links: source 321 paths .*, copy 320 paths " <<< "$out" ||
	fail "link removed: unexpected report: $out"
echo "link removed: $(tr '\n' '|' <<< "$out")"

# the same seed created in another order: the same tree
umount_image "$dst"
mkfs.btrfs -q -f "$TEST_TMP/dst.img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$TEST_TMP/dst.img" "$dst" noatime
python3 "$TOOLS/gen-tree.py" --seed 51 --files 800 --max-size 4M --order shuffled \
	"$dst/tree" > /dev/null || fail "gen-tree --order shuffled failed"
out=$(compare "$src/tree" "$dst/tree")
rc=$?
[ $rc -eq 0 ] || fail "shuffled creation order: exit $rc, differences: $(head -20 <<< "$out")"
[ "$(stat -c %i "$src/tree/$f_plain")" != "$(stat -c %i "$dst/tree/$f_plain")" ] ||
	echo "note: the same inode number for $f_plain in both orders"
echo "shuffled creation order: $(cat "$TEST_TMP/summary")"

# owner mapping and the SOURCE_DATE_EPOCH rule: the copy made the way
# --owner 4242:4243 --root-owner 7:8 and a clamp at 1500000000 would make it
epoch=1500000000
python3 - "$dst/tree" "$epoch" <<'PY' || fail "cannot remap the copy"
import os, sys
top, clamp = sys.argv[1], int(sys.argv[2]) * 10**9
paths = [top]
for d, dirs, files in os.walk(top):
    paths += [os.path.join(d, n) for n in dirs + files]
for p in paths:
    os.chown(p, *((7, 8) if p == top else (4242, 4243)), follow_symlinks=False)
# (chown drops capabilities and setuid bits: put them back)
src = sys.argv[1].replace("/dst/", "/src/")
for p in paths:
    s = os.path.join(src, os.path.relpath(p, top))
    if not os.path.islink(p):
        os.chmod(p, os.lstat(s).st_mode & 0o7777)
    if os.path.isfile(p) and not os.path.islink(p):
        for name in os.listxattr(s, follow_symlinks=False):
            if name == "security.capability":
                os.setxattr(p, name, os.getxattr(s, name))
for p in sorted(paths, key=lambda x: -x.count("/")):
    st = os.lstat(p)
    os.utime(p, ns=(min(st.st_atime_ns, clamp), min(st.st_mtime_ns, clamp)),
             follow_symlinks=False)
PY
out=$(compare --owner 4242:4243 --root-owner 7:8 --clamp-time "$epoch" "$src/tree" "$dst/tree")
rc=$?
[ $rc -eq 0 ] || fail "--owner/--root-owner/--clamp-time: exit $rc: $(head -5 <<< "$out")"
out=$(compare --owner 4242:4243 --clamp-time "$epoch" "$src/tree" "$dst/tree")
[ "$out" = ".: owner: source 4242:4243, copy 7:8" ] ||
	fail "without --root-owner: expected only the top directory's owner, got: $(head -5 <<< "$out")"
n=$(compare --owner 4242:4243 --root-owner 7:8 "$src/tree" "$dst/tree" | grep -c 'time: ')
[ "$n" -gt 0 ] || fail "without --clamp-time the clamped times are not reported"
echo "--owner, --root-owner, --clamp-time: 0 differences; $n time differences without the clamp"
exit 0
