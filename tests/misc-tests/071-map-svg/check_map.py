#!/usr/bin/python3
# check_map.py MAP.svg MAP.png CHUNKS.txt BGS.txt
#   CHUNKS.txt: btrfs-progs' dump-tree -t chunk; BGS.txt: its dump-tree of
#   the tree holding BLOCK_GROUP_ITEMs.  For each block group progs lists:
#   the map has a group with its start, length and used numbers in the
#   title and class of its type; the PNG pixel in the middle of the
#   group's first rectangle has the type's colour (data blue, metadata
#   green, system red); a partly used data group shows both used and free.
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib


class Png:
    # 8-bit RGB/RGBA, not interlaced: what rsvg-convert writes
    def __init__(self, path):
        data = open(path, "rb").read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            sys.exit("FAIL: %s is not a PNG" % path)
        pos, idat = 8, b""
        while pos < len(data):
            n, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + n]
            if kind == b"IHDR":
                self.w, self.h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
                if depth != 8 or ctype not in (2, 6) or lace:
                    sys.exit("FAIL: unexpected PNG format %d/%d/%d" % (depth, ctype, lace))
                self.bpp = 3 if ctype == 2 else 4
            elif kind == b"IDAT":
                idat += body
            pos += 12 + n
        raw = zlib.decompress(idat)
        stride = self.w * self.bpp
        rows, prev = [], bytearray(stride)
        for y in range(self.h):
            f = raw[y * (stride + 1)]
            line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for i in range(stride):
                a = line[i - self.bpp] if i >= self.bpp else 0
                b = prev[i]
                c = prev[i - self.bpp] if i >= self.bpp else 0
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 2:
                    line[i] = (line[i] + b) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                    line[i] = (line[i] + pr) & 255
            rows.append(line)
            prev = line
        self.rows = rows

    def getpixel(self, xy):
        x, y = xy
        p = self.rows[y][x * self.bpp:x * self.bpp + 3]
        return p[0], p[1], p[2]

NS = "{http://www.w3.org/2000/svg}"
svg, png, chunks_txt, bgs_txt = sys.argv[1:5]

groups = {}
for m in re.finditer(r"key \(FIRST_CHUNK_TREE CHUNK_ITEM (\d+)\).*?\n\s+length (\d+) owner \d+ "
                     r"stripe_len \d+ type (\S+)", open(chunks_txt).read()):
    groups[int(m.group(1))] = {"length": int(m.group(2)), "type": m.group(3).split("|")[0]}
for m in re.finditer(r"key \((\d+) BLOCK_GROUP_ITEM (\d+)\).*?\n\s+block group used (\d+)",
                     open(bgs_txt).read()):
    groups[int(m.group(1))]["used"] = int(m.group(3))
if not groups:
    sys.exit("FAIL: no chunk in the progs dump")

root = ET.parse(svg).getroot()
img = Png(png)
scale = img.w / float(root.get("width"))
names = {"DATA": "data", "METADATA": "metadata", "SYSTEM": "system"}
seen = set()
bad = 0
for g in root.iter(NS + "g"):
    gid = g.get("id", "")
    if not gid.startswith("bg-"):
        continue
    start = int(gid[3:].split("-")[0])
    want = groups.get(start)
    if want is None:
        print("FAIL: group %d is not a chunk progs knows" % start)
        bad += 1
        continue
    seen.add(start)
    kind = names[want["type"]]
    title = g.find(NS + "title").text
    if not title.startswith(kind + " ") or "length %d " % want["length"] not in title or \
            "used %d " % want.get("used", -1) not in title:
        print("FAIL: group %d title %r, progs says %s length %d used %s" %
              (start, title, kind, want["length"], want.get("used")))
        bad += 1
    rects = g.findall(NS + "rect")
    r = rects[0]
    x = (float(r.get("x")) + float(r.get("width")) / 2) * scale
    y = (float(r.get("y")) + float(r.get("height")) / 2) * scale
    pr, pg, pb = img.getpixel((int(x), int(y)))
    ok = {"data": pb > pr + 25 and pb > pg + 25,
          "metadata": pg > pr + 25 and pg > pb + 25,
          "system": pr > pg + 25 and pr > pb + 25}[kind]
    print("group %d %s: pixel (%d,%d) = #%02x%02x%02x %s" %
          (start, kind, x, y, pr, pg, pb, "ok" if ok else "WRONG COLOUR"))
    if not ok:
        bad += 1
    fills = {r.get("fill") for r in rects}
    if kind == "data" and 0 < want.get("used", 0) < want["length"] and len(fills) < 2:
        print("FAIL: data group %d: used and free parts are not both drawn" % start)
        bad += 1
missing = set(groups) - seen
if missing:
    print("FAIL: groups missing from the map: %s" % sorted(missing))
    bad += 1
kinds = {names[groups[s]["type"]] for s in seen}
if kinds != {"data", "metadata", "system"}:
    print("FAIL: the image should have data, metadata and system groups: %s" % kinds)
    bad += 1
sys.exit(1 if bad else 0)
