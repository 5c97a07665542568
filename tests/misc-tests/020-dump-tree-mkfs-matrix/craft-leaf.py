#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
craft-leaf.py good|bad IMG PHYSICAL NODESIZE: overwrite the leaf at byte
PHYSICAL of a crc32c image with a crafted leaf.

"good": one or more items of every type dump-tree knows, including odd
but well-defined ones (unknown types and inline references, names with
NUL bytes or longer than 255, old short root items, every objectid with a
name), so that ghee's output can be compared with btrfs-progs' on every
item printer.  "bad": items too short for what they claim, where progs
reads past the item and ghee must print a note instead.

The leaf keeps the header of the block it replaces (fsid, bytenr, owner,
generation), gets a valid layout (sorted keys, packed data) and a correct
crc32c checksum.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "pylib"))
from btrfs_crc import crc32c  # noqa: E402


U64 = 0xFFFFFFFFFFFFFFFF


def key(objectid, type_, offset):
    return struct.pack('<QBQ', objectid & U64, type_, offset & U64)


def timespec(sec, nsec):
    return struct.pack('<QI', sec & U64, nsec)


def inode_item(flags=0, mode=0o100644, sec=1700000000):
    return struct.pack('<QQQQQIIIIQQQ4Q', 7, 8, 4096, 8192, 0, 2, 1000, 100,
                       mode, 0x0801, flags, 3, 0, 0, 0, 0) + \
        timespec(sec, 5) + timespec(sec + 1, 999999999) + \
        timespec(0, 0) + timespec(U64, 1)


def inode_ref(index, name):
    return struct.pack('<QH', index, len(name)) + name


def inode_extref(parent, index, name):
    return struct.pack('<QQH', parent, index, len(name)) + name


def dir_item(loc, ftype, name, data=b'', name_len=None, data_len=None):
    nl = len(name) if name_len is None else name_len
    dl = len(data) if data_len is None else data_len
    return loc + struct.pack('<QHHB', 9, dl, nl, ftype) + name + data


def file_extent(gen, ram, comp, ftype, rest=b''):
    return struct.pack('<QQBBHB', gen, ram, comp, 0, 0, ftype) + rest


def root_item(gen, gen_v2, flags=0, full=True):
    inode = inode_item(mode=0o40755)
    r = inode + struct.pack('<QQQQQQQI', gen, 256, 30000000, 0, 16384, 3,
                            flags, 1)
    r += key(257, 84, 12345) + struct.pack('<BB', 1, 2)
    if not full:
        return r
    r += struct.pack('<Q', gen_v2) + bytes(range(16)) + bytes(range(16, 32)) \
        + bytes(16) + struct.pack('<QQQQ', 11, 12, 13, 14)
    r += timespec(1600000000, 1) + timespec(1600000001, 2) + \
        timespec(0, 0) + timespec(1, 0) + bytes(64)
    return r


def extent_item(refs, gen, flags, tail=b''):
    return struct.pack('<QQQ', refs, gen, flags) + tail


def iref(type_, offset):
    return struct.pack('<BQ', type_, offset & U64)


def data_ref(root, objectid, offset, count):
    return struct.pack('<QQQI', root & U64, objectid, offset & U64, count)


def stripe(devid, offset, uuid=bytes(range(16))):
    return struct.pack('<QQ', devid, offset) + uuid


def chunk(length, type_, nstripes, stripes):
    return struct.pack('<QQQQIIIHH', length, 2, 65536, type_, 65536, 65536,
                       4096, nstripes, 1) + b''.join(stripes)


def balance_args(n):
    return struct.pack('<QIIQQQQQQQIIII6Q', n, 1, 99, 2, 3, 4, 5, 6, 7, 8,
                       9, 10, 11, 12, 0, 0, 0, 0, 0, 0)


