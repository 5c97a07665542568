#!/bin/bash
# ghee map --physical draws each used extent where the kernel put its
# bytes on each device, for every profile (single, DUP, RAID0, RAID1,
# RAID10, RAID5, RAID6, RAID1C3).  The kernel writes file A (40 MiB) and
# then file B (4 MiB), every 4 KiB block starting with a marker naming its
# file, and A is deleted (nodiscard: its bytes stay on the devices).  The
# device files are then scanned for the markers: where the kernel wrote
# them.  In the picture, every B block must lie on a used rectangle of
# its device's band and every A block (free again) on none, away from the
# boundaries of the two (two pixels).
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3
command -v xmllint >/dev/null || skip "xmllint is not installed"

mnt=$TEST_TMP/mnt
mkdir -p "$mnt"
write_marked()
{
	python3 - "$1" "$2" "$3" <<'PY'
import sys
path, tag, mib = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
with open(path, "wb") as f:
    for i in range(mib * 256):
        f.write((b"GHEEMARK" + tag + b"%010d" % i).ljust(4096, tag))
PY
}

run_profile()
{
	local prof=$1 nd=$2 devs=() loops=() i opts="" mopt=raid1
	[ "$nd" = 1 ] && mopt=dup
	for i in $(seq 1 "$nd"); do
		devs+=("$TEST_TMP/dev$i")
		rm -f "$TEST_TMP/dev$i"
		truncate -s 320M "$TEST_TMP/dev$i"
	done
	mkfs.btrfs -q -f -d "$prof" -m "$mopt" "${devs[@]}" >/dev/null 2>&1 ||
		fail "mkfs.btrfs -d $prof failed"
	loops=()
	for i in "${!devs[@]}"; do
		loops+=("$(losetup --find --show "${devs[i]}")") || fail "losetup failed"
		at_exit "detach_file '${devs[i]}'"
	done
	for i in "${loops[@]}"; do opts+=",device=$i"; done
	mount_loops "$mnt" "noatime,nodiscard$opts" "${loops[@]}" || fail "mount ($prof) failed"
	at_exit "umount $mnt 2>/dev/null"
	write_marked "$mnt/a" A 40 && sync && write_marked "$mnt/b" B 4 && sync &&
		rm "$mnt/a" && sync || fail "writing the files ($prof) failed"
	umount "$mnt" || fail "umount failed"
	for i in "${loops[@]}"; do losetup -d "$i"; done
	"$GHEE" map --physical --noscan -o "$TEST_TMP/map.svg" "${devs[@]}" ||
		fail "ghee map --physical ($prof) failed"
	xmllint --noout "$TEST_TMP/map.svg" || fail "the SVG ($prof) is not valid XML"
	python3 - "$prof" "$TEST_TMP/map.svg" "${devs[@]}" <<'PY' || fail "$prof: the picture does not show the kernel's placement"
import struct, sys, xml.etree.ElementTree as ET
prof, svg, devs = sys.argv[1], sys.argv[2], sys.argv[3:]
NS = "{http://www.w3.org/2000/svg}"
MARGIN, PITCH = 16, 9          # cmds/map.c: left margin, row height + gap
root = ET.parse(svg).getroot()
bands = {}                      # devid -> (top, bytes per pixel)
for r in root.iter(NS + "rect"):
    if r.get("class") == "device":
        bands[int(r.get("data-devid"))] = (float(r.get("y")), float(r.get("data-bytes-per-pixel")))
used = {d: [] for d in bands}   # devid -> used byte ranges on the device
for g in root.iter(NS + "g"):
    gid = g.get("id") or ""
    if "-devid-" not in gid:
        continue
    devid = int(gid.split("-devid-")[1].split("-")[0])
    top, bpp = bands[devid]
    rects = g.findall(NS + "rect")
    background = rects[0].get("fill")
    for r in rects[1:]:
        if r.get("fill") in (background, "#333333"):
            continue
        row = round((float(r.get("y")) - top) / PITCH)
        x = float(r.get("x")) - MARGIN
        a = (row * 1024 + x) * bpp
        used[devid].append((a, a + float(r.get("width")) * bpp))
for d in used:
    used[d].sort()
def is_used(devid, pos):
    return any(a <= pos < b for a, b in used[devid])
marks = {}                      # devid -> {offset: file}
for path in devs:
    with open(path, "rb") as f:
        f.seek(65536)
        devid = struct.unpack_from("<Q", f.read(4096), 0xc9)[0]
        f.seek(0)
        m, off = {}, 0
        while True:
            buf = f.read(1 << 20)
            if not buf:
                break
            for i in range(0, len(buf), 4096):
                if buf[i:i + 8] == b"GHEEMARK":
                    m[off + i] = buf[i + 8:i + 9].decode()
            off += len(buf)
        marks[devid] = m
checked = {"A": 0, "B": 0}
bad = []
for devid, m in marks.items():
    top, bpp = bands[devid]
    tol = int(2 * bpp) + 4096
    for pos, who in m.items():
        near = [m.get(p) for p in range(pos - tol // 4096 * 4096, pos + tol + 1, 4096)]
        if any(n != who for n in near):
            continue            # next to the other file or a gap: pixel rounding
        checked[who] += 1
        if is_used(devid, pos + 2048) != (who == "B"):
            bad.append((devid, pos, who))
print("%s: %d devices, %d B and %d A blocks checked, %d misplaced" %
      (prof, len(marks), checked["B"], checked["A"], len(bad)))
for b in bad[:5]:
    print("  devid %d offset %d: file %s block drawn %s" %
          (b[0], b[1], b[2], "free" if b[2] == "B" else "used"))
sys.exit(1 if bad or checked["A"] < 100 or checked["B"] < 100 else 0)
PY
}

run_profile single 1
run_profile dup 1
run_profile raid0 2
run_profile raid1 2
run_profile raid10 4
run_profile raid5 3
run_profile raid6 4
run_profile raid1c3 3
