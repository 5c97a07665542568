#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare a source tree (a directory or a tar archive) with a copy of it
(typically the mount point of an image made from it), path by path.

usage: tree-compare.py [options] SOURCE COPY

Compared for every path: presence, file type, permission bits (not for
symlinks), uid/gid, size (regular files, symlinks), content (sha256),
symlink target, rdev (devices), mtime and atime to the nanosecond, every
xattr of every namespace (user., trusted., security. with capabilities,
system.posix_acl_access/_default), hard-link groups (the same paths linked
together, and the copy's link count equal to the links found in it), the
hole map (SEEK_DATA/SEEK_HOLE, block granular) and, with --attrs, the
inode flags lsattr shows.  ctime cannot be preserved and is not compared;
nor are directory sizes or link counts (file system specific).

Each difference is printed on one line as
    PATH: WHAT: source VALUE, copy VALUE
followed by a summary.  Exit status: 0 no difference, 1 differences,
2 usage or read errors.

Reading a file changes its atime unless the file system is mounted
noatime (this tool opens files and directories with O_NOATIME when it
may); compare atimes only when nothing read the source through a file
system that records them, or use --ignore-atime.  Symlinks cannot be read without moving
their atime (readlink has no O_NOATIME): --ignore-symlink-atime.

Tar input: .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz, .tar.zst (zstd(1)
needed); owners, modes, ns times of PAX headers, xattrs (SCHILY.xattr.*),
ACLs (SCHILY.acl.*, text form converted to the xattr encoding; an access
ACL that only repeats the mode is no xattr), hard links, devices and GNU
sparse maps as the archive records them.  Archives hold no sockets: give
the copy's with --exclude.
"""

import argparse
import errno
import fcntl
import hashlib
import io
import os
import stat
import struct
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import posix_acl  # noqa: E402

FS_IOC_GETFLAGS = 0x80086601
# inode flags both btrfs and most other file systems keep (lsattr letters)
ATTR_FLAGS = {
    0x00000008: "S",   # sync
    0x00000010: "i",   # immutable
    0x00000020: "a",   # append only
    0x00000040: "d",   # no dump
    0x00000080: "A",   # no atime
    0x00010000: "D",   # dirsync
    0x00800000: "C",   # no copy on write
}
ATTR_MASK = sum(ATTR_FLAGS)

TYPE_NAMES = {
    stat.S_IFREG: "file", stat.S_IFDIR: "directory", stat.S_IFLNK: "symlink",
    stat.S_IFCHR: "char device", stat.S_IFBLK: "block device",
    stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket",
}


class Entry:
    """What is compared of one path; content and holes are read on demand
    from the file (src: its path) or the tar member (src: (archive, member))."""
    __slots__ = ("ftype", "mode", "uid", "gid", "size", "mtime", "atime",
                 "rdev", "target", "xattrs", "link_key", "nlink", "flags",
                 "src", "sparse_map")

    NO_XATTRS = {}

    def __init__(self):
        self.target = None
        self.xattrs = Entry.NO_XATTRS
        self.rdev = 0
        self.flags = None
        self.src = None
        self.sparse_map = None

    def sha256(self):
        if isinstance(self.src, str):
            return file_sha256(self.src)
        tf, member = self.src
        h = hashlib.sha256()
        f = tf.extractfile(member)
        while True:
            buf = f.read(1 << 20)
            if not buf:
                break
            h.update(buf)
        return h.hexdigest()

    def data_ranges(self):
        if isinstance(self.src, str):
            return file_data_ranges(self.src, self.size)
        if self.sparse_map is not None:
            return self.sparse_map
        return [(0, self.size)] if self.size else []


def fmt_ns(ns):
    return "%d.%09d" % divmod(ns, 1000000000)


def fmt_bytes(b):
    if len(b) > 64:
        return "%s... (%d bytes)" % (b[:64].hex(), len(b))
    try:
        s = b.decode("ascii")
        if s.isprintable():
            return repr(s)
    except UnicodeDecodeError:
        pass
    return "0x" + b.hex()


def open_noatime(path, flags=os.O_RDONLY):
    try:
        return os.open(path, flags | os.O_NOATIME | os.O_NOFOLLOW)
    except PermissionError:
        # O_NOATIME needs ownership or CAP_FOWNER
        return os.open(path, flags | os.O_NOFOLLOW)


def list_dir_noatime(path):
    # reading a directory moves its atime too, unless opened O_NOATIME
    fd = open_noatime(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def file_sha256(path):
    h = hashlib.sha256()
    fd = open_noatime(path)
    try:
        while True:
            buf = os.read(fd, 1 << 20)
            if not buf:
                break
            h.update(buf)
    finally:
        os.close(fd)
    return h.hexdigest()


def file_data_ranges(path, size):
    """[(start, end)] of the data of a file, by SEEK_DATA/SEEK_HOLE."""
    ranges = []
    fd = open_noatime(path)
    try:
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:
                    break
                raise
            end = os.lseek(fd, start, os.SEEK_HOLE)
            ranges.append((start, min(end, size)))
            pos = end
    finally:
        os.close(fd)
    return ranges


def inode_flags(path, is_dir):
    try:
        fd = open_noatime(path, os.O_RDONLY | (os.O_DIRECTORY if is_dir else 0))
    except OSError:
        return None
    try:
        buf = fcntl.ioctl(fd, FS_IOC_GETFLAGS, b"\0" * 8)
        return struct.unpack("<I", buf[:4])[0] & ATTR_MASK
    except OSError:
        return None
    finally:
        os.close(fd)


def read_xattrs(path, errors):
    out = {}
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError as e:
        if e.errno not in (errno.ENOTSUP, errno.EPERM):
            errors.append("%s: listxattr: %s" % (path, e.strerror))
        return out
    for name in names:
        try:
            out[name] = os.getxattr(path, name, follow_symlinks=False)
        except OSError as e:
            errors.append("%s: getxattr %s: %s" % (path, name, e.strerror))
    return out


def scan_dir(top, want_attrs, errors):
    """relative path -> Entry for every path under top ('.' is top)."""
    entries = {}
    stack = ["."]
    while stack:
        rel = stack.pop()
        path = top if rel == "." else os.path.join(top, rel)
        try:
            st = os.lstat(path)
        except OSError as e:
            errors.append("%s: lstat: %s" % (path, e.strerror))
            continue
        e = Entry()
        e.ftype = stat.S_IFMT(st.st_mode)
        e.mode = stat.S_IMODE(st.st_mode)
        e.uid, e.gid = st.st_uid, st.st_gid
        e.size = st.st_size
        e.mtime, e.atime = st.st_mtime_ns, st.st_atime_ns
        e.nlink = st.st_nlink
        e.link_key = (st.st_dev, st.st_ino)
        if e.ftype in (stat.S_IFCHR, stat.S_IFBLK):
            e.rdev = st.st_rdev
        e.xattrs = read_xattrs(path, errors) or Entry.NO_XATTRS
        if e.ftype == stat.S_IFLNK:
            e.target = os.readlink(path)
        elif e.ftype == stat.S_IFREG:
            e.src = path
        if want_attrs and e.ftype in (stat.S_IFREG, stat.S_IFDIR):
            e.flags = inode_flags(path, e.ftype == stat.S_IFDIR)
        entries[rel] = e
        if e.ftype == stat.S_IFDIR:
            try:
                names = list_dir_noatime(path)
            except OSError as err:
                errors.append("%s: listdir: %s" % (path, err.strerror))
                continue
            for name in sorted(names, reverse=True):
                stack.append(name if rel == "." else os.path.join(rel, name))
    return entries


# ---- tar archives ----

def open_tar(path):
    if path.endswith((".zst", ".tzst")):
        data = subprocess.run(["zstd", "-dc", path], check=True,
                              stdout=subprocess.PIPE).stdout
        return tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    return tarfile.open(path, mode="r:*")


def pax_ns(member, key):
    """a PAX time to the ns (a float would lose them), None if absent"""
    v = member.pax_headers.get(key)
    if v is None:
        return int(member.mtime) * 1000000000 if key == "mtime" else None
    sec, _, frac = v.partition(".")
    neg = sec.startswith("-")
    ns = abs(int(sec)) * 1000000000 + int((frac + "000000000")[:9])
    return -ns if neg else ns


def scan_tar(path, errors):
    entries = {}
    links = {}              # member name -> link key of its inode
    tf = open_tar(path)
    for m in tf.getmembers():
        name = os.path.normpath(m.name.lstrip("/"))
        if name in ("", "."):
            name = "."
        e = Entry()
        if m.islnk():
            target = os.path.normpath(m.linkname.lstrip("/"))
            if target not in entries:
                errors.append("%s: hard link to %s, which is not in the archive before it"
                              % (name, target))
                continue
            src = entries[target]
            entries[name] = src
            links[name] = links[target]
            continue
        e.ftype = {tarfile.REGTYPE: stat.S_IFREG, tarfile.AREGTYPE: stat.S_IFREG,
                   tarfile.CONTTYPE: stat.S_IFREG, tarfile.GNUTYPE_SPARSE: stat.S_IFREG,
                   tarfile.DIRTYPE: stat.S_IFDIR, tarfile.SYMTYPE: stat.S_IFLNK,
                   tarfile.CHRTYPE: stat.S_IFCHR, tarfile.BLKTYPE: stat.S_IFBLK,
                   tarfile.FIFOTYPE: stat.S_IFIFO}.get(m.type)
        if e.ftype is None:
            errors.append("%s: tar member type %r not handled" % (name, m.type))
            continue
        e.mode = m.mode & 0o7777
        e.uid, e.gid = m.uid, m.gid
        e.size = m.size if e.ftype == stat.S_IFREG else 0
        real = m.pax_headers.get("GNU.sparse.realsize") or m.pax_headers.get("GNU.sparse.size")
        if real:
            e.size = int(real)
        e.mtime = pax_ns(m, "mtime")
        e.atime = pax_ns(m, "atime")
        e.nlink = 1
        e.link_key = ("tar", name)
        if e.ftype in (stat.S_IFCHR, stat.S_IFBLK):
            e.rdev = os.makedev(m.devmajor, m.devminor)
        if e.ftype == stat.S_IFLNK:
            e.target = m.linkname
            e.size = len(os.fsencode(m.linkname))
        xattrs = {}
        for k, v in m.pax_headers.items():
            if k.startswith("SCHILY.xattr."):
                xattrs[k[len("SCHILY.xattr."):]] = os.fsencode(v) \
                    if isinstance(v, str) else v
            elif k == "SCHILY.acl.access":
                acl = posix_acl.from_text(v)
                if not posix_acl.is_minimal(acl):
                    xattrs["system.posix_acl_access"] = acl
                    # setting an access ACL makes the group bits the mask
                    # (bsdtar records the owning group's bits instead)
                    mask = posix_acl.mask_perms(acl)
                    if mask is not None:
                        e.mode = (e.mode & ~0o070) | (mask << 3)
            elif k == "SCHILY.acl.default":
                xattrs["system.posix_acl_default"] = posix_acl.from_text(v)
        e.xattrs = xattrs or Entry.NO_XATTRS
        if e.ftype == stat.S_IFREG:
            e.src = (tf, m)
            sparse = getattr(m, "sparse", None)
            if sparse:
                e.sparse_map = [(o, o + n) for o, n in sparse if n]
        entries[name] = e
        links[name] = e.link_key
    # directories the archive does not record (the top one, often):
    # present, their attributes unknown
    entries.setdefault(".", None)
    for name in list(entries):
        parent = os.path.dirname(name)
        while parent and parent not in entries:
            entries[parent] = None
            parent = os.path.dirname(parent)
    return entries, links


# ---- comparison ----

def round_ranges(ranges, gran, size):
    out = []
    for start, end in ranges:
        start = start // gran * gran
        end = min((end + gran - 1) // gran * gran, (size + gran - 1) // gran * gran)
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def ranges_within(inner, outer):
    for s, e in inner:
        if not any(os_ <= s and e <= oe for os_, oe in outer):
            return False
    return True


def fmt_ranges(ranges):
    if len(ranges) > 8:
        return " ".join("%d-%d" % r for r in ranges[:8]) + " ... (%d ranges)" % len(ranges)
    return " ".join("%d-%d" % r for r in ranges) or "none"


def parse_owner(s):
    try:
        u, g = s.split(":")
        return int(u), int(g)
    except ValueError:
        raise argparse.ArgumentTypeError("expected UID:GID, got %r" % s)


def load_owner_map(path):
    """lines 'PATH UID:GID' (PATH relative to the top, '.' for the top)"""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                p, o = line.rsplit(None, 1)
                out[os.path.normpath(p)] = parse_owner(o)
    return out


class Comparer:
    def __init__(self, args):
        self.args = args
        self.ndiff = 0
        self.shown = 0

    def diff(self, path, what, src, copy):
        self.ndiff += 1
        if self.args.max_diffs and self.shown >= self.args.max_diffs:
            return
        self.shown += 1
        print("%s: %s: source %s, copy %s" % (path, what, src, copy))

    def expected_owner(self, rel, e):
        a = self.args
        if a.owner_map and rel in a.owner_map:
            return a.owner_map[rel]
        if rel == "." and a.root_owner:
            return a.root_owner
        if a.owner:
            return a.owner
        return e.uid, e.gid

    def expected_time(self, ns):
        clamp = self.args.clamp_time
        if clamp is not None and ns is not None and ns > clamp * 1000000000:
            return clamp * 1000000000
        return ns

    def xattrs_of(self, e):
        ign = self.args.ignore_xattr
        if not ign:
            return e.xattrs
        out = {}
        for k, v in e.xattrs.items():
            if not any(k == p or (p.endswith("*") and k.startswith(p[:-1])) for p in ign):
                out[k] = v
        return out

    def compare_entry(self, rel, s, c):
        a = self.args
        if s.ftype != c.ftype:
            self.diff(rel, "type", TYPE_NAMES.get(s.ftype), TYPE_NAMES.get(c.ftype))
            return
        if s.ftype != stat.S_IFLNK and s.mode != c.mode:
            self.diff(rel, "mode", "%04o" % s.mode, "%04o" % c.mode)
        uid, gid = self.expected_owner(rel, s)
        if (uid, gid) != (c.uid, c.gid):
            self.diff(rel, "owner", "%d:%d" % (uid, gid), "%d:%d" % (c.uid, c.gid))
        if not a.ignore_mtime:
            mt = self.expected_time(s.mtime)
            if mt != c.mtime:
                self.diff(rel, "mtime", fmt_ns(mt), fmt_ns(c.mtime))
        if not a.ignore_atime and s.atime is not None and \
                not (a.ignore_symlink_atime and s.ftype == stat.S_IFLNK):
            at = self.expected_time(s.atime)
            if at != c.atime:
                self.diff(rel, "atime", fmt_ns(at), fmt_ns(c.atime))
        if s.ftype in (stat.S_IFCHR, stat.S_IFBLK) and s.rdev != c.rdev:
            self.diff(rel, "rdev", "%d:%d" % (os.major(s.rdev), os.minor(s.rdev)),
                      "%d:%d" % (os.major(c.rdev), os.minor(c.rdev)))
        if s.ftype == stat.S_IFLNK and s.target != c.target:
            self.diff(rel, "symlink target", repr(s.target), repr(c.target))
        sx, cx = self.xattrs_of(s), self.xattrs_of(c)
        for name in sorted(set(sx) | set(cx)):
            if name not in cx:
                self.diff(rel, "xattr " + name, fmt_bytes(sx[name]), "missing")
            elif name not in sx:
                self.diff(rel, "xattr " + name, "missing", fmt_bytes(cx[name]))
            elif sx[name] != cx[name]:
                self.diff(rel, "xattr " + name, fmt_bytes(sx[name]), fmt_bytes(cx[name]))
        if a.attrs and s.flags is not None and c.flags is not None and s.flags != c.flags:
            def letters(f):
                return "".join(v for k, v in sorted(ATTR_FLAGS.items()) if f & k) or "-"
            self.diff(rel, "attributes", letters(s.flags), letters(c.flags))
        if s.ftype == stat.S_IFREG:
            if s.size != c.size:
                self.diff(rel, "size", s.size, c.size)
                return
            if s.size:
                ssha, csha = s.sha256(), c.sha256()
                if ssha != csha:
                    self.diff(rel, "content sha256", ssha, csha)
            if not a.ignore_holes and s.size:
                self.compare_holes(rel, s, c)

    def compare_holes(self, rel, s, c):
        g = self.args.hole_granularity
        sr = round_ranges(s.data_ranges(), g, s.size)
        cr = round_ranges(c.data_ranges(), g, c.size)
        if self.args.zero_holes:
            # blocks of zeros may have become holes (the content matched)
            if not ranges_within(cr, sr):
                self.diff(rel, "data where the source has holes", fmt_ranges(sr),
                          fmt_ranges(cr))
        elif sr != cr:
            self.diff(rel, "data ranges", fmt_ranges(sr), fmt_ranges(cr))

    def compare_links(self, src, copy, src_links):
        """hard-link groups: the same paths together, link counts = links found"""
        def groups(entries, keyof):
            # only inodes with more than one path (or link) matter here
            g = {}
            for rel, e in entries.items():
                if e is not None and e.ftype != stat.S_IFDIR:
                    g.setdefault(keyof(rel, e), []).append(rel)
            return {k: v for k, v in g.items() if len(v) > 1 or entries[v[0]].nlink > 1}
        def subvol_of(rel):
            # hard links are split where a subvolume starts: the innermost one
            best = ""
            for sv in self.args.subvol:
                if rel.startswith(sv + "/") and len(sv) > len(best):
                    best = sv
            return best
        sg = groups(src, (lambda rel, e: (src_links[rel], subvol_of(rel))) if src_links is not None
                    else (lambda rel, e: (e.link_key, subvol_of(rel))))
        cg = groups(copy, lambda rel, e: e.link_key)
        s_of = {p: tuple(sorted(v)) for v in sg.values() for p in v}
        c_of = {p: tuple(sorted(v)) for v in cg.values() for p in v}
        reported = set()
        for p in sorted(set(s_of) | set(c_of)):
            if p not in src or p not in copy:
                continue
            sp, cp = s_of.get(p, (p,)), c_of.get(p, (p,))
            if sp != cp and (sp, cp) not in reported:
                reported.add((sp, cp))
                self.diff(p, "hard links", "%d paths %s" % (len(sp), short(sp)),
                          "%d paths %s" % (len(cp), short(cp)))
        for key, paths in cg.items():
            e = copy[paths[0]]
            if e.nlink != len(paths):
                self.diff(sorted(paths)[0], "link count", "%d links found" % len(paths),
                          e.nlink)

    def run(self, src, copy, src_links):
        for rel in sorted(set(src) | set(copy)):
            s, c = src.get(rel), copy.get(rel)
            if rel not in copy:
                self.diff(rel, "presence", "exists", "missing")
            elif rel not in src:
                if not any(rel == x or rel.startswith(x + "/") for x in self.args.exclude):
                    self.diff(rel, "presence", "missing", "exists")
            elif s is not None:
                self.compare_entry(rel, s, c)
        self.compare_links(src, copy, src_links)


def short(paths):
    if len(paths) > 3:
        return "(%s, ... %s)" % (", ".join(paths[:2]), paths[-1])
    return "(%s)" % ", ".join(paths)


def main():
    p = argparse.ArgumentParser(
        description="Compare a source tree (directory or tar archive) with a copy "
        "(e.g. a mounted image) path by path; exit 0 only without differences.")
    p.add_argument("source", help="directory or tar archive")
    p.add_argument("copy", help="directory (mount point) to compare with it")
    p.add_argument("--ignore-atime", action="store_true", help="do not compare atimes")
    p.add_argument("--ignore-symlink-atime", action="store_true",
                   help="do not compare the atimes of symlinks (reading a link, as an "
                        "image builder does, moves the source's atime; no O_NOATIME there)")
    p.add_argument("--ignore-mtime", action="store_true", help="do not compare mtimes")
    p.add_argument("--ignore-holes", action="store_true", help="do not compare hole maps")
    p.add_argument("--zero-holes", action="store_true",
                   help="blocks of zeros may have become holes in the copy")
    p.add_argument("--hole-granularity", type=int, default=4096, metavar="BYTES",
                   help="data ranges are compared rounded out to this (default 4096)")
    p.add_argument("--clamp-time", type=int, metavar="EPOCH",
                   default=None, help="expect times later than EPOCH (seconds) to be "
                   "EPOCH, the SOURCE_DATE_EPOCH rule")
    p.add_argument("--owner", type=parse_owner, metavar="UID:GID",
                   help="expect every path to be owned by UID:GID")
    p.add_argument("--root-owner", type=parse_owner, metavar="UID:GID",
                   help="expect the top directory to be owned by UID:GID")
    p.add_argument("--owner-map", type=load_owner_map, metavar="FILE",
                   help="lines 'PATH UID:GID': the expected owner of those paths")
    p.add_argument("--ignore-xattr", action="append", default=[], metavar="NAME",
                   help="leave out this xattr (NAME* for a prefix); repeatable")
    p.add_argument("--subvol", action="append", default=[], metavar="PATH",
                   help="PATH is a subvolume of the copy: hard links into it are split there")
    p.add_argument("--exclude", action="append", default=[], metavar="PATH",
                   help="a path of the copy not in the source (e.g. lost+found)")
    p.add_argument("--attrs", action="store_true",
                   help="also compare inode flags (lsattr: %s)" % "".join(
                       sorted(ATTR_FLAGS.values())))
    p.add_argument("--max-diffs", type=int, default=0, metavar="N",
                   help="print at most N differences (all are counted)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    args = p.parse_args()
    args.exclude = [os.path.normpath(x) for x in args.exclude]
    args.subvol = [os.path.normpath(x) for x in args.subvol]

    errors = []
    src_links = None
    if os.path.isdir(args.source):
        src = scan_dir(args.source, args.attrs, errors)
    elif os.path.isfile(args.source):
        try:
            src, src_links = scan_tar(args.source, errors)
        except (tarfile.TarError, OSError, subprocess.CalledProcessError) as e:
            print("tree-compare: %s: %s" % (args.source, e), file=sys.stderr)
            return 2
    else:
        print("tree-compare: %s: not a directory or archive" % args.source, file=sys.stderr)
        return 2
    if not os.path.isdir(args.copy):
        print("tree-compare: %s: not a directory" % args.copy, file=sys.stderr)
        return 2
    copy = scan_dir(args.copy, args.attrs, errors)
    cmp = Comparer(args)
    try:
        cmp.run(src, copy, src_links)
    except OSError as e:
        errors.append("%s: %s" % (e.filename, e.strerror))
    for err in errors:
        print("tree-compare: error: %s" % err, file=sys.stderr)
    if not args.quiet:
        nsrc = sum(1 for e in src.values() if e is not None)
        print("%d paths in the source, %d in the copy: %d difference%s%s" % (
            nsrc, len(copy), cmp.ndiff, "" if cmp.ndiff == 1 else "s",
            " (%d not shown)" % (cmp.ndiff - cmp.shown) if cmp.shown < cmp.ndiff else ""),
            file=sys.stderr)
    if errors:
        return 2
    return 1 if cmp.ndiff else 0


if __name__ == "__main__":
    sys.exit(main())
