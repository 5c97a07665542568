#!/usr/bin/python3
# sweep.py GHEE DEV[,DEV...] CHUNKS.txt ROWS
# For each striped data chunk in btrfs-progs' dump of the chunk tree, ask
# ghee dump-extents --physical for a point of every stripe of the first
# ROWS rows on every device: every data stripe of those rows must come
# back exactly once per copy (RAID10: sub_stripes times), at its logical
# address, and parity (RAID5/6) exactly once per row per parity stripe.
import json
import re
import subprocess
import sys

ghee, devs, chunks_txt, rows = sys.argv[1], sys.argv[2].split(","), sys.argv[3], int(sys.argv[4])
text = open(chunks_txt).read()
checked = 0
for m in re.finditer(r"CHUNK_ITEM (\d+)\) itemoff \d+ itemsize \d+\n\s+length (\d+) owner \d+ "
                     r"stripe_len (\d+) type (\S+)\n.*\n\s+num_stripes (\d+) sub_stripes (\d+)\n"
                     r"((?:\s+stripe \d+ devid \d+ offset \d+\n\s+dev_uuid \S+\n)+)", text):
    start, length, sl, ctype = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
    n, sub = int(m.group(5)), int(m.group(6))
    stripes = [(int(a), int(b)) for a, b in re.findall(r"devid (\d+) offset (\d+)", m.group(7))]
    prof = ctype.split("|")[1] if "|" in ctype else "single"
    if not ctype.startswith("DATA") or prof not in ("RAID0", "RAID10", "RAID5", "RAID6"):
        continue
    npar = {"RAID5": 1, "RAID6": 2}.get(prof, 0)
    ndata = n - npar if npar else (n // sub if prof == "RAID10" else n)
    copies = sub if prof == "RAID10" else 1
    hits, parity = {}, 0
    for row in range(rows):
        for devid, off in stripes:
            phys = off + row * sl + 4096
            p = subprocess.run([ghee, "dump-extents", "--physical", "%d:%d" % (devid, phys),
                                "--format", "json", "--noscan"] + devs,
                               capture_output=True, text=True)
            try:
                d = json.loads(p.stdout)["physical"]
            except (ValueError, KeyError):
                sys.exit("FAIL: --physical %d:%d: %s" % (devid, phys, p.stderr))
            if d["chunk"] != start:
                sys.exit("FAIL: %d:%d is in chunk %d, expected %d" % (devid, phys, d["chunk"], start))
            if d["parity"]:
                parity += 1
            else:
                hits[d["logical"]] = hits.get(d["logical"], 0) + 1
    want = {start + k * sl + 4096 for k in range(rows * ndata)}
    if set(hits) != want or any(c != copies for c in hits.values()) or parity != rows * npar:
        sys.exit("FAIL: chunk %d %s: %d data stripes hit (want %d, %d copies each), %d parity "
                 "(want %d); extra %s missing %s" %
                 (start, prof, len(hits), len(want), copies, parity, rows * npar,
                  sorted(set(hits) - want)[:4], sorted(want - set(hits))[:4]))
    checked += 1
    print("chunk %d %s: %d stripes x %d rows map back (%d parity)" % (start, prof, n, rows, parity))
if not checked:
    sys.exit("FAIL: no striped data chunk found")