def bad_items():
    """malformed items: progs reads past them, ghee must print a note"""
    L = []
    L.append(((258, 1, 0), inode_item()[:100]))              # short
    L.append(((257, 12, 256), inode_ref(5, b'x') + b'\x01\x02\x03'))  # trailing junk
    L.append(((258, 12, 256), inode_ref(6, b'truncated-name')[:14]))
    L.append(((256, 84, 3), dir_item(key(262, 1, 0), 7, b'sym')[:20]))  # short
    L.append(((257, 108, 20480), file_extent(6, 4096, 0, 1)[:30]))  # short reg
    L.append(((257, 108, 24576), b'\x01\x02'))               # shorter than header
    L.append(((259, 132, 5), root_item(9, 9)[:300]))
    L.append(((13672448, 184, 30457856), b'\x01'))            # short
    L.append(((256, 228, 24020096), chunk(8388608, 0x1, 3, [stripe(1, 1)])))
    L.append(((0, 249, 3), struct.pack('<5Q', 1, 2, 3, 4, 5) + b'\x01\x02\x03\x04'))
    L.append(((0, 249, 4), b'\x00' * 16))
    L.append(((-4, 248, 1), b'\x00' * 100))                 # short balance
    L.append(((-11, 0, 40000000), b'\x00' * 10))
    L.append(((256, 84, 4), dir_item(key(263, 1, 0), 3, b'abc',
                                     name_len=50)))  # name past end
    L.append(((257, 156, 258), struct.pack('<QQH', 256, 5, 40) + b'short'))
    L.append(((13651968, 168, 4096), extent_item(2, 5, 0x101,
              iref(176, 5)[:5])))                            # cut ref
    return L


