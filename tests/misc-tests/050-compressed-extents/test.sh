#!/bin/bash
# Compressed data extents as the kernel reads and writes them
# (kernel-shared/compression.c), both directions, for zlib, lzo and zstd:
# - ghee's framing read by the kernel: on an image made by ghee mkfs,
#   compressed-io (built here against the engine) writes files whose
#   extents it compresses (128 KiB pieces, inline for a small file, plain
#   where compression does not pay); btrfs check 6.2 and 6.19 and
#   ghee check --check-data-csum must be clean, and the kernel, mounted
#   read-only, must return every file unchanged;
# - the kernel's framing read by ghee: the kernel writes the same files
#   with compress-force=ALGO and compressed-io rebuilds them from the
#   image with ghee's decoders, byte for byte.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs cc cmp python3

PROGS619=/work/shared/tools/btrfs-progs-6.19/btrfs
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"

# ---- the helper, built like the unit tests (sanitizer flags included) ----
mkvar() {
	make -s -C "$BUILDDIR" -f Makefile -f - print-var V="$1" <<'EOF' 2>/dev/null
print-var:
	@echo $($(V))
EOF
}
cflags="$(mkvar CFLAGS) $(mkvar SAN_CFLAGS)"
libs="$(mkvar BLKID_LIBS) $(mkvar UUID_LIBS) $(mkvar ZLIB_LIBS) $(mkvar XXHASH_LIBS) \
      $(mkvar SODIUM_LIBS) $(mkvar ZSTD_LIBS) $(mkvar LZO_LIBS) -lpthread"
[ -f "$BUILDDIR/libghee.a" ] || fail "no libghee.a in $BUILDDIR"
tool=$TEST_TMP/compressed-io
# shellcheck disable=SC2086
cc $cflags -DHAVE_CONFIG_H -I"$BUILDDIR" -I"$TOP" -I"$TOP/kernel-shared" -I"$TOP/lib" \
	-o "$tool" "$TEST_DIR/compressed-io.c" \
	"$BUILDDIR/libghee.a" $(mkvar SAN_LDFLAGS) $libs ||
	fail "cannot build compressed-io"

# ---- the files: text, inline-sized text, random, text/random halves, zeros ----
src=$TEST_TMP/src
mkdir -p "$src"
python3 - "$src" <<'PY' || fail "cannot make the source files"
import random, sys
d = sys.argv[1]
r = random.Random(50)
words = ["extent ", "tree ", "leaf ", "node\n", "btrfs ", "sector ", "csum ", "0123 "]
def text(n, rng=r):
    out = []
    size = 0
    while size < n:
        w = rng.choice(words)
        out.append(w)
        size += len(w)
    return "".join(out)[:n].encode()
open(d + "/text", "wb").write(text(1 << 20))
open(d + "/small", "wb").write(text(3000))
open(d + "/random", "wb").write(r.randbytes(300000))
open(d + "/mixed", "wb").write(b"".join(
    r.randbytes(70000) if i % 2 else text(140000) for i in range(5)))
open(d + "/odd", "wb").write(text(200001))
open(d + "/zeros", "wb").write(bytes(262144 + 1234))
# every sector text with a random stretch of random length: lzo segments
# of all sizes, so some segment headers would straddle a sector end (this
# seed gives two such sector ends)
rs = random.Random(5)
semi = bytearray(text(6 << 20, rs))
for s in range(0, len(semi), 4096):
    n, off = rs.randrange(2500), s + rs.randrange(1000)
    semi[off:off + n] = rs.randbytes(n)
open(d + "/semi", "wb").write(bytes(semi[:6 << 20]))
PY
base_files="text small random mixed odd zeros"
# the file list of algorithm $1 (semi is only needed for lzo's framing)
files_of() {
	if [ "$1" = lzo ]; then echo "$base_files semi"; else echo "$base_files"; fi
}

# count of EXTENT_DATA items compressed with type $2 (1 zlib 2 lzo 3 zstd) in $1
count_compressed() {
	btrfs inspect-internal dump-tree -t 5 "$1" 2>/dev/null |
		grep -c "compression $2 ("
}

check_clean() {
	local img=$1 what=$2 out

	btrfs check --readonly "$img" > "$TEST_TMP/check.log" 2>&1 ||
		fail "$what: btrfs check 6.2: $(cat "$TEST_TMP/check.log")"
	if [ -x "$PROGS619" ]; then
		out=$("$PROGS619" check --readonly "$img" 2>&1)
		grep -q "no error found" <<< "$out" || fail "$what: btrfs check 6.19: $out"
	fi
	"$GHEE" check --check-data-csum "$img" > "$TEST_TMP/ghee-check.log" 2>&1 ||
		fail "$what: ghee check: $(cat "$TEST_TMP/ghee-check.log")"
}

