# SPDX-License-Identifier: GPL-2.0
"""CRC-32C (Castagnoli) as btrfs stores it, for the tests' Python helpers
that craft or damage images and must fix up checksums.  Import with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    RELATIVE_PATH_TO, "tests", "pylib"))
    from btrfs_crc import crc32c
"""

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data):
    """the standard CRC-32C of @data (seed ~0, final inversion)"""
    crc = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