def good_items():
    """(key tuple, data) of the crafted leaf; sorted later."""
    L = []
    name300 = b'n' * 300
    L.append(((256, 1, 0), inode_item(flags=0xFFF | (1 << 31) | (1 << 40))))
    L.append(((257, 1, 0), inode_item(flags=0)))
    L.append(((256, 12, 256), inode_ref(2, b'first') +
              inode_ref(3, b'nul\x00inside') + inode_ref(4, name300)))
    L.append(((256, 13, 0x1234), inode_extref(256, 7, b'ext-one') +
              inode_extref(300, 8, b'ext-two')))
    L.append(((256, 24, 100), dir_item(key(0, 0, 0), 8, b'user.attr',
                                       b'value\x00hidden')))
    L.append(((256, 24, 101), dir_item(key(0, 0, 0), 8, b'user.big',
                                       b'v' * 400)))
    L.append(((256, 36, 0), struct.pack('<Q2QB', 4096, 0, 0, 0)))
    L.append(((256, 37, 0), b'\xaa' * 32))
    L.append(((256, 48, 0), b''))
    L.append(((256, 60, 0), struct.pack('<Q', 77)))
    L.append(((256, 72, 5), struct.pack('<Q', U64)))
    L.append(((256, 84, 1), dir_item(key(257, 1, 0), 1, b'file') +
              dir_item(key(258, 1, 0), 2, b'dir') +
              dir_item(key(259, 1, 0), 0, b'unknown-type') +
              dir_item(key(260, 1, 0), 9, b'type-nine') +
              dir_item(key(261, 1, 0), 0x81, b'encrypted-file')))
    L.append(((256, 84, 2), dir_item(key(5, 132, U64), 2, b'subvol')))
    for t, i in ((3, 5), (4, 6), (5, 7), (6, 8), (7, 9)):
        L.append(((256, 96, i), dir_item(key(263 + i, 1, 0), t, b'f%d' % i)))
    # file extents
    L.append(((257, 108, 0), file_extent(5, 3000, 3, 0, b'compressed bytes')))
    L.append(((257, 108, 4096), file_extent(5, 4096, 0, 2,
                                            struct.pack('<QQQQ', 13631488, 8192, 4096, 4096))))
    L.append(((257, 108, 8192), file_extent(6, 131072, 1, 1,
                                            struct.pack('<QQQQ', 14000000, 4096, 0, 131072))))
    L.append(((257, 108, 12288), file_extent(6, 4096, 9, 5,
                                             struct.pack('<QQQQ', 0, 0, 0, 4096))))
    L.append(((257, 108, 16384), file_extent(6, 0, 2, 0)))   # empty inline
    L.append(((257, 120, 0), b'\x00' * 8))
    L.append(((257, 128, 4096), bytes(range(40))))
    # roots
    L.append(((256, 132, 0), root_item(5, 0, full=False)))
    L.append(((257, 132, 3), root_item(9, 9, flags=1)))
    L.append(((258, 132, 4), root_item(9, 8, flags=1 << 48)))
    L.append(((-8, 132, 5), root_item(9, 9)))
    L.append(((-8, 132, 300), root_item(9, 9)))
    L.append(((256, 144, 5), struct.pack('<QQH', 256, 3, 4) + b'back'))
    L.append(((256, 156, 257), struct.pack('<QQH', 256, 4, 3) + b'ref'))
    # extent items and refs
    L.append(((13631488, 168, 4096), extent_item(9, 5, 1,
              iref(178, 0)[:1] + data_ref(5, 257, 0, 1) +
              iref(184, 30425088) + struct.pack('<I', 2) +
              iref(176, 5) + iref(182, 30441472))))
    L.append(((13635584, 168, 4096), extent_item(1, 5, 2,
              key(256, 1, 0) + b'\x01' + iref(176, 2) + iref(176, -9))))
    L.append(((13639680, 168, 4096), extent_item(1, 5, 0x102,
              key(5, 84, 1) + b'\x00' + iref(182, 30441472))))
    L.append(((13643776, 168, 4096), extent_item(2, 5, 1,
              iref(172, 5) + iref(176, 5))))                 # owner ref stops
    L.append(((13647872, 168, 4096), extent_item(2, 5, 1,
              iref(99, 5) + iref(176, 5))))                  # unknown type
    L.append(((13656064, 168, 4096), struct.pack('<I', 1)))  # v0 item
    L.append(((13660160, 168, 4096), extent_item(0, 0, 0)))
    L.append(((13664256, 169, 1), extent_item(1, 7, 2, iref(176, 7))))
    L.append(((13668352, 169, 0), extent_item(1, 7, 0x100, iref(182, 5))))
    L.append(((13672448, 172, 5), b''))
    L.append(((13672448, 176, 5), b''))
    L.append(((13672448, 178, 0x5678), data_ref(-9, 257, 4096, 3)))
    L.append(((13672448, 180, 1), struct.pack('<QQQI', 1, 2, 3, 4)))
    L.append(((13672448, 182, 30441472), b''))
    L.append(((13672448, 184, 30441472), struct.pack('<I', 7)))
    # block groups, free space, devices, chunks
    for i, fl in enumerate((0x1, 0x4 | 0x2, 0x1 | 0x4, 0x1 | 0x10 | 0x20,
                            0x2 | 0x200, 0x40, 0x1 | (1 << 48), 0)):
        L.append(((20000000 + i * 4096, 192, 1048576),
                  struct.pack('<QQQ', 4096 * i, 256, fl)))
    L.append(((30000000, 198, 1048576), struct.pack('<II', 3, 1)))
    L.append(((30000000, 199, 4096), b''))
    L.append(((30004096, 200, 32768), b'\xff' * 16))
    L.append(((1, 204, 1048576), struct.pack('<QQQQ', 3, 256, 1048576, 4194304)
              + bytes(range(16))))
    L.append(((1, 216, 1), struct.pack('<QQQIIIQQQIBB', 1, 1 << 30, 1 << 20,
                                       4096, 4096, 4096, 0, 0, 0, 0, 1, 2)
              + bytes(range(16)) + bytes(range(16, 32))))
    L.append(((256, 228, 22020096), chunk(8388608, 0x22, 2,
                                          [stripe(1, 22020096), stripe(1, 30408704)])))
    L.append(((256, 228, 23020096), chunk(8388608, 0x1, 0, [])))
    L.append(((256, 230, 1), b'\x00' * 16))
    # quotas
    L.append(((0, 240, 0), struct.pack('<QQQQ', 1, 10, 7, 12345)))
    L.append(((0, 240, 1), struct.pack('<QQQQQ', 1, 10, 1, 0, 0)))
    L.append(((0, 242, 5), struct.pack('<QQQQQ', 10, 16384, 16384, 4096, 4096)))
    L.append(((0, 242, (1 << 48) | 100), struct.pack('<QQQQQ', 1, 2, 3, 4, 5)))
    L.append(((0, 244, 5), struct.pack('<QQQQQ', 3, U64, 100, 0, U64 - 1)))
    L.append(((5, 246, (1 << 48) | 100), b''))
    L.append((((1 << 48) | 100, 246, 5), b''))
    # temporary and persistent items
    L.append(((-4, 248, 0), struct.pack('<Q', 7) + balance_args(1) +
              balance_args(2) + balance_args(4) + bytes(32)))
    L.append(((13, 248, 30000000), b''))
    L.append(((14, 248, 0), b''))
    L.append(((0, 249, 1), struct.pack('<5Q', 1, 2, 3, 4, 5)))
    L.append(((0, 249, 2), struct.pack('<7Q', 1, 2, 3, 4, 5, 6, 7)))
    L.append(((7, 249, 0), b''))
    L.append(((0, 250, 0), struct.pack('<9Q', 1, 2, 3, 4, 5, 6, 7, 8, 9)))
    L.append(((0x1122334455667788, 251, 0x99aabbccddeeff00),
              struct.pack('<QQ', 256, 257)))
    L.append(((0x1122334455667788, 252, 0x0102030405060708), b'\x00' * 12))
    L.append(((256, 253, 0), b'a string\x00with nul'))
    L.append(((256, 253, 1), b''))
    # v1 free space cache header and odd keys
    L.append(((-11, 0, 30000000), key(257, 1, 0) + struct.pack('<QQQ', 5, 6, 7)))
    L.append(((-11, 1, 0), inode_item()))
    L.append(((300, 0, 0), b''))
    L.append(((300, 7, U64), b''))
    L.append(((300, 255, U64 - 1), b''))
    for oid in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1, -4, -5, -6, -7,
                -8, -9, -10, -11, -12, -13, -255, -256):
        L.append(((oid, 48, oid), b''))
    return L


