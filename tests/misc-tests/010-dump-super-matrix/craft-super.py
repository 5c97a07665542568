#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Edit fields of one superblock copy in an image, for tests.

usage: craft-super.py IMG OFFSET EDIT... [--no-csum]

OFFSET is the byte offset of the copy (65536 for the primary).  Each EDIT
is one of
    FIELD=NUMBER   a named integer field (see FIELDS), NUMBER in C syntax
    @POS=HEX       raw bytes at byte POS of the superblock
    label=TEXT     the label (UTF-8, NUL padded to 256 bytes)
The checksum is recomputed afterwards (crc32c, sha256, blake2b; xxhash64
and unknown types are left alone) unless --no-csum is given.
"""
import os
import hashlib
import struct
import sys

SUPER_SIZE = 4096
CSUM_SIZE = 32

# name: (offset, struct format)
FIELDS = {
    "bytenr": (48, "<Q"), "flags": (56, "<Q"), "magic": (64, "<Q"),
    "generation": (72, "<Q"), "root": (80, "<Q"), "chunk_root": (88, "<Q"),
    "log_root": (96, "<Q"), "total_bytes": (112, "<Q"),
    "bytes_used": (120, "<Q"), "num_devices": (136, "<Q"),
    "sectorsize": (144, "<I"), "nodesize": (148, "<I"),
    "leafsize": (152, "<I"), "stripesize": (156, "<I"),
    "sys_array_size": (160, "<I"), "compat": (172, "<Q"),
    "compat_ro": (180, "<Q"), "incompat": (188, "<Q"),
    "csum_type": (196, "<H"), "root_level": (198, "<B"),
    "cache_generation": (555, "<Q"), "uuid_tree_generation": (563, "<Q"),
    "nr_global_roots": (587, "<Q"), "block_group_root": (595, "<Q"),
    "block_group_root_generation": (603, "<Q"),
    "block_group_root_level": (611, "<B"),
}


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "pylib"))
from btrfs_crc import crc32c  # noqa: E402


def digest(csum_type, data):
    if csum_type == 0:
        return struct.pack("<I", crc32c(data))
    if csum_type == 2:
        return hashlib.sha256(data).digest()
    if csum_type == 3:
        return hashlib.blake2b(data, digest_size=32).digest()
    return None


def apply_edit(sb, edit):
    key, _, value = edit.partition("=")
    if key.startswith("@"):
        pos = int(key[1:], 0)
        raw = bytes.fromhex(value)
        if pos < 0 or pos + len(raw) > SUPER_SIZE:
            sys.exit("edit %s does not fit in the superblock" % edit)
        sb[pos:pos + len(raw)] = raw
    elif key == "label":
        sb[299:299 + 256] = value.encode("utf-8", "surrogateescape").ljust(256, b"\0")[:256]
    elif key in FIELDS:
        pos, fmt = FIELDS[key]
        struct.pack_into(fmt, sb, pos, int(value, 0))
    else:
        sys.exit("unknown field %s" % key)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    path, offset = argv[1], int(argv[2], 0)
    edits = [a for a in argv[3:] if a != "--no-csum"]
    with open(path, "r+b") as f:
        f.seek(offset)
        sb = bytearray(f.read(SUPER_SIZE))
        if len(sb) != SUPER_SIZE:
            sys.exit("no superblock at %d in %s" % (offset, path))
        for edit in edits:
            apply_edit(sb, edit)
        if "--no-csum" not in argv:
            csum_type = struct.unpack_from("<H", sb, 196)[0]
            d = digest(csum_type, bytes(sb[CSUM_SIZE:]))
            if d is not None:
                sb[0:CSUM_SIZE] = d.ljust(CSUM_SIZE, b"\0")
        f.seek(offset)
        f.write(sb)


if __name__ == "__main__":
    main(sys.argv)