compare_mounted() {
	local img=$1 what=$2 f

	mount_image "$img" "$mnt" ro
	for f in $files; do
		cmp "$src/$f" "$mnt/$f" || { umount_image "$mnt"; fail "$what: $f differs"; }
	done
	umount_image "$mnt" || fail "$what: umount failed"
}

ntested=0
for spec in zlib:1 zlib:9 lzo zstd:1 zstd:15; do
	algo=${spec%%:*}
	files=$(files_of "$algo")
	specs=
	for f in $files; do specs+=" $f=$src/$f"; done
	case $algo in zlib) type=1 ;; lzo) type=2 ;; zstd) type=3 ;; esac
	img=$TEST_TMP/ghee-$spec.img
	truncate -s 256M "$img"
	"$GHEE" mkfs -q -f "$img" > /dev/null || fail "ghee mkfs failed"
	# shellcheck disable=SC2086
	out=$("$tool" write "$img" "$spec" $specs 2>&1)
	rc=$?
	if [ $rc -eq 3 ]; then
		echo "$spec: not built in, skipped"
		continue
	fi
	[ $rc -eq 0 ] || fail "$spec: compressed-io write: $out"
	read -r _ ncomp _ nplain _ ninline _ npads <<< "$out"
	# text 8 + mixed 3 + odd 2 + zeros 2 (+ semi 48) pieces pay; random 3 +
	# mixed 2 + the zeros' tail do not; small goes inline
	[ "$ncomp" -ge 12 ] && [ "$nplain" -ge 4 ] && [ "$ninline" -eq 1 ] ||
		fail "$spec: unexpected extent mix: $out"
	[ "$algo" != lzo ] || [ "$npads" -gt 0 ] ||
		fail "lzo: no segment header came near a sector end, the rule is untested"
	n=$(count_compressed "$img" "$type")
	[ "$n" -eq $((ncomp + ninline)) ] ||
		fail "$spec: $n file extents of type $type in the image, wrote $ncomp + $ninline"
	if [ "$algo" != zlib ]; then
		"$GHEE" dump-super "$img" | grep -qi "COMPRESS_${algo^^}" ||
			fail "$spec: incompat flag COMPRESS_${algo^^} not set"
	fi
	check_clean "$img" "ghee $spec"
	compare_mounted "$img" "ghee $spec"
	echo "$spec: $out; checks clean, kernel reads every file"
	ntested=$((ntested + 1))
	rm -f "$img"
done
[ "$ntested" -gt 0 ] || skip "no compression algorithm built in"

# ---- the kernel writes, ghee's decoders read ----
for algo in zlib lzo zstd; do
	case $algo in zlib) type=1 ;; lzo) type=2 ;; zstd) type=3 ;; esac
	files=$(files_of "$algo")
	img=$TEST_TMP/kernel-$algo.img
	truncate -s 256M "$img"
	mkfs.btrfs -q -f "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
	mount_image "$img" "$mnt" "compress-force=$algo"
	for f in $files; do cp "$src/$f" "$mnt/$f" || fail "cp $f failed"; done
	sync
	inos=$(for f in $files; do stat -c %i "$mnt/$f"; done)
	umount_image "$mnt" || fail "umount failed"
	n=$(count_compressed "$img" "$type")
	[ "$n" -ge 12 ] || fail "kernel $algo: only $n compressed extents"
	total=0
	set -- $files
	for ino in $inos; do
		out=$("$tool" read "$img" "$ino" "$TEST_TMP/out" 2>&1)
		if [ $? -eq 1 ] && grep -q "Operation not supported" <<< "$out"; then
			echo "kernel $algo: not built in, skipped"
			continue 2
		fi
		[ -f "$TEST_TMP/out" ] || fail "kernel $algo: read of $1 failed: $out"
		cmp "$src/$1" "$TEST_TMP/out" || fail "kernel $algo: $1 decoded wrong ($out)"
		rm -f "$TEST_TMP/out"
		total=$((total + $(awk -v t="$algo" '{ for (i = 1; i < NF; i++) if ($i == t) print $(i + 1) }' <<< "$out")))
		shift
	done
	[ "$total" -ge 12 ] || fail "kernel $algo: only $total compressed extents decoded"
	echo "kernel $algo: $total compressed extents decoded by ghee, every file equal"
	rm -f "$img"
done
exit 0
