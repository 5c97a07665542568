#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check ghee dump-super --format json against its own text output.

usage: json-check.py GHEE IMG...

For each IMG (one process for all: a Python start costs more than a check),
loads "GHEE dump-super --format json -fF -a IMG" (it must be valid JSON of
the documented shape, even when an error ends it early) and, for every copy
printed, compares the values with those of
"GHEE dump-super -fF --bytenr OFFSET IMG".  Exit 0 when all agree, else 1
after naming every image that does not.
"""
import json
import re
import subprocess
import sys

# text label -> function of the JSON superblock object
CHECKS = {
    "csum_type": lambda s: "%d (%s)" % (s["csum_type"]["value"],
                                        s["csum_type"]["name"] or "INVALID"),
    "csum_size": lambda s: str(s["csum_size"]),
    "bytenr": lambda s: str(s["bytenr"]),
    "flags": lambda s: hex(s["flags"]["value"]),
    "fsid": lambda s: s["fsid"],
    "metadata_uuid": lambda s: s["metadata_uuid"],
    "generation": lambda s: str(s["generation"]),
    "root": lambda s: str(s["root"]),
    "sys_array_size": lambda s: str(s["sys_array_size"]),
    "chunk_root": lambda s: str(s["chunk_root"]),
    "total_bytes": lambda s: str(s["total_bytes"]),
    "bytes_used": lambda s: str(s["bytes_used"]),
    "sectorsize": lambda s: str(s["sectorsize"]),
    "nodesize": lambda s: str(s["nodesize"]),
    "num_devices": lambda s: str(s["num_devices"]),
    "compat_ro_flags": lambda s: hex(s["compat_ro_flags"]["value"]),
    "incompat_flags": lambda s: hex(s["incompat_flags"]["value"]),
    "dev_item.uuid": lambda s: s["dev_item"]["uuid"],
    "dev_item.devid": lambda s: str(s["dev_item"]["devid"]),
    "dev_item.total_bytes": lambda s: str(s["dev_item"]["total_bytes"]),
}


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def text_fields(text):
    fields = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z_.]+)\t+(.*)$", line)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2)
    return fields


def check_one(ghee, img, sb):
    errors = []
    t = run(ghee, "dump-super", "-fF", "--bytenr", str(sb["offset"]), img)
    fields = text_fields(t.stdout)
    for label, get in CHECKS.items():
        want = fields.get(label, "").split(" [")[0]
        got = get(sb)
        if want != got:
            errors.append("%s at %d: text %r, json %r" % (label, sb["offset"], want, got))
    csum_text = fields.get("csum", "")
    if csum_text.split(" ")[0] != "0x" + sb["csum"]:
        errors.append("csum: text %r, json %r" % (csum_text, sb["csum"]))
    if ("[match]" in csum_text) != sb["csum_match"]:
        errors.append("csum_match disagrees with %r" % csum_text)
    if ("[match]" in fields.get("dev_item.fsid", "")) != sb["dev_item"]["fsid_match"]:
        errors.append("dev_item.fsid_match disagrees")
    items = len(re.findall(r"^\titem \d+ key", t.stdout, re.M))
    # the text also shows the key of an item that turned out unusable
    chunks = len(sb["sys_chunk_array"])
    if items != chunks and not (sb["sys_chunk_array_error"] and items == chunks + 1):
        errors.append("sys_chunk_array: %d items in text, %d in json" % (items, chunks))
    backups = len(re.findall(r"^\tbackup \d+:", t.stdout, re.M))
    if backups != len(sb["backup_roots"]):
        errors.append("backup_roots: %d in text, %d in json" % (backups, len(sb["backup_roots"])))
    return errors


def check_image(ghee, img):
    r = run(ghee, "dump-super", "--format", "json", "-fF", "-a", img)
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        print("invalid JSON from %s: %s" % (img, e))
        return 1
    if not isinstance(doc.get("ghee_version"), str) or not isinstance(doc.get("superblocks"), list):
        print("top level of the document is not as documented")
        return 1
    errors = []
    printed = 0
    for sb in doc["superblocks"]:
        for key in ("device", "offset", "mirror", "status"):
            if key not in sb:
                errors.append("superblock entry without %s" % key)
        if sb.get("status") != "ok":
            continue
        printed += 1
        errors += check_one(ghee, img, sb)
    for e in errors:
        print("%s: %s" % (img, e))
    if not printed:
        print("%s: no superblock printed" % img)
        return 1
    return 1 if errors else 0


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: json-check.py GHEE IMG...")
    ghee = argv[1]
    bad = [img for img in argv[2:] if check_image(ghee, img)]
    for img in bad:
        print("JSON of %s: wrong" % img)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
