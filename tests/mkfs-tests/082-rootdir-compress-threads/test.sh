#!/bin/bash
# mkfs --rootdir --compress is reproducible whatever the number of
# compressing threads: with SOURCE_DATE_EPOCH and -U, one thread
# (GHEE_MKFS_THREADS=1), taskset -c 0, 2 and 7 threads give
# byte-identical images, with files of many batches (holes and plain
# pieces between compressed ones) and many small files.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_progs python3 sha256sum taskset

src=$TEST_TMP/src
make_tree "$src"
python3 - "$src/many" <<'PY' || fail "cannot generate the files"
import os, random, sys
top = sys.argv[1]
os.makedirs(top)
r = random.Random(7)
def chunk(n):
    # text-like bytes, sometimes random ones
    if r.random() < 0.3:
        return os.urandom(n)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"%d" % r.randrange(1000)]
    out = bytearray()
    while len(out) < n:
        out += r.choice(words) + b" "
    return bytes(out[:n])
for i in range(300):
    with open(f"{top}/s{i}", "wb") as f:
        f.write(chunk(r.randrange(1, 20000)))
with open(f"{top}/big", "wb") as f:
    for i in range(80):
        f.write(chunk(128 * 1024 + r.randrange(-5000, 5000)))
with open(f"{top}/holes", "wb") as f:
    for i in range(40):
        f.seek(i * 600000)
        f.write(chunk(200000))
PY
UUID=5b0c7e1a-3f2d-4e6b-8a9c-1d2e3f4a5b6c
export SOURCE_DATE_EPOCH=1600000000

build()
{
	local img=$1 algo=$2

	shift 2
	rm -f "$img"
	"$@" "$GHEE" mkfs -q -U "$UUID" --compress "$algo" --rootdir "$src" "$img" ||
		fail "mkfs --compress $algo ($*) failed"
}
# reading a symlink moves its atime (later than the epoch from then on):
# a first build settles them
build warm.img zstd
for algo in zstd:5 lzo; do
	build one.img $algo env GHEE_MKFS_THREADS=1
	want=$(sha256sum < one.img)
	check_all one.img
	build cpu0.img $algo taskset -c 0
	[ "$(sha256sum < cpu0.img)" = "$want" ] || fail "$algo: taskset -c 0 gives another image"
	for t in 2 7; do
		build t.img $algo env GHEE_MKFS_THREADS=$t
		[ "$(sha256sum < t.img)" = "$want" ] || fail "$algo: $t threads give another image"
	done
done

# GHEE_LONG=1: more inodes than one transaction takes (16384), so the
# pending pieces are stored before the commits in between
if [ "${GHEE_LONG:-0}" = 1 ]; then
	python3 - "$src/long" <<'PY' || fail "cannot generate the small files"
import os, sys
for i in range(17000):
    d = "%s/d%d" % (sys.argv[1], i // 1000)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%d" % (d, i), "wb") as f:
        f.write(b"small file %d " % i * (400 + i % 700))
PY
	build long1.img zstd env GHEE_MKFS_THREADS=1
	build long2.img zstd env GHEE_MKFS_THREADS=2
	cmp -s long1.img long2.img || fail "GHEE_LONG: 1 and 2 threads give other images"
	check_all long2.img
fi
exit 0
