#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backup root slots as the kernel really leaves them.  It fills a slot
# with the tree root it holds when it writes the superblocks, and the next
# transaction may have COWed that root by then: the previous commit's slot
# can name a root of the superblock's generation that is not the
# superblock's (found by tests/workload seed 5178: a log tree copy, slots
# 0 and 3 both of generation 37), and after a crash the last commit's slot
# can name a root of the next generation.  Both must check clean (btrfs
# check 6.19 too); a slot two generations ahead, or a current-generation
# slot nothing explains, is still BACKUP_ROOT_BAD.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"

need_progs python3
REF=$TOP/../shared/tools/btrfs-progs-6.19/btrfs

# edit_slots IMG SPEC...: SPEC is SLOT:GEN_DELTA:ROOT, GEN_DELTA added to
# the superblock's generation ("keep" leaves the slot's own), ROOT "super"
# (the superblock's root), "other" (an aligned block that is not it) or
# "keep"; the superblock checksum (crc32c) is rewritten
edit_slots()
{
	python3 - "$@" <<'PY'
import struct, sys
sys.path.insert(0, __import__('os').environ['TOP'] + '/tests/pylib')
from btrfs_crc import crc32c
SB, ROOTS, SLOT = 65536, 2859, 168
img = sys.argv[1]
with open(img, 'r+b') as f:
    f.seek(SB)
    sb = bytearray(f.read(4096))
    gen, root = struct.unpack_from('<QQ', sb, 72)
    nodesize = struct.unpack_from('<I', sb, 148)[0]
    for spec in sys.argv[2:]:
        i, dgen, r = spec.split(':')
        off = ROOTS + int(i) * SLOT
        if dgen != 'keep':
            struct.pack_into('<Q', sb, off + 8, gen + int(dgen))
        if r == 'super':
            struct.pack_into('<Q', sb, off, root)
        elif r == 'other':
            struct.pack_into('<Q', sb, off, root + 16 * nodesize)
    struct.pack_into('<I', sb, 0, crc32c(bytes(sb[32:])))
    sb[4:32] = bytes(28)
    f.seek(SB)
    f.write(sb)
PY
}

# slot_of IMG: the slot holding exactly the superblock's generation and root
slot_of()
{
	python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    f.seek(65536)
    sb = f.read(4096)
gen, root = struct.unpack_from('<QQ', sb, 72)
for i in range(4):
    r, g = struct.unpack_from('<QQ', sb, 2859 + i * 168)
    if (r, g) == (root, gen):
        print(i)
        break
PY
}

# expect IMG clean|bad [REGEX]
expect()
{
	local img=$1 want=$2 rc

	"$GHEE" check -q "$img" > "$TEST_TMP/out" 2>&1
	rc=$?
	_status_is_crash $rc && fail "crash on $img"
	if [ "$want" = clean ]; then
		[ $rc -eq $CHECK_CLEAN ] || { cat "$TEST_TMP/out"; fail "$img: expected clean, exit $rc"; }
		if [ -x "$REF" ]; then
			"$REF" check --readonly "$img" 2>&1 | grep -q 'no error found$' ||
				fail "$img: btrfs check 6.19 does not call it clean"
		fi
	else
		[ $rc -eq $CHECK_ERRORS ] || { cat "$TEST_TMP/out"; fail "$img: expected errors, exit $rc"; }
		[ "$(grep -c '^ERROR:' "$TEST_TMP/out")" -eq 1 ] &&
			grep -q -E "^ERROR: \[BACKUP_ROOT_BAD\] backup root slot [0-3]: $3" "$TEST_TMP/out" ||
			{ cat "$TEST_TMP/out"; fail "$img: expected one BACKUP_ROOT_BAD matching '$3'"; }
	fi
	echo "ok $(basename "$img") $want"
}

base=$(fsck_base_image) || exit
cur=$(slot_of "$base")
[ -n "$cur" ] || fail "the base image has no slot matching its superblock"
prev=$(( (cur + 3) % 4 ))
echo "current slot $cur, previous $prev"
expect "$base" clean

# the previous commit's slot took a root of the current generation
cp --sparse=always "$base" race.img
edit_slots race.img "$prev:0:other"
expect race.img clean

# not unmounted: the last commit's slot took the next generation's root,
# the one before a root of the current generation
cp --sparse=always "$base" crash.img
edit_slots crash.img "$cur:1:other" "$prev:0:other"
expect crash.img clean

# impossible for the kernel: two generations ahead
cp --sparse=always "$base" ahead.img
edit_slots ahead.img "$prev:2:other"
expect ahead.img bad "generation [0-9]+ more than one ahead of the superblock's [0-9]+"

# the current generation's slot disagrees and nothing explains it
cp --sparse=always "$base" wrong.img
edit_slots wrong.img "$cur:keep:other"
expect wrong.img bad "current generation [0-9]+ but tree root [0-9]+ differs from the superblock's [0-9]+"
