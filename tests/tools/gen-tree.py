#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a deterministic test tree for mkfs --rootdir and image builders.

usage: gen-tree.py [options] DEST

The tree is planned from --seed alone; --order only changes the order in
which it is created (so two trees built with the same seed and different
orders differ in readdir order and inode numbers, and in nothing that a
copy keeps).  Contents:
  - regular files, sizes log-normal (median --median, heavy tail clipped at
    --max-size, the spread chosen so the expected total is --total-size),
    data random (incompressible), text-like (compressible) or with blocks
    of zeros inside; 2% empty files
  - sparse files: a hole at the start, in the middle, at the end, and only
    a hole
  - names of 255 bytes, UTF-8 names, a directory chain --depth deep
  - hard links (--hardlink-pct of the files) and one file with
    --many-links links spread over directories
  - symlinks (--symlink-pct): relative, absolute, dangling, long targets
  - fifos, unix sockets, character and block devices (root only)
  - xattrs (--xattr-pct of the paths) in user., trusted. (root) and
    security. (root), POSIX ACLs (access on files and directories, default
    on directories) and file capabilities (security.capability, v2)
  - owners (root only), modes incl. setuid/setgid/sticky, atime and mtime
    with nanoseconds; some times after 2030 for SOURCE_DATE_EPOCH clamping
