#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
btrfs-edit.py: damage one thing in a btrfs image on purpose, for the
checker tests.  Single-device images with crc32c checksums (single or DUP
profiles); every copy of a changed tree block is rewritten with a fresh
header checksum, so the damage reaches the checks behind the checksum.

  btrfs-edit.py IMG find TREE OBJECTID TYPE [OFFSET]
        print "BLOCK SLOT ITEM_OFFSET ITEM_SIZE KEY" of the first item with
        that key (TYPE as a number; OFFSET omitted: any offset)
  btrfs-edit.py IMG first TREE TYPE
        print "OBJECTID TYPE OFFSET" of the first item of that type
  btrfs-edit.py IMG get-item TREE OBJECTID TYPE OFFSET FIELD_OFF WIDTH
        print the little-endian value at FIELD_OFF of the item's data
  btrfs-edit.py IMG set-item TREE OBJECTID TYPE OFFSET FIELD_OFF WIDTH VALUE
        write VALUE (little-endian, WIDTH 1/2/4/8 bytes) at FIELD_OFF of the
        item's data
  btrfs-edit.py IMG add-item TREE OBJECTID TYPE OFFSET FIELD_OFF WIDTH DELTA
        add DELTA (may be negative) to that field
  btrfs-edit.py IMG set-key TREE OBJECTID TYPE OFFSET NEWOBJ NEWTYPE NEWOFF
        rewrite the key of an item (no re-sorting: that is the point)
  btrfs-edit.py IMG swap-keys TREE OBJECTID TYPE OFFSET
        swap the key of that item with the key of the next item in its leaf
  btrfs-edit.py IMG break-csum LOGICAL
        flip a byte of the stored checksum of the tree block at LOGICAL
  btrfs-edit.py IMG break-block LOGICAL
        the same and a byte of its header bytenr (not mendable)
  btrfs-edit.py IMG wipe-csum LOGICAL
        zero the stored checksum of the tree block at LOGICAL (every copy);
        prints the first 4 bytes it had (0x%08x)
        (every copy)
  btrfs-edit.py IMG leaf-of TREE OBJECTID TYPE [OFFSET]
        print the logical address of the leaf holding that item
  btrfs-edit.py IMG leaf-items LEAF
        print "SLOT OBJECTID TYPE OFFSET ITEM_OFFSET ITEM_SIZE DATA_HEX" of
        every item of the leaf at logical address LEAF
  btrfs-edit.py IMG get-super FIELD_OFF WIDTH
        print the little-endian value at FIELD_OFF of the primary superblock
  btrfs-edit.py IMG set-super FIELD_OFF WIDTH VALUE
        write it into every superblock copy the image holds, each with a
        fresh checksum (FIELD_OFF 811 is the start of sys_chunk_array)
  btrfs-edit.py IMG add-super FIELD_OFF WIDTH DELTA
        add DELTA to a field of the primary superblock only (its checksum is
        rewritten); e.g. total_bytes 112, bytes_used 120, num_devices 136

  btrfs-edit.py IMG get-block LOGICAL FIELD_OFF WIDTH
        print the little-endian value at FIELD_OFF of the tree block
  btrfs-edit.py IMG set-block LOGICAL FIELD_OFF WIDTH VALUE
        write VALUE at FIELD_OFF of the tree block at LOGICAL (header:
        generation 80, owner 88, nritems 96, level 100)
  btrfs-edit.py IMG parent-of TREE LOGICAL
        print "NODE SLOT" of the node pointer to the block at LOGICAL
  btrfs-edit.py IMG shift-data TREE OBJECTID TYPE OFFSET DELTA
        move the data of that item and of every later item of its leaf
        DELTA bytes down into the free space, offsets with it (a gap is left)
  btrfs-edit.py IMG insert-item TREE OBJECTID TYPE OFFSET SIZE
        insert a zero-filled item with that key into the leaf where it
        sorts (not as its first item)

  btrfs-edit.py IMG move-items SRC SLOT N DST [KEEP]
        move N items from slot SLOT of leaf SRC to the end of leaf DST
        (KEEP 1: copy them, SRC stays as it is); both leaves are laid out
        again with their data end to end; key order is not checked
  btrfs-edit.py IMG move-ptrs SRC SLOT N DST
        the same for N key pointers of node SRC, to the end of node DST
  btrfs-edit.py IMG children NODE
        one line per key pointer of node NODE: "SLOT CHILD KEY FIRST LAST
        NR", each key as three numbers: the pointer's key, the first and
        last keys of the child (an item's or a key pointer's), its count
  btrfs-edit.py IMG set-ptr-key NODE SLOT OBJECTID TYPE OFFSET
        rewrite the key of key pointer SLOT of node NODE (no re-sorting)

