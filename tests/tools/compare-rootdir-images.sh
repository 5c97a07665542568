#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare-rootdir-images.sh: `ghee mkfs --rootdir` of two builds must make
# the same bytes.  For a changed writer (threads, read-ahead, a faster
# path) against a reference build (e.g. main): every option set below is
# run once with REF and, with NEW, once per thread count of
# GHEE_MKFS_THREADS (default "1 2 3"; 1 is the single-threaded path, 2
# and more use the read-ahead), with SOURCE_DATE_EPOCH, -U and
# --device-uuid fixed; the images' sha256 must match.
#
# The tree: tests/tools/gen-tree.py (about 2,000 paths, files up to
# 24 MiB: sparse files, hard links, symlinks, devices, xattrs, ACLs) and
# files at the edges of the data path: sizes at a sector, a 128 KiB
# piece, the 8 MiB read buffer; a file larger than the read-ahead window;
# data that turns from compressible to random and back (NOCOMPRESS after
# the first or a later piece); sparse files with many holes; an empty
# directory chain.  Tar input is the same tree through `tar --xattrs`.
# --reflink runs on a scratch btrfs (loop-mounted) when the kernel has
# btrfs, else it copies (a note says so once).
#
# usage: tests/tools/compare-rootdir-images.sh [--quick] [--tree DIR]
#                                              [--only REGEX] REF NEW
#   --quick   fewer option sets (default, compress, subvol, tar)
#   --tree    an existing tree instead of the generated one (no tar set)
#   --only    only the option sets whose label matches REGEX
#   THREADS="1 2 3"  the thread counts of NEW
# Exit: 0 all equal, 1 a difference or a failed mkfs, 77 cannot run (not root).

set -u
QUICK=0
TREE=
ONLY=
while [ $# -gt 2 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	--tree) TREE=$2; shift ;;
	--only) ONLY=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# = 2 ] || { sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
REF=$(readlink -f "$1")
NEW=$(readlink -f "$2")
THREADS=${THREADS:-1 2 3}
TOOLS=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (devices, owners)"; exit 77; }
for b in "$REF" "$NEW"; do
	[ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}"/ghee-cmp-rootdir.XXXXXX)
