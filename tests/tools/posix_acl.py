# SPDX-License-Identifier: GPL-2.0
"""POSIX ACLs as the system.posix_acl_access/_default xattrs store them:
a little-endian u32 version (2), then entries of u16 tag, u16 permissions
(r 4, w 2, x 1) and u32 id (0xffffffff for the owner, owning group, mask
and other entries), sorted by tag and id."""

import grp
import pwd
import struct

USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
NO_ID = 0xffffffff

_TAGS = {"user": (USER_OBJ, USER), "group": (GROUP_OBJ, GROUP), "mask": (MASK, MASK),
         "other": (OTHER, OTHER)}
_SHORT = {"u": "user", "g": "group", "m": "mask", "o": "other"}


def encode(entries):
    """[(tag, perms, id)] -> xattr value"""
    entries = sorted(entries, key=lambda x: (x[0], x[2]))
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in entries)


def _perms(s):
    return (4 if "r" in s else 0) | (2 if "w" in s else 0) | (1 if "x" in s else 0)


def is_minimal(value):
    """only owner, group and other entries: what the mode bits say, which
    file systems keep as the mode and no xattr"""
    tags = {struct.unpack_from("<H", value, 4 + 8 * i)[0] for i in range((len(value) - 4) // 8)}
    return tags <= {USER_OBJ, GROUP_OBJ, OTHER}


def mask_perms(value):
    """the mask entry's permissions, None without one"""
    for i in range((len(value) - 4) // 8):
        tag, perms = struct.unpack_from("<HH", value, 4 + 8 * i)
        if tag == MASK:
            return perms
    return None


def from_text(text):
    """getfacl / star text ('user::rwx,user:bob:r-x:1000,...') -> xattr value"""
    entries = []
    for part in text.replace("\n", ",").split(","):
        part = part.split("#")[0].strip()
        if not part:
            continue
        fields = part.split(":")
        tag = _SHORT.get(fields[0], fields[0])
        if tag in ("mask", "other") and len(fields) == 2:
            qual, perms = "", fields[1]
        else:
            qual = fields[1] if len(fields) > 1 else ""
            perms = fields[2] if len(fields) > 2 else ""
        obj_tag, named_tag = _TAGS[tag]
        if qual == "":
            entries.append((obj_tag, _perms(perms), NO_ID))
            continue
        if len(fields) > 3 and fields[3].isdigit():
            ident = int(fields[3])
        elif qual.isdigit():
            ident = int(qual)
        elif tag == "user":
            ident = pwd.getpwnam(qual).pw_uid
        else:
            ident = grp.getgrnam(qual).gr_gid
        entries.append((named_tag, _perms(perms), ident))
    return encode(entries)