def build_leaf(header, nodesize, entries):
    entries = sorted(entries, key=lambda e: (e[0][0] & U64, e[0][1], e[0][2] & U64))
    hdr_size = 101
    data_end = nodesize - hdr_size
    items = b''
    data = b''
    off = data_end
    for (oid, t, o), d in entries:
        off -= len(d)
        items += key(oid, t, o) + struct.pack('<II', off, len(d))
        data = d + data
    if hdr_size + len(items) > hdr_size + off:
        sys.exit('craft-leaf: items do not fit in the leaf (%d bytes over)'
                 % (len(items) - off))
    body = items + bytes(off - len(items)) + data
    h = bytearray(header[:hdr_size])
    struct.pack_into('<I', h, 96, len(entries))
    h[100] = 0
    block = bytearray(bytes(h) + body)
    assert len(block) == nodesize
    struct.pack_into('<I', block, 0, crc32c(bytes(block[32:])))
    block[4:32] = bytes(28)
    return bytes(block)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('good', 'bad'):
        sys.exit('usage: craft-leaf.py good|bad IMG PHYSICAL NODESIZE')
    img, physical, nodesize = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    entries = good_items() if sys.argv[1] == 'good' else bad_items()
    with open(img, 'r+b') as f:
        f.seek(physical)
        old = f.read(nodesize)
        leaf = build_leaf(old, nodesize, entries)
        f.seek(physical)
        f.write(leaf)


if __name__ == '__main__':
    main()
