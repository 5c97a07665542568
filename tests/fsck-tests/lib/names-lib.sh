# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the name repair tests (fsck-tests 135-139).  Source after
# tests/common.sh and fs-trees-lib.sh:
#
#   names_colliding A          print a name of A's length whose btrfs name
#                              hash is A's (4 bytes forced; letters only)
#   names_collision_image A B  a private kernel-written image holding
#                              /d/A and /d/B (B colliding with A):
#                              one DIR_ITEM of /d holds both names; the
#                              image's path to stdout
#   names_le NAME              NAME (at most 8 bytes) as the little-endian
#                              number btrfs-edit.py set-item writes

# CRC-32C is affine in its input: for names of one length, the btrfs name
# hash (seeded ~1) and the standard CRC-32C collide together.  Four bytes
# at the end are solved over GF(2); prefixes are tried until every byte of
# the result is a letter or digit.
names_colliding()
{
	python3 - "$1" "$TOP/tests/pylib" <<'PY'
import itertools, sys
sys.path.insert(0, sys.argv[2])
from btrfs_crc import crc32c
want = sys.argv[1].encode()
n = len(want)
assert n >= 5
target = crc32c(want)
ok = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
def solve(prefix):
    base = crc32c(prefix + b"\0\0\0\0")
    cols = []
    for bit in range(32):
        x = (1 << bit).to_bytes(4, "little")
        cols.append(crc32c(prefix + x) ^ base)
    rhs = target ^ base
    # Gaussian elimination: rows are output bits, columns input bits
    rows = []
    for ob in range(32):
        m = 0
        for ib in range(32):
            if cols[ib] >> ob & 1:
                m |= 1 << ib
        rows.append([m, rhs >> ob & 1])
    x, r = 0, 0
    piv = []
    for ib in range(32):
        p = next((i for i in range(r, 32) if rows[i][0] >> ib & 1), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        for i in range(32):
            if i != r and rows[i][0] >> ib & 1:
                rows[i][0] ^= rows[r][0]
                rows[i][1] ^= rows[r][1]
        piv.append(ib)
        r += 1
    if any(row[0] == 0 and row[1] for row in rows):
        return None
    for i, ib in enumerate(piv):
        if rows[i][1]:
            x |= 1 << ib
    return prefix + x.to_bytes(4, "little")
alpha = "abcdefghijklmnopqrstuvwxyz"
for combo in itertools.product(alpha, repeat=n - 4):
    prefix = "".join(combo).encode()
    if prefix == want[:n - 4]:
        continue
    name = solve(prefix)
    if name and name != want and all(b in ok for b in name) and crc32c(name) == target:
        print(name.decode())
        sys.exit(0)
sys.exit(1)
PY
}

names_le()
{
	python3 -c 'import sys; print(int.from_bytes(sys.argv[1].encode(), "little"))' "$1"
}

names_collision_image()
{
	local a=$1 b=$2 img=$TEST_TMP/names.img mnt=$TEST_TMP/names-mnt

	need_loop
	need_kernel_btrfs
	need_progs mkfs.btrfs
	rm -f "$img"
	truncate -s 128M "$img" || fail "cannot create $img"
	mkfs.btrfs -q -f -R ^free-space-tree "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
	mount_image "$img" "$mnt" >&2
	mkdir "$mnt/d" && printf 'first file\n' > "$mnt/d/$a" && printf 'second file\n' > "$mnt/d/$b" ||
		{ umount_image "$mnt"; fail "cannot write the two files"; }
	umount_image "$mnt" >&2
	echo "$img"
}
