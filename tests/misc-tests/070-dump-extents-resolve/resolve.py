#!/usr/bin/python3
# Owner resolution of ghee dump-extents against the kernel's own view.
#
#   resolve.py ghee GHEE DEV[,DEV...] STATE.json [MAX]
#       unmounted: sample data extent addresses from ghee's own list and
#       record ghee's answers (--logical, --physical, --inode/--subvol)
#   resolve.py kernel DEV[,DEV...] MNT STATE.json
#   (DEV... are the device files in devid order)
#       mounted: btrfs inspect-internal logical-resolve / inode-resolve give
#       the same path sets; the bytes at each physical copy are the file's
import json
import os
import subprocess
import sys


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return json.loads(p.stdout)


def ghee_side(ghee, devs, state_path, maxn):
    img = devs.split(",")
    doc = run_json([ghee, "dump-extents", "--data", "--no-paths", "--format", "json", "--noscan"] + img)
    exts = [e for e in doc["extents"] if e["kind"] == "data"]
    if len(exts) < 50:
        sys.exit("FAIL: only %d data extents" % len(exts))
    step = max(1, len(exts) // maxn)
    addrs = []
    for i, e in enumerate(exts[::step]):
        off = 0
        # inside the extent too: only the items covering it count
        if e["length"] > 8192 and i % 2:
            off = (e["length"] // 2) // 4096 * 4096 + 17
        addrs.append(e["bytenr"] + off)
    samples = []
    inodes = {}
    physical_checked = 0
    for a in addrs:
        d = run_json([ghee, "dump-extents", "--logical", str(a), "--format", "json", "--noscan"] + img)
        (ext,) = d["extents"]
        paths = sorted({p for o in ext["owners"] for p in o["paths"]})
        copies = [(c["devid"], c["physical"]) for c in d["chunk"]["copies"]]
        # every other address: each of its copies maps back
        for devid, phys in (copies if len(samples) % 2 == 0 else []):
            p = run_json([ghee, "dump-extents", "--physical", "%d:%d" % (devid, phys),
                          "--format", "json", "--noscan"] + img)
            if p["physical"]["logical"] != a or p["logical"] != a:
                sys.exit("FAIL: physical %d:%d maps to %d, expected %d" %
                         (devid, phys, p["physical"]["logical"], a))
            physical_checked += 1
        samples.append({"logical": a, "paths": paths, "copies": copies,
                        "owners": ext["owners"]})
        for o in ext["owners"]:
            inodes.setdefault((o["subvol"], o["inode"]), None)
    files = []
    for (subvol, ino) in sorted(inodes)[:80]:
        d = run_json([ghee, "dump-extents", "--inode", str(ino), "--subvol", str(subvol),
                      "--format", "json", "--noscan"] + img)
        files.append({"subvol": subvol, "inode": ino, "subvol_path": d["subvol_path"],
                      "paths": sorted(d["paths"])})
    json.dump({"samples": samples, "files": files}, open(state_path, "w"))
    print("ghee: %d addresses, %d physical copies mapped back, %d files" %
          (len(samples), physical_checked, len(files)))


def kernel_paths(cmd, mnt):
    p = subprocess.run(cmd, capture_output=True, text=True)
    out = set()
    for line in p.stdout.splitlines():
        if line.startswith(mnt + "/") or line == mnt:
            out.add(line[len(mnt):] or "/")
        elif line.strip():
            out.add("?" + line.strip())
    return p.returncode, out, p.stderr


def kernel_side(img, mnt, state_path):
    mnt = os.path.abspath(mnt)
    st = json.load(open(state_path))
    bad = 0
    nonempty = 0
    content = 0
    subvol_paths = {5: ""}
    ino_paths = {}

    def subvol_path(root):
        # btrfs-progs prints the path from the top level, without a slash
        if root not in subvol_paths:
            p = subprocess.run(["btrfs", "inspect-internal", "subvolid-resolve",
                                str(root), mnt], capture_output=True, text=True)
            subvol_paths[root] = "/" + p.stdout.strip() if p.returncode == 0 else None
        return subvol_paths[root]

    def paths_of(root, ino):
        if (root, ino) not in ino_paths:
            sp = subvol_path(root)
            if sp is None:
                ino_paths[(root, ino)] = {"?unreachable subvol %d" % root}
            else:
                ino_paths[(root, ino)] = kernel_paths(
                    ["btrfs", "inspect-internal", "inode-resolve", str(ino), mnt + sp],
                    mnt)[1]
        return ino_paths[(root, ino)]

    fds = [os.open(d, os.O_RDONLY) for d in img.split(",")]
    for s in st["samples"]:
        # the kernel's own resolution (LOGICAL_INO): inode, offset, root triples
        p = subprocess.run(["btrfs", "inspect-internal", "logical-resolve", "-P",
                            str(s["logical"]), mnt], capture_output=True, text=True)
        ktrip = set()
        for line in p.stdout.splitlines():
            w = line.split()
            if len(w) == 6 and w[0] == "inode":
                ktrip.add((int(w[5]), int(w[1]), int(w[3])))
        gtrip = {(o["subvol"], o["inode"], o["offset"]) for o in s["owners"]}
        kp = set()
        for (root, ino, off) in ktrip:
            kp |= paths_of(root, ino)
        gp = set(s["paths"])
        if kp != gp or ktrip != gtrip:
            bad += 1
            if bad <= 10:
                print("MISMATCH logical %d: kernel %s %s ghee %s %s" %
                      (s["logical"], sorted(ktrip), sorted(kp), sorted(gtrip), sorted(gp)))
        if gp:
            nonempty += 1
    # the bytes at every copy are those of the file at the owner's offset
        for o in s["owners"]:
            if o["compression"] or not o["paths"]:
                continue
            with open(mnt + o["paths"][0], "rb") as f:
                f.seek(o["offset"])
                want = f.read(512)
            for devid, phys in s["copies"]:
                got = os.pread(fds[devid - 1], len(want), phys)
                if got != want:
                    bad += 1
                    print("MISMATCH data at devid %d physical %d (logical %d, %s offset %d)" %
                          (devid, phys, s["logical"], o["paths"][0], o["offset"]))
                content += 1
            break
    for f in st["files"]:
        sp = subvol_path(f["subvol"])
        if sp != (f["subvol_path"] if f["subvol_path"] != "/" else ""):
            bad += 1
            print("MISMATCH subvol %d path: kernel %s ghee %s" %
                  (f["subvol"], sp, f["subvol_path"]))
        kp = paths_of(f["subvol"], f["inode"])
        if kp != set(f["paths"]):
            bad += 1
            print("MISMATCH inode %d subvol %d: kernel %s ghee %s" %
                  (f["inode"], f["subvol"], sorted(kp), f["paths"]))
    for fd in fds:
        os.close(fd)
    print("kernel: %d addresses (%d with owners), %d files, %d copies read, %d mismatches" %
          (len(st["samples"]), nonempty, len(st["files"]), content, bad))
    if nonempty < len(st["samples"]) // 2 or content == 0:
        sys.exit("FAIL: too few resolved samples")
    if bad:
        sys.exit("FAIL: %d mismatches" % bad)


if __name__ == "__main__":
    if sys.argv[1] == "ghee":
        ghee_side(sys.argv[2], sys.argv[3], sys.argv[4],
                  int(sys.argv[5]) if len(sys.argv) > 5 else 300)
    else:
        kernel_side(sys.argv[2], sys.argv[3], sys.argv[4])
