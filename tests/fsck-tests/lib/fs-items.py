#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
fs-items.py: delete or add whole items in a leaf of a btrfs image, for the
repair tests of names (fsck-tests 140-144).  Built on btrfs-edit.py's
Image (single device, crc32c; every copy of the block is rewritten with a
fresh checksum).  The leaf must keep its first key (the parent's key of it
is not changed) and have room for an added item.

  fs-items.py IMG del TREE OBJECTID TYPE OFFSET
        delete that item
  fs-items.py IMG add-ref TREE INO PARENT INDEX NAME
        add the entry (INDEX, NAME) to the INODE_REF (INO PARENT), made when
        missing
  fs-items.py IMG add-dir TREE DIR INDEX INO TYPE NAME [TRANSID]
        add the DIR_ITEM (DIR hash(NAME)) and DIR_INDEX (DIR INDEX) naming
        inode INO with file type TYPE (1 file, 2 dir), made in transaction
        TRANSID (default: the superblock's generation)
  fs-items.py IMG add TREE OBJECTID TYPE OFFSET [HEX]
        add an item with that key and data (HEX bytes; empty without)
  fs-items.py IMG hash NAME
        print the btrfs name hash of NAME
"""
import importlib.util
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("btrfs_edit", os.path.join(HERE, "btrfs-edit.py"))
btrfs_edit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(btrfs_edit)

INODE_ITEM, INODE_REF, DIR_ITEM, DIR_INDEX = 1, 12, 84, 96
HDR = 101
ITEM = 25


def name_hash(name):
    # the raw crc32c register seeded with ~1, not inverted at the end
    return crc32c_raw(0xfffffffe, name)


def crc32c_raw(seed, data):
    crc = seed
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def leaf_items(data):
    nritems = struct.unpack_from('<I', data, 96)[0]
    return [btrfs_edit.Image.item(data, s) for s in range(nritems)]


def write_items(img, blk, data, items):
    """items: [(key, bytes)] in order; rewrite the leaf with them"""
    end = img.nodesize
    for slot, (key, payload) in enumerate(items):
        end -= len(payload)
        if HDR + (slot + 1) * ITEM > end:
            raise SystemExit('the leaf has no room')
        struct.pack_into('<QBQII', data, HDR + slot * ITEM, key[0], key[1], key[2],
                         end - HDR, len(payload))
        data[end:end + len(payload)] = payload
    struct.pack_into('<I', data, 96, len(items))
    img.write_block(blk, data)


def read_items(data):
    return [(key, bytes(data[HDR + off:HDR + off + size])) for key, off, size in leaf_items(data)]


def leaf_for(img, tree, key):
    """the leaf where KEY sorts (after its first key)"""
    best = None
    for blk, slot, k, off, size in img.walk_leaves(img.tree_root(tree)):
        if k <= key:
            best = blk
        else:
            break
    if best is None:
        raise SystemExit('no leaf for %s' % (key,))
    return best


def insert(img, tree, key, payload, append=False):
    blk = leaf_for(img, tree, key)
    data = img.read_block(blk)
    items = read_items(data)
    for i, (k, old) in enumerate(items):
        if k == key:
            if not append:
                raise SystemExit('item %s exists' % (key,))
            items[i] = (k, old + payload)
            write_items(img, blk, data, items)
            return
    items.append((key, payload))
    items.sort(key=lambda kv: kv[0])
    if items[0][0] == key:
        raise SystemExit('the item would be the first of its leaf')
    write_items(img, blk, data, items)


def dir_entry(ino, typ, name, transid):
    return struct.pack('<QBQQHHB', ino, INODE_ITEM, 0, transid, 0, len(name), typ) + name


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    path, cmd, args = argv[1], argv[2], argv[3:]
    if cmd == 'hash':
        print(name_hash(args[0].encode()))
        return 0
    img = btrfs_edit.Image(path)
    if cmd == 'del':
        tree, obj, typ, off = (int(a, 0) for a in args)
        blk, slot, key, ioff, size = img.find(tree, obj, typ, off)
        if slot == 0:
            raise SystemExit('the item is the first of its leaf')
        data = img.read_block(blk)
        items = read_items(data)
        del items[slot]
        write_items(img, blk, data, items)
    elif cmd == 'add-ref':
        tree, ino, parent, index = (int(a, 0) for a in args[:4])
        name = args[4].encode()
        insert(img, tree, (ino, INODE_REF, parent),
               struct.pack('<QH', index, len(name)) + name, append=True)
    elif cmd == 'add-dir':
        tree, d, index, ino, typ = (int(a, 0) for a in args[:5])
        name = args[5].encode()
        transid = int(args[6], 0) if len(args) > 6 else struct.unpack_from('<Q', img.sb, 72)[0]
        insert(img, tree, (d, DIR_ITEM, name_hash(name)), dir_entry(ino, typ, name, transid))
        insert(img, tree, (d, DIR_INDEX, index), dir_entry(ino, typ, name, transid))
    elif cmd == 'add':
        key = tuple(int(a, 0) for a in args[:4])
        insert(img, key[0], key[1:], bytes.fromhex(args[4]) if len(args) > 4 else b'')
    else:
        raise SystemExit('unknown command %s' % cmd)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
