#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Deterministic content generators for the ghee test images.

Every workload writes the same names, sizes and bytes on every run (seeded
generators, fixed timestamps where it matters), so that images rebuilt on
another machine carry the same logical content.  Only what the kernel
chooses (inode generations, transids, block placement, uuids of subvolumes)
differs between runs.

Usage: populate.py WORKLOAD DIR [ARGS...]
"""

import fcntl
import os
import random
import socket
import stat
import struct
import sys

WORDS = ("btrfs extent inode leaf node chunk stripe device csum tree root "
         "subvolume snapshot qgroup balance reflink inline hole prealloc "
         "metadata data system generation transid bytenr offset key item "
         "the of and to a in is it that for on with as was at by").split()

FIXED_TIME = 1600000000  # 2020-09-13, any fixed value will do


def rng(seed):
    return random.Random(seed)


def text_bytes(seed, size):
    """Highly compressible but not trivially repetitive text."""
    r = rng(seed)
    out = bytearray()
    while len(out) < size:
        line = " ".join(r.choice(WORDS) for _ in range(r.randint(4, 14)))
        out += line.encode() + b"\n"
    return bytes(out[:size])


def random_bytes(seed, size):
    """Incompressible data."""
    return rng(seed).randbytes(size)


def write_file(path, data, mode=0o644, fsync=False):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def pwrite_file(path, chunks, fsync_each=False):
    """chunks: list of (offset, bytes); the file is not truncated."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for off, data in chunks:
            os.pwrite(fd, data, off)
            if fsync_each:
                os.fsync(fd)
    finally:
        os.close(fd)


def posix_acl(entries):
    """Encode a POSIX ACL xattr value (version 2, little endian)."""
    body = b"".join(struct.pack("<HHI", tag, perm, ident)
                    for tag, perm, ident in entries)
    return struct.pack("<I", 2) + body


ACL_UNDEF_ID = 0xffffffff
ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK, ACL_OTHER = \
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20

# FICLONERANGE = _IOW(0x94, 13, struct file_clone_range)
FICLONERANGE = 0x4020940d


