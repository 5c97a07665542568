#!/bin/bash
# mkfs --rootdir --compress decides as the kernel does when it writes the
# files with mount -o compress (not compress-force): its sampling
# heuristic first (a range or piece it does not like is written plain, no
# flag), 512 KiB chunks of 128 KiB pieces, a single block never tried, a
# piece that does not get a sector smaller marks the inode NOCOMPRESS and
# ends the file's compression, small files inline compressed when that
# fits max_inline (and no flag when it only does not fit).  For a tree of
# every such case, per file: the same inode flags, the same compressed
# extents, inline or not alike, no more plain extents than the kernel
# (it cuts plain data at its chunks, ghee does not) - compared with a
# filesystem the kernel wrote (copy, sync per file), for zstd, lzo and
# zlib.  The three checks are clean, the tree compares equal, a workload
# runs.  On a generated tree ghee has at most the extent items of
# mkfs.btrfs 6.19 --compress; the image does not depend on the thread
# count.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_root
rootdir_setup sha256sum
EXTENTS="python3 $TOP/tests/tools/file-extents.py"
python3 - "$src" <<'PY' || fail "cannot generate the tree"
import base64, os, random, sys
top = sys.argv[1]
os.makedirs(top)
r = random.Random(87)
K = 1024
def rnd(n): return bytes(r.getrandbits(8) for _ in range(n))
def txt(n): return (b"compress me please %d " % (n % 7) * (n // 20 + 1))[:n]
def looks_compressible(n):
    # the bytes the heuristic samples (16 of every 256) from 32 values,
    # the rest random: the heuristic says yes, compression saves nothing
    b = bytearray(rnd(n))
    for i in range(0, n, 256):
        b[i:i + 16] = bytes(r.randrange(32) for _ in range(16))
    return bytes(b)
def w(name, data): open(os.path.join(top, name), "wb").write(data)
def sparse(name, size, off, data):
    with open(os.path.join(top, name), "wb") as f:
        f.truncate(size); f.seek(off); f.write(data)
w("text-1m", txt(1024 * K))
w("random-1m", rnd(1024 * K))
w("random-100k", rnd(100 * K))
w("text256-random768", txt(256 * K) + rnd(768 * K))
w("text512-random128-text512", txt(512 * K) + rnd(128 * K) + txt(512 * K))
w("text384-random128-text512", txt(384 * K) + rnd(128 * K) + txt(512 * K))
w("text128-random2k", txt(128 * K) + rnd(2 * K))
w("fails-512k", looks_compressible(512 * K))
w("fails-1m", looks_compressible(1024 * K))
w("fails-130k", looks_compressible(130 * K))
w("text128-fails384", txt(128 * K) + looks_compressible(384 * K))
w("random-2000", rnd(2000))
w("random-3000", rnd(3000))
w("random-4095", rnd(4095))
w("random-5000", rnd(5000))
w("text-3000", txt(3000))
w("text-4096", txt(4096))
w("text-8000", txt(8000))
w("b64-4000", base64.b64encode(rnd(3000)))
w("b64-6000", base64.b64encode(rnd(4500)))
sparse("sparse-text4k", 2048 * K, 1024 * K, txt(4096))
sparse("sparse-text8k", 2048 * K, 1024 * K, txt(8192))
sparse("sparse-random4k", 2048 * K, 1024 * K, rnd(4096))
PY

kernel_ok=1
case "$(uname -r)" in
[0-5].*|6.[0-9].*|6.1[0-7].*)
	kernel_ok=
	echo "kernel $(uname -r): older than 6.18, whose choices ghee follows; the kernel comparison is skipped" >&2 ;;
esac

for algo in ${ALGOS:-zstd lzo zlib}; do
	new_image "$img" 256M
	ghee_mkfs --compress $algo --rootdir "$src" "$img"
	check_all "$img"
	mount_image "$img" "$mnt" ro
	compare_tree "$src" "$mnt"
	umount_image "$mnt"
	[ -n "$kernel_ok" ] || continue
	# what the kernel writes: each file copied and synced on its own
	new_image "$TEST_TMP/kernel.img" 256M
	mkfs.btrfs -q -f "$TEST_TMP/kernel.img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
	mount_image "$TEST_TMP/kernel.img" "$mnt" "compress=$algo"
	for f in "$src"/*; do
		cp --sparse=always "$f" "$mnt/" && sync || fail "cp $f failed"
	done
	umount_image "$mnt"
	$EXTENTS same-decisions "$TEST_TMP/kernel.img" "$img" >&2 ||
		fail "--compress $algo: decisions differ from the kernel's"
done
workload "$img" "$mnt"

# as many or fewer extent items than mkfs.btrfs 6.19 --compress; and the
# same image whatever the thread count
python3 "$TOP/tests/tools/gen-tree.py" --files 1500 --no-owners "$TEST_TMP/gen" > /dev/null ||
	fail "gen-tree.py failed"
export SOURCE_DATE_EPOCH=1600000000
UUID=0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b
extent_items()
{
	btrfs inspect-internal dump-tree -t extent "$1" | grep -c 'key ([0-9]* EXTENT_ITEM'
}
# a first run reads the symlinks, which moves their atimes once
"$GHEE" mkfs -q -f --rootdir "$TEST_TMP/gen" "$img" || fail "mkfs of the generated tree failed"
rm -f "$img"
GHEE_MKFS_THREADS=1 "$GHEE" mkfs -q -U "$UUID" --compress zstd --rootdir "$TEST_TMP/gen" "$img" ||
	fail "mkfs with one thread failed"
check_all "$img"
one=$(sha256sum < "$img")
ghee=$(extent_items "$img")
rm -f "$img"
GHEE_MKFS_THREADS=3 "$GHEE" mkfs -q -U "$UUID" --compress zstd --rootdir "$TEST_TMP/gen" "$img" ||
	fail "mkfs with three threads failed"
[ "$(sha256sum < "$img")" = "$one" ] || fail "one and three compressing threads give different images"
if [ -x "$PROGS619/mkfs.btrfs" ]; then
	new_image "$TEST_TMP/p.img" 1G
	"$PROGS619/mkfs.btrfs" -q -f --compress zstd --rootdir "$TEST_TMP/gen" "$TEST_TMP/p.img" \
		>/dev/null 2>&1 || fail "mkfs.btrfs 6.19 failed"
	progs=$(extent_items "$TEST_TMP/p.img")
	echo "extent items: ghee $ghee, mkfs.btrfs 6.19 $progs" >&2
	[ "$ghee" -le "$progs" ] || fail "ghee has more extent items ($ghee) than mkfs.btrfs 6.19 ($progs)"
fi
exit 0
