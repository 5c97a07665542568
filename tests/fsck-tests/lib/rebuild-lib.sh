# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the rebuild tests (fsck-tests 120-129).  Source after
# tests/common.sh and tests/fsck-tests/lib/repair-lib.sh:
#
#   EDIT                     tests/fsck-tests/lib/btrfs-edit.py (see its --help)
#   rebuild_base_image       a private copy of a small kernel-written image:
#                            files, zstd and lzo compressed files, a
#                            subvolume of two tree levels and its snapshot,
#                            both modified (FULL_BACKREF leaves), reflinks, a
#                            NODATASUM file, a preallocated file and one
#                            partly written; built once into $CACHE; the
#                            sha256 of every file in $REBUILD_SUMS
#   extent_items IMG         "KEY<TAB>CONTENT" per extent tree item (no item
#                            offsets or sizes), sorted
#   csum_map IMG             "LOGICAL CSUM" per data sector of the csum tree
#   expect_data_clean IMG    expect_all_clean and ghee check --check-data-csum
#   expect_kernel_roundtrip IMG
#                            mount, every file matches $REBUILD_SUMS, write a
#                            file, unmount, expect_all_clean again

EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py
REBUILD_SUMS=$TEST_TMP/base.sums

_rebuild_base_recipe()
{
	local img=$1 mnt=$2 i

	truncate -s 256M "$img" || return 1
	mkfs.btrfs -q -f -R ^free-space-tree "$img" >/dev/null 2>&1 || return 1
	# noatime: reading the files must not copy every shared leaf
	mount_image "$img" "$mnt" space_cache=v2,noatime
	mkdir "$mnt/d" "$mnt/z" "$mnt/l" || return 1
	for i in $(seq 1 200); do
		echo "small file $i" > "$mnt/d/f$i"
	done
	for i in 1 2 3; do
		head -c $((i * 65536 + 8192)) /dev/urandom > "$mnt/d/big$i" || return 1
	done
	cp --reflink=always "$mnt/d/big1" "$mnt/d/big1.clone" || return 1
	# compressed: a text that compresses, in two algorithms
	chattr +c "$mnt/z" 2>/dev/null
	btrfs property set "$mnt/z" compression zstd >/dev/null || return 1
	btrfs property set "$mnt/l" compression lzo >/dev/null || return 1
	for i in 1 2 3; do
		seq 1 $((i * 40000)) > "$mnt/z/text$i"
		seq 1 $((i * 30000)) > "$mnt/l/text$i"
	done
	# no checksums
	touch "$mnt/d/nocsum" && chattr +C "$mnt/d/nocsum" || return 1
	head -c 200000 /dev/urandom > "$mnt/d/nocsum"
	# preallocated, and preallocated then partly written
	fallocate -l 1M "$mnt/d/prealloc" || return 1
	fallocate -l 1M "$mnt/d/prealloc-part" || return 1
	head -c 12288 /dev/urandom | dd of="$mnt/d/prealloc-part" bs=4096 seek=5 conv=notrunc 2>/dev/null
	btrfs subvolume create "$mnt/sv" >/dev/null || return 1
	# enough files for a two-level tree whose leaves the snapshot shares
	for i in $(seq 1 1500); do
		echo "subvolume file $i" > "$mnt/sv/g$i"
	done
	head -c 300000 /dev/urandom > "$mnt/sv/data" || return 1
	btrfs subvolume snapshot "$mnt/sv" "$mnt/snap" >/dev/null || return 1
	echo changed > "$mnt/snap/g7"
	# the source changes too: its shared leaves become FULL_BACKREF
	echo changed > "$mnt/sv/g1400"
	head -c 4096 /dev/urandom | dd of="$mnt/sv/data" bs=4096 seek=5 conv=notrunc 2>/dev/null
	cp --reflink=always "$mnt/sv/data" "$mnt/d/data.clone" || return 1
	head -c 4096 /dev/urandom | dd of="$mnt/snap/data" bs=4096 seek=3 conv=notrunc 2>/dev/null
	sync
	(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$img.sums" || return 1
	umount_image "$mnt"
}

_rebuild_base_verify()
{
	"$GHEE" check --check-data-csum "$1" > "$TEST_TMP/base-check.log" 2>&1 ||
		{ cat "$TEST_TMP/base-check.log" >&2; return 1; }
}

rebuild_base_image()
{
	local img

	need_progs
	img=$(cached_base_image "$CACHE/fsck-rebuild" _rebuild_base_recipe _rebuild_base_verify) || exit
	cp "$img.sums" "$REBUILD_SUMS" || fail "cannot copy the sums"
	cp --sparse=always "$img" "$TEST_TMP/test.img" || fail "cannot copy the base image"
	echo "$TEST_TMP/test.img"
}

csum_map()
{
	"$GHEE" dump-tree -t csum --csum-items "$1" |
		grep -o '\[[0-9]*\] 0x[0-9a-f]*' | tr -d '[]' | sort -n
}

extent_items()
{
	"$GHEE" dump-tree -t extent "$1" | python3 -c '
import re, sys
cur = None; body = []
def flush():
    if cur:
        print(cur + "\t" + " | ".join(body))
for line in sys.stdin:
    m = re.match(r"\s*item \d+ key \((.*?)\) itemoff", line)
    if m:
        flush(); cur = m.group(1); body = []; continue
    if cur and line.startswith("\t\t"):
        body.append(line.strip())
    elif not line.startswith("\t\t"):
        flush(); cur = None
flush()
' | sort
}

expect_data_clean()
{
	local img=$1

	expect_all_clean "$img"
	"$GHEE" check --check-data-csum "$img" > "$TEST_TMP/datacsum.out" 2>&1 ||
		{ cat "$TEST_TMP/datacsum.out" >&2; fail "ghee check --check-data-csum finds errors"; }
	if command -v btrfs >/dev/null; then
		btrfs check --readonly --check-data-csum "$img" > "$TEST_TMP/progs-dc.out" 2>&1 ||
			{ cat "$TEST_TMP/progs-dc.out" >&2; fail "btrfs check --check-data-csum finds errors"; }
	fi
}

expect_kernel_roundtrip()
{
	local img=$1 mnt=$TEST_TMP/mnt

	mount_image "$img" "$mnt"
	(cd "$mnt" && sha256sum --quiet -c "$REBUILD_SUMS") > "$TEST_TMP/sums.out" 2>&1 ||
		{ umount_image "$mnt"; cat "$TEST_TMP/sums.out" >&2; fail "file contents differ after the rebuild"; }
	head -c 500000 /dev/urandom > "$mnt/d/after" || fail "write after the rebuild failed"
	cp --reflink=always "$mnt/d/big2" "$mnt/d/big2.clone2" || fail "reflink after the rebuild failed"
	rm -f "$mnt/d/big3"
	sync
	umount_image "$mnt" || fail "umount failed"
	expect_data_clean "$img"
}