def clone_range(src, dst, src_off, length, dst_off):
    sfd = os.open(src, os.O_RDONLY)
    dfd = os.open(dst, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        arg = struct.pack("<qQQQ", sfd, src_off, length, dst_off)
        fcntl.ioctl(dfd, FICLONERANGE, arg)
    finally:
        os.close(sfd)
        os.close(dfd)


def set_times(path):
    os.utime(path, (FIXED_TIME, FIXED_TIME), follow_symlinks=False)


# --------------------------------------------------------------- basic


def basic_sizes(d):
    os.makedirs(f"{d}/sizes")
    for name, size in (("empty", 0), ("one", 1), ("inline100", 100),
                       ("inline2000", 2000), ("page4k", 4096),
                       ("odd5000", 5000), ("mib1", 1 << 20),
                       ("mib10", 10 << 20)):
        write_file(f"{d}/sizes/{name}", random_bytes(name, size))
    # a file made of many small, separately committed extents
    pwrite_file(f"{d}/sizes/fragmented",
                [(i * 8192, random_bytes(f"frag{i}", 4096))
                 for i in range(64)], fsync_each=True)
    # cow overwrite in the middle of an extent: partially referenced extent
    write_file(f"{d}/sizes/overwritten", random_bytes("ow", 256 << 10),
               fsync=True)
    pwrite_file(f"{d}/sizes/overwritten",
                [(64 << 10, random_bytes("ow2", 16 << 10))])


def basic_tree(d):
    path = f"{d}/deep"
    for level in range(10):
        path = f"{path}/level{level}"
        os.makedirs(path)
        write_file(f"{path}/file{level}", text_bytes(f"deep{level}", 300))
    big = f"{d}/bigdir"
    os.makedirs(big)
    r = rng("bigdir")
    for i in range(2000):
        # mixed name lengths so dir items vary in size
        name = f"entry-{i:05d}-" + "x" * r.randint(0, 60)
        write_file(f"{big}/{name}", text_bytes(f"big{i}", r.choice((0, 10, 300))))
    os.makedirs(f"{big}/subdir-a")
    os.makedirs(f"{big}/subdir-b")


def basic_links(d):
    os.makedirs(f"{d}/links")
    os.chdir(f"{d}/links")
    write_file("target", b"symlink target\n")
    os.symlink("target", "short")
    os.symlink("../sizes/mib1", "relative")
    os.symlink("/nonexistent/" + "long-component/" * 200, "long")  # ~3 KiB
    os.symlink("dangling-" + "y" * 200, "dangling")
    os.symlink("../links", "dirlink")

    # ~200 hard links in one directory with long names: the refs do not fit
    # in one inode ref item, so extended refs are used
    write_file("many", b"one inode, many names\n")
    for i in range(200):
        os.link("many", f"many-link-{i:03d}-" + "n" * 180)
    # hard links across directories with long names
    write_file("cross", b"linked from many dirs\n")
    for i in range(20):
        sub = f"d{i:02d}"
        os.makedirs(sub)
        os.link("cross", f"{sub}/" + f"cross-{i:02d}-" + "c" * 230)
    os.chdir("/")


def basic_special(d):
    os.makedirs(f"{d}/special")
    os.chdir(f"{d}/special")
    os.mkfifo("fifo", 0o640)
    os.mknod("chardev", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod("blockdev", 0o600 | stat.S_IFBLK, os.makedev(7, 200))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("socket")
    s.close()
    write_file("setuid", b"#!/bin/sh\n", mode=0o4755)
    os.chmod("setuid", 0o4755)
    os.makedirs("sticky")
    os.chmod("sticky", 0o1777)
    write_file("owned", b"owned by 1000\n")
    os.chown("owned", 1000, 1000)
    for name in ("fifo", "chardev", "blockdev", "setuid", "owned"):
        set_times(name)
    os.chdir("/")


def basic_xattrs(d):
    os.makedirs(f"{d}/xattr")
    os.chdir(f"{d}/xattr")
    write_file("small", b"x\n")
    os.setxattr("small", "user.small", b"v")
    os.setxattr("small", "user.empty", b"")
    write_file("large", b"large xattr\n")
    os.setxattr("large", "user.large", random_bytes("xl", 8000))
    os.setxattr("large", "user.text", text_bytes("xt", 1000))
    write_file("many", b"many xattrs\n")
    for i in range(100):
        os.setxattr("many", f"user.attr{i:03d}", text_bytes(f"xa{i}", 40))
    write_file("security", b"security xattr\n")
    try:
        os.setxattr("security", "security.ghee", b"label")
    except OSError as e:
        print(f"populate: security.* xattr not set: {e}", file=sys.stderr)
    write_file("acl", b"acl\n")
    acl = posix_acl([(ACL_USER_OBJ, 6, ACL_UNDEF_ID), (ACL_USER, 4, 1000),
                     (ACL_GROUP_OBJ, 4, ACL_UNDEF_ID), (ACL_GROUP, 6, 100),
                     (ACL_MASK, 6, ACL_UNDEF_ID),
                     (ACL_OTHER, 0, ACL_UNDEF_ID)])
    os.setxattr("acl", "system.posix_acl_access", acl)
    os.makedirs("acldir")
    os.setxattr("acldir", "system.posix_acl_default", acl)
    write_file("acldir/inherits", b"inherits default acl\n")
    os.makedirs("xdir")
    os.setxattr("xdir", "user.on-a-dir", b"directory xattr")
    os.setxattr("small", "user.removed", b"gone soon")
    os.removexattr("small", "user.removed")
    os.chdir("/")


def basic_sparse(d):
    os.makedirs(f"{d}/sparse")
    os.chdir(f"{d}/sparse")
    pwrite_file("holes", [(0, random_bytes("h0", 4096)),
                          (1 << 20, random_bytes("h1", 8192)),
                          (5 << 20, random_bytes("h2", 4096))])
    fd = os.open("holes", os.O_WRONLY)
    os.ftruncate(fd, 8 << 20)  # trailing hole
    os.close(fd)
    pwrite_file("leading-hole", [(3 << 20, b"after a leading hole\n")])
    fd = os.open("only-hole", os.O_WRONLY | os.O_CREAT, 0o644)
    os.ftruncate(fd, 16 << 20)
    os.close(fd)
    # truncate down to the middle of an extent, and to zero then rewrite
    write_file("truncated", random_bytes("tr", 1 << 20), fsync=True)
    os.truncate("truncated", 300 * 1024 + 17)
    write_file("retruncated", random_bytes("rt", 64 << 10), fsync=True)
    os.truncate("retruncated", 0)
    pwrite_file("retruncated", [(0, b"rewritten after truncate\n")])
    os.chdir("/")


def basic_lifecycle(d):
    os.makedirs(f"{d}/life/a")
    os.makedirs(f"{d}/life/b")
    os.chdir(f"{d}/life")
    for i in range(50):
        write_file(f"a/tmp{i}", random_bytes(f"del{i}", 4096 * (i % 5)))
    os.sync()
    for i in range(0, 50, 2):
        os.unlink(f"a/tmp{i}")
    os.makedirs("gone/inner")
    write_file("gone/inner/f", b"removed\n")
    os.sync()
    os.unlink("gone/inner/f")
    os.rmdir("gone/inner")
    os.rmdir("gone")
    write_file("a/renamed-src", b"renamed across dirs\n")
    os.rename("a/renamed-src", "b/renamed-dst")
    write_file("a/over-src", b"new content\n")
    write_file("b/over-dst", b"old content that is replaced\n")
    os.rename("a/over-src", "b/over-dst")
    os.rename("a", "a-renamed")
    os.chdir("/")


def wl_basic(d):
    basic_sizes(d)
    basic_tree(d)
    basic_links(d)
    basic_special(d)
    basic_xattrs(d)
    basic_sparse(d)
    basic_lifecycle(d)


# ------------------------------------------------------------ compress


def wl_compress(d, phase):
    """One phase per mount option; each writes its own directory."""
    p = f"{d}/{phase}"
    os.makedirs(p)
    write_file(f"{p}/text-1m", text_bytes(f"{phase}-t", 1 << 20))
    write_file(f"{p}/random-1m", random_bytes(f"{phase}-r", 1 << 20))
    write_file(f"{p}/inline-text", text_bytes(f"{phase}-i", 3000))
    write_file(f"{p}/inline-tiny", text_bytes(f"{phase}-s", 200))
    # alternating compressible / incompressible 128 KiB chunks
    mixed = b"".join(text_bytes(f"{phase}-m{i}", 128 << 10) if i % 2 == 0
                     else random_bytes(f"{phase}-m{i}", 128 << 10)
                     for i in range(8))
    write_file(f"{p}/mixed", mixed)
    write_file(f"{p}/text-odd", text_bytes(f"{phase}-o", 300 * 1024 + 123))
    # overwrite part of a compressed extent
    pwrite_file(f"{p}/text-1m", [(200 << 10, text_bytes(f"{phase}-w", 4096))])


def wl_compress_attr(d):
    """Run on a mount without compress=: the inode flag does the work."""
    p = f"{d}/attr"
    os.chdir(p)
    write_file("chattr-c/text", text_bytes("cc", 512 << 10))
    write_file("chattr-c/random", random_bytes("cr", 256 << 10))
    write_file("chattr-c/inline", text_bytes("ci", 1500))
    write_file("prop-zstd/text", text_bytes("pz", 512 << 10))
    write_file("plain-text", text_bytes("pt", 256 << 10))
    os.chdir("/")


# --------------------------------------------------------- reflink/snap


def wl_reflink_data(d):
    os.makedirs(f"{d}/data")
    os.chdir(f"{d}/data")
    write_file("src", random_bytes("src", 2 << 20), fsync=True)
    write_file("small", text_bytes("small", 1000))
    # partial clones: a middle range into a new file, and into the same
    # file at another offset
    clone_range("src", "partial", 512 << 10, 256 << 10, 0)
    clone_range("src", "partial", 0, 128 << 10, 1 << 20)
    write_file("self", random_bytes("self", 512 << 10), fsync=True)
    clone_range("self", "self", 0, 128 << 10, 1 << 20)
    os.chdir("/")


def wl_subvol_data(d, seed):
    write_file(f"{d}/file-{seed}", random_bytes(seed, 300 << 10))
    write_file(f"{d}/text-{seed}", text_bytes(seed, 2000))
    os.makedirs(f"{d}/dir-{seed}", exist_ok=True)
    for i in range(30):
        write_file(f"{d}/dir-{seed}/f{i}", text_bytes(f"{seed}{i}", 100 * i))


def wl_modify(d, seed):
    """Change a snapshot or its origin after the snapshot was taken."""
    for name in sorted(os.listdir(d)):
        p = f"{d}/{name}"
        if name.startswith("file-") and os.path.isfile(p):
            pwrite_file(p, [(4096, random_bytes(seed, 8192))])
    write_file(f"{d}/new-{seed}", text_bytes(seed, 500))


# ----------------------------------------------------- generic filling


def wl_fill(d, seed, count, size, kind):
    os.makedirs(d, exist_ok=True)
    gen = text_bytes if kind == "text" else random_bytes
    for i in range(int(count)):
        write_file(f"{d}/{seed}-{i:04d}", gen(f"{seed}{i}", int(size)))


def wl_rootdir(d):
    """Small tree for mkfs --rootdir."""
    os.makedirs(f"{d}/dir/sub")
    write_file(f"{d}/inline", text_bytes("rd-inline", 200))
    write_file(f"{d}/empty", b"")
    write_file(f"{d}/data-64k", random_bytes("rd-64k", 64 << 10))
    write_file(f"{d}/dir/text", text_bytes("rd-text", 20000))
    write_file(f"{d}/dir/sub/deep", text_bytes("rd-deep", 50))
    pwrite_file(f"{d}/sparse", [(1 << 20, random_bytes("rd-sp", 4096))])
    os.symlink("dir/text", f"{d}/symlink")
    os.link(f"{d}/inline", f"{d}/dir/hardlink")
    os.setxattr(f"{d}/inline", "user.rootdir", b"xattr from rootdir")
    for p in ("inline", "empty", "data-64k", "dir/text", "dir/sub/deep",
              "sparse", "symlink", "dir/sub", "dir"):
        set_times(f"{d}/{p}")


def wl_mkfs_extra(d):
    """Written by the kernel on top of an mkfs image."""
    os.makedirs(f"{d}/kernel")
    write_file(f"{d}/kernel/data", random_bytes("mk-data", 1 << 20))
    write_file(f"{d}/kernel/inline", text_bytes("mk-inline", 700))
    pwrite_file(f"{d}/kernel/sparse", [(0, random_bytes("mk-sp0", 4096)),
                                       (2 << 20, random_bytes("mk-sp1", 4096))])
    fd = os.open(f"{d}/kernel/sparse", os.O_WRONLY)
    os.ftruncate(fd, 4 << 20)
    os.close(fd)
    for i in range(40):
        write_file(f"{d}/kernel/f{i:02d}", text_bytes(f"mk{i}", 50 * i))


# --------------------------------------------------------------- bench


def wl_bench(d, nfiles, ndirs):
    """Many small files for the dump-tree benchmark: mostly inline, every
    fourth 8 KiB (regular extent), every tenth with an xattr."""
    nfiles, ndirs = int(nfiles), int(ndirs)
    inline = text_bytes("bench-inline", 4096)
    big = random_bytes("bench-8k", 8192)
    per_dir = (nfiles + ndirs - 1) // ndirs
    os.makedirs(d, exist_ok=True)
    n = 0
    for i in range(ndirs):
        sub = f"{d}/d{i:04d}"
        os.mkdir(sub)
        for j in range(per_dir):
            if n >= nfiles:
                break
            p = f"{sub}/file-{j:04d}"
            if n % 4 == 3:
                data = big
            else:
                data = inline[:(n * 37) % 1500]
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            if data:
                os.write(fd, data)
            if n % 10 == 0:
                os.setxattr(fd, "user.bench", b"v%d" % n)
            os.close(fd)
            n += 1


WORKLOADS = {
    "basic": wl_basic,
    "compress": wl_compress,
    "compress-attr": wl_compress_attr,
    "reflink-data": wl_reflink_data,
    "subvol-data": wl_subvol_data,
    "modify": wl_modify,
    "fill": wl_fill,
    "rootdir": wl_rootdir,
    "mkfs-extra": wl_mkfs_extra,
    "bench": wl_bench,
}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in WORKLOADS:
        print(__doc__.strip(), file=sys.stderr)
        print("workloads: " + " ".join(sorted(WORKLOADS)), file=sys.stderr)
        return 2
    os.umask(0o022)
    WORKLOADS[sys.argv[1]](*sys.argv[2:])
    os.sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
