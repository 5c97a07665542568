#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The file extents and inode flags of a btrfs image's top subvolume, from
`btrfs inspect-internal dump-tree -t 5`, named by the first name of each
inode (its INODE_REF; names must be unique in the tree for a comparison).

  file-extents.py show IMG
      one line per regular file: name, inode flags, extents as
      OFFSET+LEN with z (compressed), i (inline), p (plain)
  file-extents.py same-decisions REFERENCE IMG
      exit 1 unless every file of REFERENCE is in IMG with the same
      NOCOMPRESS/COMPRESS flags, the same bytes stored compressed (the
      same compressed extents), inline exactly when REFERENCE is, and at
      most as many plain extents (plain stretches may be merged)
"""
import re
import subprocess
import sys


def parse(img):
    out = subprocess.run(["btrfs", "inspect-internal", "dump-tree", "-t", "5", img],
                         capture_output=True, text=True, errors="replace", check=True).stdout
    files = {}
    ino = kind = None
    for line in out.splitlines():
        m = re.search(r"item \d+ key \((\d+) (\w+) (\d+)\)", line)
        if m:
            ino, kind, off = int(m.group(1)), m.group(2), int(m.group(3))
            f = files.setdefault(ino, {"name": None, "flags": set(), "ext": [], "reg": False})
            if kind == "EXTENT_DATA":
                f["ext"].append([off, 0, "p"])
            continue
        if ino is None:
            continue
        f = files[ino]
        if kind == "INODE_ITEM":
            m = re.search(r"mode (\d+)", line)
            if m:
                f["reg"] = m.group(1).startswith("100")
            m = re.search(r"sequence \d+ flags 0x[0-9a-f]+\((.*)\)", line)
            if m:
                f["flags"] = set(x for x in m.group(1).split("|") if x != "none")
        elif kind == "INODE_REF" and f["name"] is None:
            m = re.search(r"name: (.*)", line)
            if m:
                f["name"] = m.group(1)
        elif kind == "EXTENT_DATA":
            e = f["ext"][-1]
            m = re.search(r"inline extent data size (\d+) ram_bytes (\d+) compression (\d+)", line)
            if m:
                e[1] = int(m.group(2))
                e[2] = "iz" if m.group(3) != "0" else "i"
            m = re.search(r"extent data offset \d+ nr (\d+) ram (\d+)", line)
            if m:
                e[1] = int(m.group(1))
            m = re.search(r"extent compression (\d+)", line)
            if m and m.group(1) != "0":
                e[2] = "z"
            m = re.search(r"extent data disk byte (\d+)", line)
            if m and m.group(1) == "0":
                e[2] = "hole"
    return {f["name"]: f for f in files.values() if f["reg"] and f["name"]}


def fmt(f):
    flags = ",".join(sorted(f["flags"])) or "-"
    return "%s %s" % (flags, " ".join("%d+%d%s" % (o, n, k) for o, n, k in f["ext"]))


def show(img):
    for name, f in sorted(parse(img).items()):
        print(name, fmt(f))


def same_decisions(ref_img, img):
    ref, got = parse(ref_img), parse(img)
    bad = 0
    for name, r in sorted(ref.items()):
        g = got.get(name)
        why = None
        if g is None:
            why = "missing"
        elif {"NOCOMPRESS", "COMPRESS"} & r["flags"] != {"NOCOMPRESS", "COMPRESS"} & g["flags"]:
            why = "flags"
        elif [e for e in r["ext"] if "z" in e[2]] != [e for e in g["ext"] if "z" in e[2]]:
            why = "compressed extents"
        elif any(e[2].startswith("i") for e in r["ext"]) != any(e[2].startswith("i") for e in g["ext"]):
            why = "inline"
        elif len([e for e in g["ext"] if e[2] == "p"]) > len([e for e in r["ext"] if e[2] == "p"]):
            why = "more plain extents"
        if why:
            bad += 1
            print("%s: %s: reference %s, image %s" % (name, why, fmt(r), fmt(g) if g else "-"))
    print("%d files compared, %d differ" % (len(ref), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "show":
        show(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "same-decisions":
        sys.exit(same_decisions(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
