#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
btrfs-del-item.py: remove one item from a leaf of a btrfs image on purpose,
for the repair tests (an item "lost" with nothing else changed).

  btrfs-del-item.py IMG TREE OBJECTID TYPE OFFSET

The item's header goes, the data of the items after it moves up by its
size and their offsets follow; every copy of the leaf is rewritten with a
fresh checksum (btrfs-edit.py's Image).  The first item of a leaf that has
a parent is refused: the parent's key would no longer match.  Exit 0 on
success, 1 when the item is not found or cannot be removed.
"""
import importlib.util
import os
import struct
import sys

_spec = importlib.util.spec_from_file_location(
    "btrfs_edit", os.path.join(os.path.dirname(os.path.abspath(__file__)), "btrfs-edit.py"))
btrfs_edit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(btrfs_edit)


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    img = btrfs_edit.Image(argv[1])
    tree, obj, typ, koff = (int(a, 0) for a in argv[2:])
    blk, slot, key, off, size = img.find(tree, obj, typ, koff)
    if slot == 0 and blk != img.tree_root(tree):
        raise SystemExit('the item is the first of a leaf below a node')
    data = img.read_block(blk)
    nritems, level = img.header(data)
    if level != 0:
        raise SystemExit('not a leaf')
    last_off = img.item(data, nritems - 1)[1]
    # the data of the later items lies below this one's: move it up
    lo, hi = 101 + last_off, 101 + off
    data[lo + size:hi + size] = data[lo:hi]
    data[lo:lo + size] = bytes(size)
    for s in range(slot + 1, nritems):
        base = 101 + s * 25
        ioff = struct.unpack_from('<I', data, base + 17)[0]
        struct.pack_into('<I', data, base + 17, ioff + size)
    a = 101 + slot * 25
    end = 101 + nritems * 25
    data[a:end - 25] = data[a + 25:end]
    data[end - 25:end] = bytes(25)
    struct.pack_into('<I', data, 96, nritems - 1)
    img.write_block(blk, data)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