TREE is a tree id (1 root, 2 extent, 5 fs, 10 free space, ...).  Exit 0 on
success, 1 when the item is not found or the image is not supported.
"""
import os
import struct
import sys

SUPER_OFF = 65536
CHUNK_ITEM = 228
ROOT_ITEM = 132


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "pylib"))
from btrfs_crc import crc32c  # noqa: E402


class Image:
    def __init__(self, path):
        self.f = open(path, 'r+b')
        self.f.seek(SUPER_OFF)
        sb = self.f.read(4096)
        if sb[64:72] != b'_BHRfS_M':
            raise SystemExit('not a btrfs image')
        if struct.unpack_from('<H', sb, 196)[0] != 0:
            raise SystemExit('only crc32c images are supported')
        self.sb = sb
        self.nodesize = struct.unpack_from('<I', sb, 148)[0]
        self.root = struct.unpack_from('<Q', sb, 80)[0]
        self.chunk_root = struct.unpack_from('<Q', sb, 88)[0]
        self.chunks = []   # (logical, length, [physical...])
        self._load_sys_array()
        self._load_chunk_tree()

    # ---- address mapping ----
    def _add_chunk(self, logical, data, off):
        length = struct.unpack_from('<Q', data, off)[0]
        num = struct.unpack_from('<H', data, off + 44)[0]
        phys = [struct.unpack_from('<Q', data, off + 48 + 32 * i + 8)[0]
                for i in range(num)]
        for c in self.chunks:
            if c[0] == logical:
                return
        self.chunks.append((logical, length, phys))

    def _load_sys_array(self):
        size = struct.unpack_from('<I', self.sb, 160)[0]
        arr = self.sb[811:811 + size]
        cur = 0
        while cur < size:
            objectid, typ, offset = struct.unpack_from('<QBQ', arr, cur)
            cur += 17
            num = struct.unpack_from('<H', arr, cur + 44)[0]
            self._add_chunk(offset, arr, cur)
            cur += 48 + 32 * num

    def _load_chunk_tree(self):
        for blk, slot, key, off, size in self.walk_leaves(self.chunk_root):
            if key[1] == CHUNK_ITEM:
                leaf = self.read_block(blk)
                self._add_chunk(key[2], leaf, 101 + off)

    def physical(self, logical):
        for start, length, phys in self.chunks:
            if start <= logical < start + length:
                return [p + logical - start for p in phys]
        raise SystemExit('logical %d is not mapped' % logical)

    # ---- blocks ----
    def read_block(self, logical):
        self.f.seek(self.physical(logical)[0])
        return bytearray(self.f.read(self.nodesize))

    def write_block(self, logical, data, fix_csum=True):
        if fix_csum:
            struct.pack_into('<I', data, 0, crc32c(bytes(data[32:])))
        for p in self.physical(logical):
            self.f.seek(p)
            self.f.write(data)
        self.f.flush()

    @staticmethod
    def header(data):
        nritems = struct.unpack_from('<I', data, 96)[0]
        level = data[100]
        return nritems, level

    @staticmethod
    def item(data, slot):
        base = 101 + slot * 25
        key = struct.unpack_from('<QBQ', data, base)
        off, size = struct.unpack_from('<II', data, base + 17)
        return key, off, size

    @staticmethod
    def items(data):
        """(key, bytes) of every item of a leaf"""
        nritems, level = Image.header(data)
        out = []
        for slot in range(nritems):
            key, off, size = Image.item(data, slot)
            out.append((key, bytes(data[101 + off:101 + off + size])))
        return out

    def set_items(self, data, items):
        """lay @items out in the leaf @data, data end to end from its end"""
        end = self.nodesize - 101
        if 25 * len(items) + sum(len(d) for k, d in items) > end:
            raise SystemExit('the items do not fit the leaf')
        data[101:] = bytes(self.nodesize - 101)
        for slot, (key, body) in enumerate(items):
            end -= len(body)
            struct.pack_into('<QBQII', data, 101 + slot * 25, *key, end, len(body))
            data[101 + end:101 + end + len(body)] = body
        struct.pack_into('<I', data, 96, len(items))

    def walk_leaves(self, root):
        """every (block, slot, key, data offset, size) of a tree, in order"""
        stack = [root]
        out = []
        while stack:
            blk = stack.pop()
            data = self.read_block(blk)
            nritems, level = self.header(data)
            if level == 0:
                for slot in range(nritems):
                    key, off, size = self.item(data, slot)
                    out.append((blk, slot, key, off, size))
            else:
                ptrs = []
                for slot in range(nritems):
                    ptrs.append(struct.unpack_from('<Q', data, 101 + 33 * slot + 17)[0])
                stack.extend(reversed(ptrs))
        return out

    def tree_root(self, tree):
        if tree == 1:
            return self.root
        if tree == 3:
            return self.chunk_root
        for blk, slot, key, off, size in self.walk_leaves(self.root):
            if key[0] == tree and key[1] == ROOT_ITEM:
                leaf = self.read_block(blk)
                return struct.unpack_from('<Q', leaf, 101 + off + 176)[0]
        raise SystemExit('tree %d has no root item' % tree)

    def find(self, tree, objectid, typ, offset=None):
        for blk, slot, key, off, size in self.walk_leaves(self.tree_root(tree)):
            if key[0] == objectid and key[1] == typ and (offset is None or key[2] == offset):
                return blk, slot, key, off, size
        raise SystemExit('item (%d %d %s) not found in tree %d' %
                         (objectid, typ, offset, tree))


def num(s):
    return int(s, 0)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    img = Image(argv[1])
    cmd, args = argv[2], [num(a) for a in argv[3:]]
    if cmd in ('find', 'leaf-of'):
        blk, slot, key, off, size = img.find(*args[:4])
        if cmd == 'leaf-of':
            print(blk)
        else:
            print(blk, slot, off, size, '%d %d %d' % key)
    elif cmd == 'first':
        tree, typ = args
        for blk, slot, key, off, size in img.walk_leaves(img.tree_root(tree)):
            if key[1] == typ:
                print('%d %d %d' % key)
                return 0
        raise SystemExit('no item of type %d in tree %d' % (typ, tree))
    elif cmd in ('get-item', 'set-item', 'add-item'):
        tree, obj, typ, koff, foff, width = args[:6]
        blk, slot, key, off, size = img.find(tree, obj, typ, koff)
        if foff + width > size:
            raise SystemExit('field beyond the item (size %d)' % size)
        data = img.read_block(blk)
        fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}[width]
        value = struct.unpack_from(fmt, data, 101 + off + foff)[0]
        if cmd == 'get-item':
            print(value)
            return 0
        value = args[6] if cmd == 'set-item' else value + args[6]
        struct.pack_into(fmt, data, 101 + off + foff, value % (1 << (8 * width)))
        img.write_block(blk, data)
    elif cmd == 'set-key':
        tree, obj, typ, koff, nobj, ntyp, noff = args
        blk, slot, key, off, size = img.find(tree, obj, typ, koff)
        data = img.read_block(blk)
        struct.pack_into('<QBQ', data, 101 + slot * 25, nobj, ntyp, noff)
        img.write_block(blk, data)
    elif cmd == 'swap-keys':
        tree, obj, typ, koff = args
        blk, slot, key, off, size = img.find(tree, obj, typ, koff)
        data = img.read_block(blk)
        nritems, level = img.header(data)
        if slot + 1 >= nritems:
            raise SystemExit('item is the last of its leaf')
        a, b = 101 + slot * 25, 101 + (slot + 1) * 25
        ka, kb = bytes(data[a:a + 17]), bytes(data[b:b + 17])
        data[a:a + 17], data[b:b + 17] = kb, ka
        img.write_block(blk, data)
    elif cmd in ('get-super', 'set-super'):
        foff, width = args[:2]
        fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}[width]
        if foff < 32 or foff + width > 4096:
            raise SystemExit('field outside the checksummed superblock')
        if cmd == 'get-super':
            print(struct.unpack_from(fmt, img.sb, foff)[0])
            return 0
        size = os.fstat(img.f.fileno()).st_size
        for where in (SUPER_OFF, 64 << 20, 256 << 30):
            if where + 4096 > size:
                break
            img.f.seek(where)
            sb = bytearray(img.f.read(4096))
            if sb[64:72] != b'_BHRfS_M':
                continue
            struct.pack_into(fmt, sb, foff, args[2] % (1 << (8 * width)))
            struct.pack_into('<I', sb, 0, crc32c(bytes(sb[32:])))
            img.f.seek(where)
            img.f.write(sb)
    elif cmd == 'add-super':
        foff, width, delta = args[:3]
        fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}[width]
        sb = bytearray(img.sb)
        value = struct.unpack_from(fmt, sb, foff)[0] + delta
        struct.pack_into(fmt, sb, foff, value % (1 << (8 * width)))
        struct.pack_into('<I', sb, 0, crc32c(bytes(sb[32:4096])))
        img.f.seek(SUPER_OFF)
        img.f.write(sb)
        img.f.flush()
    elif cmd in ('get-block', 'set-block'):
        blk, foff, width = args[:3]
        fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}[width]
        if foff < 32 or foff + width > img.nodesize:
            raise SystemExit('field outside the checksummed block')
        data = img.read_block(blk)
        if cmd == 'get-block':
            print(struct.unpack_from(fmt, data, foff)[0])
            return 0
        value = args[3]
        struct.pack_into(fmt, data, foff, value % (1 << (8 * width)))
        img.write_block(blk, data)
    elif cmd == 'parent-of':
        tree, blk = args
        stack = [img.tree_root(tree)]
        while stack:
            node = stack.pop()
            data = img.read_block(node)
            nritems, level = img.header(data)
            if level == 0:
                continue
            for slot in range(nritems):
                ptr = struct.unpack_from('<Q', data, 101 + 33 * slot + 17)[0]
                if ptr == blk:
                    print(node, slot)
                    return 0
                stack.append(ptr)
        raise SystemExit('no node of tree %d points to %d' % (tree, blk))
    elif cmd == 'shift-data':
        tree, obj, typ, koff, delta = args
        blk, slot, key, off, size = img.find(tree, obj, typ, koff)
        data = img.read_block(blk)
        nritems, level = img.header(data)
        low = img.item(data, nritems - 1)[1]
        if delta <= 0 or low - delta < 25 * nritems:
            raise SystemExit('not enough free space in the leaf')
        top = off + size
        data[101 + low - delta:101 + top - delta] = data[101 + low:101 + top]
        for s in range(slot, nritems):
            k, o, sz = img.item(data, s)
            struct.pack_into('<I', data, 101 + s * 25 + 17, o - delta)
        img.write_block(blk, data)
    elif cmd == 'insert-item':
        tree, obj, typ, koff, isize = args
        new = (obj, typ, koff)
        prev = None
        for b, slot, key, off, size in img.walk_leaves(img.tree_root(tree)):
            if key >= new:
                break
            prev = (b, slot)
        if prev is None:
            raise SystemExit('the key would be the first of the tree')
        blk, slot = prev[0], prev[1] + 1
        data = img.read_block(blk)
        nritems, level = img.header(data)
        if slot >= nritems:
            raise SystemExit('the key would be the last of its leaf')
        low = img.item(data, nritems - 1)[1]
        if low - isize < 25 * (nritems + 1):
            raise SystemExit('not enough free space in the leaf')
        top = img.item(data, slot - 1)[1]
        # the data of slot.. moves down to make room below slot-1's data
        data[101 + low - isize:101 + top - isize] = data[101 + low:101 + top]
        data[101 + top - isize:101 + top] = bytes(isize)
        for s in range(slot, nritems):
            k, o, sz = img.item(data, s)
            struct.pack_into('<I', data, 101 + s * 25 + 17, o - isize)
        hdr = 101 + slot * 25
        data[hdr + 25:101 + (nritems + 1) * 25] = data[hdr:101 + nritems * 25]
        struct.pack_into('<QBQII', data, hdr, obj, typ, koff, top - isize, isize)
        struct.pack_into('<I', data, 96, nritems + 1)
        img.write_block(blk, data)
    elif cmd == 'move-items':
        src, slot, n, dst = args[:4]
        keep = len(args) > 4 and args[4]
        sdata, ddata = img.read_block(src), img.read_block(dst)
        if img.header(sdata)[1] or img.header(ddata)[1]:
            raise SystemExit('not a leaf')
        sitems = img.items(sdata)
        if slot + n > len(sitems):
            raise SystemExit('the leaf has only %d items' % len(sitems))
        img.set_items(ddata, img.items(ddata) + sitems[slot:slot + n])
        img.write_block(dst, ddata)
        if not keep:
            img.set_items(sdata, sitems[:slot] + sitems[slot + n:])
            img.write_block(src, sdata)
    elif cmd == 'move-ptrs':
        src, slot, n, dst = args
        sdata, ddata = img.read_block(src), img.read_block(dst)
        snr, slevel = img.header(sdata)
        dnr, dlevel = img.header(ddata)
        if not slevel or slevel != dlevel or slot + n > snr:
            raise SystemExit('not two nodes of one level, or not that many pointers')
        if 101 + 33 * (dnr + n) > img.nodesize:
            raise SystemExit('the pointers do not fit the node')
        moved = sdata[101 + 33 * slot:101 + 33 * (slot + n)]
        ddata[101 + 33 * dnr:101 + 33 * (dnr + n)] = moved
        struct.pack_into('<I', ddata, 96, dnr + n)
        rest = sdata[101 + 33 * (slot + n):101 + 33 * snr]
        sdata[101 + 33 * slot:101 + 33 * (snr - n)] = rest
        sdata[101 + 33 * (snr - n):101 + 33 * snr] = bytes(33 * n)
        struct.pack_into('<I', sdata, 96, snr - n)
        img.write_block(dst, ddata)
        img.write_block(src, sdata)
    elif cmd == 'children':
        data = img.read_block(args[0])
        nr, level = img.header(data)
        if not level:
            raise SystemExit('%d is not a node' % args[0])
        for slot in range(nr):
            key = struct.unpack_from('<QBQ', data, 101 + 33 * slot)
            child = struct.unpack_from('<Q', data, 101 + 33 * slot + 17)[0]
            cdata = img.read_block(child)
            cnr, clevel = img.header(cdata)
            step = 33 if clevel else 25
            first = struct.unpack_from('<QBQ', cdata, 101)
            last = struct.unpack_from('<QBQ', cdata, 101 + step * (cnr - 1))
            print(slot, child, *key, *first, *last, cnr)
    elif cmd == 'set-ptr-key':
        node, slot, obj, typ, koff = args
        data = img.read_block(node)
        nr, level = img.header(data)
        if not level or slot >= nr:
            raise SystemExit('no key pointer %d in %d' % (slot, node))
        struct.pack_into('<QBQ', data, 101 + 33 * slot, obj, typ, koff)
        img.write_block(node, data)
    elif cmd in ('break-csum', 'break-block'):
        # break-block: the header's bytenr too, so that the block is not
        # one whose checksum alone is wrong (which a repair may take back)
        blk = args[0]
        data = img.read_block(blk)
        data[0] ^= 0xFF
        if cmd == 'break-block':
            data[48] ^= 0xFF
        img.write_block(blk, data, fix_csum=False)
    elif cmd == 'leaf-items':
        data = img.read_block(args[0])
        nritems, level = img.header(data)
        for s in range(nritems):
            key, off, size = img.item(data, s)
            print(s, '%d %d %d' % key, off, size,
                  bytes(data[101 + off:101 + off + size]).hex())
    elif cmd == 'wipe-csum':
        blk = args[0]
        data = img.read_block(blk)
        print('0x%08x' % int.from_bytes(data[0:4], 'little'))
        data[0:32] = bytes(32)
        img.write_block(blk, data, fix_csum=False)
    else:
        print('unknown command ' + cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