SCRATCH=
cleanup()
{
	[ -n "$SCRATCH" ] && umount "$SCRATCH" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
export SOURCE_DATE_EPOCH=1650000000
UUID=0c4f2a96-8d1e-4b7a-9f3c-5e6d7a8b9c0d
DEVUUID=7d3e1b52-4c6a-4f0e-8a9b-1c2d3e4f5a6b

# the edge files, next to what gen-tree makes
make_edges()
{
	python3 - "$1" <<'PY'
import os, random, sys
top = os.path.join(sys.argv[1], "edges")
os.makedirs(top)
r = random.Random(8)
K, M = 1024, 1024 * 1024
def text(n):
    words = [b"ghee", b"btrfs", b"extent", b"piece", b"%d" % r.randrange(1000)]
    out = bytearray()
    while len(out) < n:
        out += r.choice(words) + b" "
    return bytes(out[:n])
def rand(n):
    return r.randbytes(n)
def put(name, data):
    with open(os.path.join(top, name), "wb") as f:
        f.write(data)
for n in [1, 100, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 128 * K - 1,
          128 * K, 128 * K + 1, 512 * K, 512 * K + 4096, 8 * M - 1, 8 * M, 8 * M + 1]:
    put(f"text-{n}", text(n))
    put(f"rand-{n}", rand(n))
# NOCOMPRESS after the first piece, after a later one; random first
put("text-then-rand", text(700 * K) + rand(900 * K))
put("rand-then-text", rand(300 * K) + text(2 * M))
put("text-rand-text", text(130 * K) + rand(130 * K) + text(3 * M))
# larger than the read-ahead window, compressible and not
put("big-text", text(24 * M + 12345))
put("big-rand", rand(13 * M + 3))
# holes: many segments, data at the end, only holes
with open(os.path.join(top, "many-holes"), "wb") as f:
    for i in range(60):
        f.seek(i * 256 * K)
        f.write(text(8 * K + i))
with open(os.path.join(top, "hole-then-data"), "wb") as f:
    f.seek(9 * M)
    f.write(text(300 * K))
with open(os.path.join(top, "data-then-hole"), "wb") as f:
    f.write(rand(200 * K))
    f.truncate(5 * M)
with open(os.path.join(top, "only-hole"), "wb") as f:
    f.truncate(3 * M)
d = top
for i in range(30):
    d = os.path.join(d, "e%d" % i)
os.makedirs(d)
for i in range(300):
    put("small-%03d" % i, text(r.randrange(0, 9000)))
PY
}

if [ -z "$TREE" ]; then
	TREE=$WORK/tree
	python3 "$TOOLS/gen-tree.py" --seed 5 --files 2000 --total-size 60M \
		--max-size 24M "$TREE" > "$WORK/gen.log" || { cat "$WORK/gen.log" >&2; exit 1; }
	make_edges "$TREE" || exit 1
	tar --xattrs --xattrs-include='*' --acls -C "$TREE" -cf "$WORK/tree.tar" . 2>/dev/null ||
		{ echo "tar failed" >&2; exit 1; }
fi
TREE=$(readlink -f "$TREE")
# two subvolumes and an --inode-flags path: directories of the tree, by name order
mapfile -t DIRS < <(cd "$TREE" && find . -mindepth 1 -maxdepth 2 -type d -printf '%P\n' | LC_ALL=C sort)
SV1=${DIRS[0]}
SV2=${DIRS[${#DIRS[@]} / 2]}
IF1=${DIRS[${#DIRS[@]} - 1]}

# --reflink needs the tree and the image on one btrfs
REFLINK_TREE=$TREE
REFLINK_DIR=$WORK
if grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null; then
	truncate -s 2G "$WORK/scratch.img"
	if mkfs.btrfs -q -f "$WORK/scratch.img" >/dev/null 2>&1 && mkdir -p "$WORK/scratch" &&
	   mount -o loop "$WORK/scratch.img" "$WORK/scratch"; then
		SCRATCH=$WORK/scratch
		cp -a "$TREE" "$SCRATCH/tree"
		REFLINK_TREE=$SCRATCH/tree
		REFLINK_DIR=$SCRATCH
	fi
fi
[ -n "$SCRATCH" ] || echo "note: no scratch btrfs: --reflink copies the data"

SETS=(
	"default|"
	"zlib|--compress zlib"
	"lzo|--compress lzo"
	"zstd|--compress zstd"
	"zstd:9, no-holes off|--compress zstd:9 -O ^no-holes"
	"subvol|--subvol rw:$SV1 --subvol default-ro:$SV2"
	"inode-flags|--inode-flags nodatacow:$IF1 --inode-flags nodatasum:$SV1"
	"zlib, subvol, inode-flags|--compress zlib --subvol $SV2 --inode-flags nodatasum:$IF1"
	"quota|-O quota"
	"nodesize 4096|-n 4096"
	"nodesize 65536|-n 65536"
	"xxhash|--csum xxhash"
	"sha256, zstd|--csum sha256 --compress zstd"
	"blake2|--csum blake2"
	"mixed|--mixed"
	"no-holes off|-O ^no-holes"
	"block-group-tree|-O block-group-tree"
	"shrink|--shrink"
	"shrink, lzo, max-inline 4095|--shrink --compress lzo --max-inline 4095"
	"owner|--owner 1000:1000 --root-owner 0:0"
	"reflink|--reflink"
	"tar|@tar"
	"tar, zstd|@tar --compress zstd"
)
if [ "$QUICK" = 1 ]; then
	SETS=("default|" "zstd|--compress zstd" "lzo|--compress lzo"
	      "subvol|--subvol rw:$SV1 --subvol default-ro:$SV2" "tar|@tar")
fi

# mkimg BIN THREADS IMG ARGS...: one image; prints its sha256
mkimg()
{
	local bin=$1 threads=$2 img=$3 src=$TREE

	shift 3
	if [ "${1:-}" = "@tar" ]; then
		shift
		src=$WORK/tree.tar
		[ -f "$src" ] || { echo "skip"; return 0; }
	fi
	if [ "${1:-}" = "--reflink" ]; then
		src=$REFLINK_TREE
		img=$REFLINK_DIR/$(basename "$img")
	fi
	rm -f "$img"
	if ! env ${threads:+GHEE_MKFS_THREADS=$threads} "$bin" mkfs -q -f -U "$UUID" \
		--device-uuid "$DEVUUID" -b 1G "$@" --rootdir "$src" "$img" \
		> "$WORK/mkfs.log" 2>&1; then
		echo "FAILED: $(tail -n 3 "$WORK/mkfs.log" | tr '\n' ' ')"
		return 1
	fi
	sha256sum < "$img" | cut -c1-16
	rm -f "$img"
}

status=0
n=0
printf '%-34s %-18s %s\n' "option set" "reference" "new (threads: $THREADS)"
for set in "${SETS[@]}"; do
	label=${set%%|*}
	args=${set#*|}
	[ -n "$ONLY" ] && ! [[ $label =~ $ONLY ]] && continue
	# shellcheck disable=SC2086
	ref=$(mkimg "$REF" "" "$WORK/ref.img" $args)
	line=
	for t in $THREADS; do
		# shellcheck disable=SC2086
		new=$(mkimg "$NEW" "$t" "$WORK/new.img" $args)
		if [ "$new" = "$ref" ] && [[ $ref != FAILED* ]]; then
			line+=" $t:same"
		else
			line+=" $t:DIFFERENT($new)"
			status=1
		fi
	done
	[ "$ref" = skip ] && line=" (no tar archive)"
	printf '%-34s %-18s%s\n' "$label" "$ref" "$line"
	n=$((n + 1))
done
[ $status = 0 ] && echo "all $n option sets: the same images" ||
	echo "DIFFERENCES found"
exit $status
