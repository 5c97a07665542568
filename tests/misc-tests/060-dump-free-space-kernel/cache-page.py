#!/usr/bin/python3
# stdin: btrfs inspect-internal dump-tree -t 1; argv[1]: the chunk tree
# dump (-t 3), base64.  Prints "BLOCK_GROUP PHYSICAL" for the first v1
# cache file whose data lies in a single-profile chunk: the block group it
# caches and the device offset of the file's first page.
import base64
import re
import sys

chunks = []
cur = None
for line in base64.b64decode(sys.argv[1]).decode().splitlines():
    m = re.search(r"key \(FIRST_CHUNK_TREE CHUNK_ITEM (\d+)\)", line)
    if m:
        cur = {"logical": int(m.group(1))}
        chunks.append(cur)
    m = re.search(r"length (\d+) owner \d+ stripe_len \d+ type (\S+)", line)
    if m and cur is not None:
        cur["length"], cur["type"] = int(m.group(1)), m.group(2)
    m = re.search(r"stripe 0 devid \d+ offset (\d+)", line)
    if m and cur is not None and "offset" not in cur:
        cur["offset"] = int(m.group(1))

ino_of_bg, disk_of_ino, loc = {}, {}, None
key = None
for line in sys.stdin:
    m = re.search(r"key \(FREE_SPACE UNTYPED (\d+)\)", line)
    if m:
        key = ("bg", int(m.group(1)))
        continue
    m = re.search(r"key \((\d+) EXTENT_DATA 0\)", line)
    if m:
        key = ("ino", int(m.group(1)))
        continue
    if key and key[0] == "bg":
        m = re.search(r"location key \((\d+) INODE_ITEM 0\)", line)
        if m:
            ino_of_bg[key[1]] = int(m.group(1))
    if key and key[0] == "ino":
        m = re.search(r"extent data disk byte (\d+)", line)
        if m:
            disk_of_ino[key[1]] = int(m.group(1))
    if re.search(r"item \d+ key", line):
        key = None

for bg, ino in sorted(ino_of_bg.items()):
    disk = disk_of_ino.get(ino)
    if not disk:
        continue
    for c in chunks:
        if c["logical"] <= disk < c["logical"] + c.get("length", 0) and \
           c.get("type") in ("DATA", "DATA|single") and "offset" in c:
            print(bg, c["offset"] + disk - c["logical"])
            sys.exit(0)
sys.exit(1)
