# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the --rootdir tests (after common.sh and mkfs-lib.sh):
# a small tree with every kind of file, a comparison of a source tree with
# a mounted image, the three checks, and a read-write workload.

PROGS619=/work/shared/tools/btrfs-progs-6.19

# rootdir_setup [PROG...]: the start of a --rootdir test that mounts its
# image: skipped without ghee, btrfs-progs, loop devices, the kernel's
# btrfs, python3 (make_tree, compare_tree) or PROG...; $src, $img and
# $mnt name places in TEST_TMP
rootdir_setup()
{
	need_ghee
	need_progs_version
	need_loop
	need_kernel_btrfs
	need_progs python3 "$@"
	src=$TEST_TMP/src
	img=$TEST_TMP/img
	mnt=$TEST_TMP/mnt
}

# make_tree DIR [reverse]: every kind of file btrfs stores; "reverse"
# creates the same tree in another order (other host inode numbers and
# readdir order)
make_tree()
{
	python3 - "$1" "${2:-}" <<'PY' || fail "cannot generate the tree in $1"
import os, socket, struct, sys
top, rev = sys.argv[1], sys.argv[2] == "reverse"
os.makedirs(top, exist_ok=True)
def acl(uid):
    # POSIX ACL xattr: version 2, then (tag, perm, id) entries
    e = [(1, 6, 0xffffffff), (2, 6, uid), (4, 4, 0xffffffff), (0x10, 6, 0xffffffff), (0x20, 4, 0xffffffff)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in e)
def data(n, seed):
    b = bytes((i * 131 + seed) & 0xff for i in range(min(n, 65536)))
    return (b * (n // max(len(b), 1) + 1))[:n]
def reg(p, n, seed=1):
    with open(p, "wb") as f:
        f.write(data(n, seed))
def sparse(p, size, ranges):
    with open(p, "wb") as f:
        f.truncate(size)
        for off, n in ranges:
            f.seek(off); f.write(data(n, off & 0xff))
steps = []
S = steps.append
for n in (1, 100, 2047, 2048, 2049, 3000, 4095, 4096, 4097, 65536, 1 << 20, (9 << 20) + 123):
    S(lambda n=n: reg(f"{top}/f{n}", n, n & 0xff))
S(lambda: open(f"{top}/empty", "w").close())
S(lambda: sparse(f"{top}/sparse-mid", 8 << 20, [(0, 4096), (5 << 20, 70000)]))
S(lambda: sparse(f"{top}/sparse-tail", 3 << 20, [(1 << 20, 4096)]))
S(lambda: sparse(f"{top}/sparse-none", 1 << 20, []))
S(lambda: sparse(f"{top}/sparse-small", 1500, []))
def deep():
    os.makedirs(f"{top}/" + "/".join(f"d{i}" for i in range(40)))
    reg(f"{top}/" + "/".join(f"d{i}" for i in range(40)) + "/leaf", 10)
S(deep)
S(lambda: reg(f"{top}/" + "n" * 255, 5))
S(lambda: os.symlink("f100", f"{top}/link"))
S(lambda: os.symlink("t" * 3000, f"{top}/longlink"))
S(lambda: os.symlink("/nonexistent/target", f"{top}/dangling"))
S(lambda: os.mkfifo(f"{top}/fifo"))
S(lambda: socket.socket(socket.AF_UNIX).bind(f"{top}/sock"))
S(lambda: os.mknod(f"{top}/chr", 0o20620, os.makedev(4, 64)))
S(lambda: os.mknod(f"{top}/blk", 0o60660, os.makedev(259, 70000)))
def links():
    os.makedirs(f"{top}/links", exist_ok=True)
    reg(f"{top}/links/target", 5000, 7)
    for i in range(320):
        os.link(f"{top}/links/target", f"{top}/links/" + ("%03d" % i) * 60)
    os.link(f"{top}/links/target", f"{top}/link-elsewhere")
S(links)
def xattrs():
    p = f"{top}/xattrs"
    reg(p, 10)
    os.setxattr(p, "user.one", b"1")
    os.setxattr(p, "user.empty", b"")
    os.setxattr(p, "user.big", b"v" * 3000)
    os.setxattr(p, "trusted.t", b"trusted value")
    os.setxattr(p, "security.capability", bytes.fromhex("0100000200200000000000000000000000000000"))
    os.setxattr(p, "system.posix_acl_access", acl(1000))
    os.makedirs(f"{top}/acldir", exist_ok=True)
    os.setxattr(f"{top}/acldir", "system.posix_acl_default", acl(1001))
    os.setxattr(f"{top}/acldir", "user.d", b"dir xattr")
    os.setxattr(f"{top}/link", "trusted.sym", b"on a symlink", follow_symlinks=False)
    os.setxattr(f"{top}/fifo", "trusted.fifo", b"on a fifo")
S(xattrs)
def owners():
    os.makedirs(f"{top}/owned", exist_ok=True)
    reg(f"{top}/owned/f", 3)
    os.chown(f"{top}/owned/f", 1234, 5678)
    os.chmod(f"{top}/owned/f", 0o4751)
    os.chown(f"{top}/owned", 42, 43)
    os.chmod(f"{top}/owned", 0o1770)
S(owners)
if rev:
    steps.reverse()
    # the hard links, xattrs and owners need their targets
    steps = [s for s in steps if s not in (links, xattrs, owners)] + [links, xattrs, owners]
for s in steps:
    s()
os.setxattr(top, "user.top", b"top directory")
os.chmod(top, 0o750)
# times with nanoseconds, the same in both orders, directories last
for root, dirs, files in os.walk(top, topdown=False):
    for i, n in enumerate(sorted(files + dirs)):
        t = 1500000000 * 10**9 + (len(n) * 7919 + i) * 1000003
        os.utime(os.path.join(root, n), ns=(t + 17, t), follow_symlinks=False)
os.utime(top, ns=(1400000000 * 10**9 + 5, 1400000000 * 10**9 + 999999999))
PY
}

# compare_tree SRC MNT [UID:GID [ROOTUID:ROOTGID]] [tree-compare options]:
# every path alike, with tests/tools/tree-compare.py (type, mode, owner,
# size, sha256, ns mtime and atime, xattrs, hard-link groups, symlink
# targets, rdev, hole map; not the atimes of symlinks, which reading them
# moves on the source); zero differences or the test fails
compare_tree()
{
	local src=$1 mnt=$2 args=()

	shift 2
	if [ $# -gt 0 ] && [[ $1 != -* ]]; then
		[ -n "$1" ] && args+=(--owner "$1")
		shift
		if [ $# -gt 0 ] && [[ $1 != -* ]]; then
			args+=(--root-owner "$1")
			shift
		fi
	fi
	# the mkfs run read the source's symlinks, which moved their atimes
	python3 "$TOP/tests/tools/tree-compare.py" --max-diffs 20 --ignore-symlink-atime \
		"${args[@]}" "$@" \
		"$src" "$mnt" >&2 || fail "the image differs from $src"
}

# check_all IMG: btrfs check 6.2, btrfs check 6.19 and ghee check
# --check-data-csum all clean
check_all()
{
	local out

	check_image "$1"
	if [ -x "$PROGS619/btrfs" ]; then
		out=$("$PROGS619/btrfs" check "$1" 2>&1)
		echo "$out" | grep -q 'no error found' || { echo "$out" >&2; fail "btrfs check 6.19 of $1 is not clean"; }
	fi
	out=$("$GHEE" check -q --no-progress --check-data-csum "$1" 2>&1) ||
		{ echo "$out" >&2; fail "ghee check --check-data-csum of $1 is not clean"; }
}

# workload IMG MNT: read-write use by the kernel, then every check again
workload()
{
	local img=$1 mnt=$2

	mount_image "$img" "$mnt"
	{
		head -c 3M /dev/urandom > "$mnt/new-file" &&
		echo small > "$mnt/new-small" &&
		rm -f "$mnt/f4096" "$mnt/sparse-mid" &&
		btrfs subvolume snapshot "$mnt" "$mnt/snap" >/dev/null &&
		echo changed >> "$mnt/f100" &&
		sync &&
		btrfs scrub start -B "$mnt" >/dev/null &&
		btrfs balance start --full-balance "$mnt" >/dev/null 2>&1
	} || { umount_image "$mnt"; fail "the read-write workload on $img failed"; }
	umount_image "$mnt" || fail "umount failed"
	check_all "$img"
}

# roundtrip SRC IMG MNT MKFS-ARGS...: mkfs, checks, compare read-only;
# the image is 512 MiB (ROOTDIR_IMG_SIZE) so that a full balance has room
roundtrip()
{
	local src=$1 img=$2 mnt=$3

	shift 3
	new_image "$img" "${ROOTDIR_IMG_SIZE:-512M}"
	ghee_mkfs "$@" --rootdir "$src" "$img"
	check_all "$img"
	mount_image "$img" "$mnt" ro
	compare_tree "$src" "$mnt" ${COMPARE_OWNERS:-}
	umount_image "$mnt"
}
