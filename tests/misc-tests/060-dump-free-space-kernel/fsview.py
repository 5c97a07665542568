#!/usr/bin/python3
# The kernel's view of every block group of a mounted btrfs, through
# python3-btrfs (ioctls): used bytes from the block group item, the free
# space extents from the free space tree (or, without one, the gaps
# between the extent tree's items, as python-btrfs'
# show_free_space_fragmentation does), adjacent extents merged (bitmap
# items are unpacked one by one and may split a run).  One line per block
# group: start length used free nr_extents largest.
import sys
import btrfs

fs = btrfs.FileSystem(sys.argv[1])
try:
    list(fs.free_space_extents(0, 0))
    have_fst = True
except Exception:
    have_fst = False


def gaps(vaddr, length):
    cur = vaddr
    for ext in fs.extents(vaddr, vaddr + length - 1):
        if isinstance(ext, btrfs.ctree.ExtentItem):
            end = ext.vaddr + ext.length
        elif isinstance(ext, btrfs.ctree.MetaDataItem):
            end = ext.vaddr + fs.nodesize
        else:
            continue
        if ext.vaddr > cur:
            yield (cur, ext.vaddr - cur)
        cur = max(cur, end)
    if cur < vaddr + length:
        yield (cur, vaddr + length - cur)


def fst(vaddr, length):
    for e in fs.free_space_extents(vaddr, vaddr + length - 1):
        yield (e.vaddr, e.length)


for chunk in fs.chunks():
    bg = fs.block_group(chunk.vaddr, chunk.length)
    merged = []
    src = fst if have_fst else gaps
    for start, length in src(chunk.vaddr, chunk.length):
        if merged and merged[-1][0] + merged[-1][1] == start:
            merged[-1][1] += length
        else:
            merged.append([start, length])
    free = sum(m[1] for m in merged)
    largest = max((m[1] for m in merged), default=0)
    print(chunk.vaddr, chunk.length, bg.used, free, len(merged), largest)