Prints a summary of what it made.  Exit 0 on success.
"""

import argparse
import math
import os
import random
import socket
import stat
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import posix_acl  # noqa: E402

POOL_SIZE = 8 << 20


def parse_size(s):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    s = s.strip().upper().rstrip("B").rstrip("I")
    num = s.rstrip("KMGT")
    return int(float(num) * units[s[len(num):]])


class Plan:
    """Everything the tree holds, decided from the seed before anything is made."""

    def __init__(self, a):
        r = random.Random(a.seed)
        self.r = r
        self.a = a
        self.dirs = ["."]           # relative paths, parents before children
        self.files = []             # (path, size, kind, content seed)
        self.sparse = []            # (path, size, [(offset, length)])
        self.links = []             # (new path, existing path)
        self.symlinks = []          # (path, target)
        self.specials = []          # (path, "fifo"|"sock"|"chr"|"blk", rdev)
        self.meta = {}              # path -> (uid, gid, mode, atime_ns, mtime_ns)
        self.xattrs = {}            # path -> [(name, value)]
        self.names = {}             # dir -> set of names used
        self.plan_dirs()
        self.plan_files()
        self.plan_special()
        self.plan_meta()

    def new_name(self, d, stem):
        used = self.names.setdefault(d, set())
        name = stem
        while name in used:
            name = "%s-%d" % (stem, self.r.randrange(1 << 30))
        used.add(name)
        return name if d == "." else d + "/" + name

    def plan_dirs(self):
        a, r = self.a, self.r
        ndirs = max(1, a.files // a.files_per_dir)
        for i in range(ndirs):
            parent = r.choice(self.dirs[-50:] if r.random() < 0.5 else self.dirs)
            self.dirs.append(self.new_name(parent, "d%05d" % i))
        # a deep chain
        d = self.dirs[-1]
        for i in range(a.depth):
            d = self.new_name(d, "deep%02d" % i)
            self.dirs.append(d)
        self.deep_dir = d
        # a directory named with 255 bytes, and a UTF-8 one
        self.dirs.append(self.new_name(".", ("long-dir-" + "y" * 255)[:255]))
        self.dirs.append(self.new_name(".", "ünïcødé-dïr-✓"))

    def file_size(self):
        a, r = self.a, self.r
        size = int(math.exp(r.gauss(math.log(a.median), self.sigma)))
        return min(size, a.max_size)

    def plan_files(self):
        a, r = self.a, self.r
        mean = max(a.total_size / max(a.files, 1), a.median * 1.01)
        self.sigma = math.sqrt(2 * math.log(mean / a.median))
        nlinks = int(a.files * a.hardlink_pct / 100)
        nsyml = int(a.files * a.symlink_pct / 100)
        nregular = max(1, a.files - nlinks - nsyml - a.sparse)
        for i in range(nregular):
            d = r.choice(self.dirs)
            if i % 997 == 5:
                stem = ("f%06d-" % i + "x" * 255)[:255]
            elif i % 991 == 7:
                stem = "f%06d-ñámé-日本語" % i
            else:
                stem = "f%06d" % i
            size = 0 if r.random() < 0.02 else self.file_size()
            kind = r.choices(["random", "text", "zeros"], [60, 35, 5])[0]
            self.files.append((self.new_name(d, stem), size, kind, r.randrange(1 << 62)))
        # whatever the dice said: a file in the deepest directory, a 255-byte
        # name of 2-byte characters, the smallest and the largest sizes
        self.files.append((self.new_name(self.deep_dir, "bottom"), 1234, "text", 1))
        self.files.append((self.new_name(".", "é" * 127 + "x"), 100, "text", 2))
        for n, size in enumerate([1, 1, a.max_size, a.max_size // 2 + 1]):
            self.files.append((self.new_name(r.choice(self.dirs), "edge%d" % n), size,
                               "random" if n % 2 else "text", 3 + n))
        for i in range(a.sparse):
            size = r.choice([1 << 20, 5 << 20, 16 << 20, 64 << 20])
            size = min(size, max(a.max_size, 1 << 20))
            pattern = i % 4
            blk = 4096
            if pattern == 0:        # hole at the start
                extents = [(size - 3 * blk, 3 * blk)]
            elif pattern == 1:      # hole in the middle
                extents = [(0, 2 * blk), (size - 2 * blk - 100, 2 * blk + 100)]
            elif pattern == 2:      # hole at the end
                extents = [(0, 5 * blk + 17)]
            else:                   # only a hole
                extents = []
            if pattern == 1 and size > (8 << 20):
                extents.insert(1, (size // 2 + 12345, 70000))
            self.sparse.append((self.new_name(r.choice(self.dirs), "sparse%03d" % i),
                                size, extents))
        targets = [f[0] for f in self.files]
        for i in range(nlinks):
            self.links.append((self.new_name(r.choice(self.dirs), "hl%06d" % i),
                               r.choice(targets)))
        many = self.files[0][0]
        for i in range(a.many_links):
            self.links.append((self.new_name(r.choice(self.dirs), "many%04d" % i), many))
        for i in range(nsyml):
            d = r.choice(self.dirs)
            kind = i % 5
            if kind == 0:
                target = os.path.relpath(r.choice(targets), d)
            elif kind == 1:
                target = "/usr/share/" + "t" * r.randrange(1, 40)
            elif kind == 2:
                target = "dangling-%d" % i
            elif kind == 3:
                target = ("/long/" + "L" * 250 + "/") * (1 + r.randrange(min(11, a.max_symlink // 257)))
                target = target[:a.max_symlink]
            else:
                target = "."
            self.symlinks.append((self.new_name(d, "sl%06d" % i), target))

    def plan_special(self):
        r = self.r
        for i in range(max(2, self.a.files // 5000)):
            d = r.choice(self.dirs)
            self.specials.append((self.new_name(d, "fifo%d" % i), "fifo", 0))
            self.specials.append((self.new_name(d, "sock%d" % i), "sock", 0))
            self.specials.append((self.new_name(d, "chr%d" % i), "chr",
                                  os.makedev(r.choice([1, 4, 10, 136, 4095]), r.randrange(1 << 20))))
            self.specials.append((self.new_name(d, "blk%d" % i), "blk",
                                  os.makedev(r.choice([7, 8, 259, 4095]), r.randrange(1 << 20))))

    def random_time(self):
        r = self.r
        # mostly 2001-2030, some later (clamped by SOURCE_DATE_EPOCH users)
        hi = 4102444800 if r.random() < 0.05 else 1893456000
        return r.randrange(978307200, hi) * 1000000000 + r.randrange(1000000000)

    def plan_meta(self):
        r, a = self.r, self.a
        owners = [(0, 0), (1000, 1000), (65534, 65534), (12345, 54321), (0, 100)]
        paths = self.dirs + [f[0] for f in self.files] + [s[0] for s in self.sparse] + \
            [s[0] for s in self.specials]
        for p in paths:
            is_dir = p in self.dirs_set
            mode = r.choice([0o755, 0o700, 0o1777, 0o2755]) if is_dir else \
                r.choice([0o644, 0o600, 0o755, 0o444, 0o4755, 0o2711, 0o640])
            self.meta[p] = (r.choice(owners) if a.owners else None, mode,
                            self.random_time(), self.random_time())
        for p, _ in self.symlinks:
            self.meta[p] = (r.choice(owners) if a.owners else None, None,
                            self.random_time(), self.random_time())
        # (user. xattrs are for regular files and directories only)
        for p in paths[:len(paths) - len(self.specials)]:
            if r.random() * 100 >= a.xattr_pct:
                continue
            xs = [("user.gen.%d" % r.randrange(100), bytes(r.randrange(256) for _ in range(r.randrange(0, 80))))]
            if r.random() < 0.1:
                xs.append(("user.big", bytes(r.randrange(256) for _ in range(3000))))
            if a.privileged:
                xs.append(("trusted.gen", b"t" * r.randrange(1, 40)))
                xs.append(("security.gen", b"s%d" % r.randrange(1000)))
            self.xattrs[p] = xs
        # ACLs and capabilities on a few paths of each kind
        files = [f[0] for f in self.files if f[1] > 0]
        for p in r.sample(files, min(len(files), max(3, a.files // 500))):
            acl = [(posix_acl.USER_OBJ, 6, posix_acl.NO_ID), (posix_acl.USER, 4, 1000),
                   (posix_acl.GROUP_OBJ, 4, posix_acl.NO_ID), (posix_acl.GROUP, 6, 100),
                   (posix_acl.MASK, 6, posix_acl.NO_ID), (posix_acl.OTHER, 0, posix_acl.NO_ID)]
            self.xattrs.setdefault(p, []).append(("system.posix_acl_access", posix_acl.encode(acl)))
        for p in r.sample(self.dirs[1:], min(len(self.dirs) - 1, max(2, a.files // 2000))):
            acl = [(posix_acl.USER_OBJ, 7, posix_acl.NO_ID), (posix_acl.USER, 5, 12345),
                   (posix_acl.GROUP_OBJ, 5, posix_acl.NO_ID), (posix_acl.MASK, 5, posix_acl.NO_ID),
                   (posix_acl.OTHER, 5, posix_acl.NO_ID)]
            self.xattrs.setdefault(p, []).append(("system.posix_acl_default", posix_acl.encode(acl)))
        if a.privileged:
            for p in r.sample(files, min(len(files), max(2, a.files // 2000))):
                # VFS_CAP_REVISION_2 with the effective bit; cap_net_bind_service
                # (10) and cap_net_raw (13) permitted
                cap = struct.pack("<IIIII", 0x02000001, (1 << 10) | (1 << 13), 0, 0, 0)
                self.xattrs.setdefault(p, []).append(("security.capability", cap))

    @property
    def dirs_set(self):
        if not hasattr(self, "_dirs_set"):
            self._dirs_set = set(self.dirs)
        return self._dirs_set


class Maker:
    def __init__(self, plan, dest):
        self.p = plan
        self.dest = dest
        r = random.Random(plan.a.seed ^ 0x5eed)
        self.random_pool = r.randbytes(POOL_SIZE)
        words = [b"extent ", b"tree ", b"leaf ", b"node\n", b"btrfs ", b"sector ",
                 b"image ", b"rootdir ", b"0123 ", b"csum "]
        text = bytearray()
        while len(text) < POOL_SIZE:
            text += r.choice(words)
        self.text_pool = bytes(text[:POOL_SIZE])
        self.bytes = 0

    def path(self, rel):
        return self.dest if rel == "." else os.path.join(self.dest, rel)

    def content(self, size, kind, seed):
        """chunks of a file's bytes (unique per file: its seed leads)"""
        pool = self.text_pool if kind == "text" else self.random_pool
        r = random.Random(seed)
        head = seed.to_bytes(8, "little")
        pos = 0
        while pos < size:
            if kind == "zeros" and r.random() < 0.4:
                n = min(size - pos, r.choice([4096, 8192, 65536, 200000]))
                yield bytes(n)
            else:
                off = r.randrange(POOL_SIZE - 4096)
                n = min(size - pos, POOL_SIZE - off)
                chunk = pool[off:off + n]
                if pos == 0:
                    chunk = (head + chunk[8:])[:n]
                yield chunk
            pos += n

    def make_file(self, rel, size, kind, seed):
        fd = os.open(self.path(rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            for chunk in self.content(size, kind, seed):
                os.write(fd, chunk)
        finally:
            os.close(fd)
        self.bytes += size

    def make_sparse(self, rel, size, extents):
        fd = os.open(self.path(rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, size)
            for off, n in extents:
                os.pwrite(fd, self.random_pool[off % 4096:off % 4096 + n], off)
                self.bytes += n
        finally:
            os.close(fd)

    def make_special(self, rel, kind, rdev):
        path = self.path(rel)
        if kind == "fifo":
            os.mkfifo(path, 0o600)
        elif kind == "sock":
            # sun_path is short: bind relative to the socket's directory
            cwd = os.getcwd()
            os.chdir(os.path.dirname(path))
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(os.path.basename(path))
                s.close()
            finally:
                os.chdir(cwd)
        else:
            os.mknod(path, 0o600 | (stat.S_IFCHR if kind == "chr" else stat.S_IFBLK), rdev)

    def set_meta(self, rel, is_link=False):
        owner, mode, atime, mtime = self.p.meta[rel]
        path = self.path(rel)
        if owner:
            os.chown(path, owner[0], owner[1], follow_symlinks=False)
        # after chown, which drops capabilities and setuid bits
        for name, value in self.p.xattrs.get(rel, []):
            os.setxattr(path, name, value, follow_symlinks=False)
        if mode is not None and not is_link:
            os.chmod(path, mode)

    def set_times(self, rel):
        _, _, atime, mtime = self.p.meta[rel]
        os.utime(self.path(rel), ns=(atime, mtime), follow_symlinks=False)

    def ordered(self, items, key=lambda x: x[0]):
        order = self.p.a.order
        if order == "sorted":
            return sorted(items, key=key)
        if order == "reversed":
            return sorted(items, key=key, reverse=True)
        items = list(items)
        random.Random(self.p.a.order_seed).shuffle(items)
        return items

    def make(self):
        p = self.p
        os.makedirs(self.dest, exist_ok=True)
        # parents first; within a depth in the chosen order
        dirs = self.ordered([(d,) for d in p.dirs[1:]])
        dirs.sort(key=lambda x: x[0].count("/"))
        for (d,) in dirs:
            os.mkdir(self.path(d), 0o700)
        for rel, size, kind, seed in self.ordered(p.files):
            self.make_file(rel, size, kind, seed)
        for rel, size, extents in self.ordered(p.sparse):
            self.make_sparse(rel, size, extents)
        specials = [s for s in p.specials if p.a.privileged or s[1] in ("fifo", "sock")]
        for rel, kind, rdev in self.ordered(specials):
            self.make_special(rel, kind, rdev)
        for new, old in self.ordered(p.links):
            os.link(self.path(old), self.path(new))
        for rel, target in self.ordered(p.symlinks):
            os.symlink(target, self.path(rel))
        made = [f[0] for f in p.files] + [s[0] for s in p.sparse] + \
            [s[0] for s in specials]
        for rel in self.ordered([(x,) for x in made]):
            self.set_meta(rel[0])
        for rel, _ in p.symlinks:
            self.set_meta(rel, is_link=True)
        for rel in made + [s[0] for s in p.symlinks]:
            self.set_times(rel)
        # directories last, deepest first: making entries changes their mtime
        for d in sorted(p.dirs, key=lambda x: -x.count("/") if x != "." else 1):
            self.set_meta(d)
            self.set_times(d)
        return specials


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dest", help="directory to create (must not exist or be empty)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=20000, help="about this many paths")
    ap.add_argument("--total-size", type=parse_size, default=None,
                    help="expected data total (default 11.3 KiB a file)")
    ap.add_argument("--median", type=parse_size, default=2048, help="median file size")
    ap.add_argument("--max-size", type=parse_size, default=64 << 20, help="largest file")
    ap.add_argument("--files-per-dir", type=int, default=15)
    ap.add_argument("--depth", type=int, default=40, help="length of the deep chain")
    ap.add_argument("--sparse", type=int, default=None, help="sparse files (default files/2000, at least 4)")
    ap.add_argument("--hardlink-pct", type=float, default=2.0)
    ap.add_argument("--symlink-pct", type=float, default=3.0)
    ap.add_argument("--xattr-pct", type=float, default=3.0)
    ap.add_argument("--many-links", type=int, default=320, help="links of one file")
    ap.add_argument("--max-symlink", type=int, default=3000, help="longest symlink target")
    ap.add_argument("--order", choices=["sorted", "reversed", "shuffled"], default="sorted",
                    help="creation order (the tree is the same)")
    ap.add_argument("--order-seed", type=int, default=7, help="for --order shuffled")
    ap.add_argument("--no-owners", action="store_true", help="leave every path to the caller")
    a = ap.parse_args()
    if a.total_size is None:
        a.total_size = int(a.files * 11.3 * 1024)
    if a.sparse is None:
        a.sparse = max(4, a.files // 2000)
    a.privileged = os.geteuid() == 0
    a.owners = a.privileged and not a.no_owners
    if os.path.exists(a.dest) and os.listdir(a.dest):
        print("gen-tree: %s is not empty" % a.dest, file=sys.stderr)
        return 2
    plan = Plan(a)
    maker = Maker(plan, a.dest)
    specials = maker.make()
    print("gen-tree: %d dirs, %d files (%d bytes of data), %d sparse, %d hard links, "
          "%d symlinks, %d special files, %d paths with xattrs/ACLs/caps%s" % (
              len(plan.dirs), len(plan.files), maker.bytes, len(plan.sparse), len(plan.links),
              len(plan.symlinks), len(specials), len(plan.xattrs),
              "" if a.privileged else " (not root: no owners, devices, trusted./security.)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
