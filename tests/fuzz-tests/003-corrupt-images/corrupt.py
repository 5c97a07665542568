#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
corrupt.py IMG SEED COUNT: damage COUNT random tree blocks of a single
device crc32c btrfs image in place.  Tree blocks are found by their header
fsid; each chosen block gets a few random bytes overwritten (header fields,
item headers or item data), and for most of them the header checksum is
recomputed so that the damage gets past checksum verification and reaches
the structure and item parsers.
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "pylib"))
from btrfs_crc import crc32c  # noqa: E402


def main():
    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    with open(path, 'r+b') as f:
        f.seek(65536)
        sb = f.read(4096)
        fsid = sb[32:48]
        nodesize = struct.unpack_from('<I', sb, 148)[0]
        size = f.seek(0, 2)
        blocks = []
        off = 0
        while off + nodesize <= size and off < (1 << 30):
            f.seek(off)
            head = f.read(48)
            if head[32:48] == fsid and off != 65536:
                blocks.append(off)
            off += 4096
        for _ in range(min(count, len(blocks))):
            off = rnd.choice(blocks)
            f.seek(off)
            blk = bytearray(f.read(nodesize))
            nritems = struct.unpack_from('<I', blk, 96)[0]
            span = 101 + 25 * max(1, min(nritems, 200))
            for _ in range(rnd.randint(1, 6)):
                where = rnd.choice(['header', 'items', 'data'])
                if where == 'header':
                    pos = rnd.randrange(48, 101)
                elif where == 'items':
                    pos = rnd.randrange(101, min(span, nodesize))
                else:
                    pos = rnd.randrange(101, nodesize)
                blk[pos] = rnd.randrange(256)
            if rnd.random() < 0.8:
                struct.pack_into('<I', blk, 0, crc32c(bytes(blk[32:])))
            f.seek(off)
            f.write(blk)


if __name__ == '__main__':
    main()
