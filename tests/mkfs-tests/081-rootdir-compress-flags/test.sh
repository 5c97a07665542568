#!/bin/bash
# mkfs --rootdir --compress: the incompat bit COMPRESS_LZO / COMPRESS_ZSTD
# is set only when an extent of that kind is written (not for a tree that
# does not compress, never for zlib); nodatasum / nodatacow files are not
# compressed (the kernel's rule) and keep no checksums; the option errors
# (unknown algorithm, level out of range, without --rootdir).
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version

img=$TEST_TMP/img
incompressible=$TEST_TMP/random
compressible=$TEST_TMP/text
mkdir -p "$incompressible" "$compressible/nosum" "$compressible/nocow"
head -c 400000 /dev/urandom > "$incompressible/a"
# (past max_inline: the kernel's lzo would put a shorter one inline "compressed")
head -c 3000 /dev/urandom > "$incompressible/small"
yes "compress me" | head -c 500000 > "$compressible/a"
cp "$compressible/a" "$compressible/nosum/b"
cp "$compressible/a" "$compressible/nocow/c"

# flags IMG: the incompat flag names of the superblock
flags()
{
	btrfs inspect-internal dump-super "$1" | sed -n '/^incompat_flags/,/)/p'
}

for algo in zlib lzo zstd; do
	ghee_mkfs --compress $algo --rootdir "$incompressible" "$img" -b 256M
	check_all "$img"
	f=$(flags "$img")
	grep -q "COMPRESS_" <<< "$f" && fail "$algo: a tree that does not compress has $f"
	btrfs inspect-internal dump-tree -t 5 "$img" | grep -q "compression [1-3]" &&
		fail "$algo: an incompressible tree got a compressed extent"

	ghee_mkfs --compress $algo --rootdir "$compressible" "$img" -b 256M
	check_all "$img"
	f=$(flags "$img")
	case $algo in
	zlib) grep -q "COMPRESS_" <<< "$f" && fail "zlib sets $f" ;;
	lzo) grep -q "COMPRESS_LZO" <<< "$f" || fail "lzo: no COMPRESS_LZO in $f"
	     grep -q "COMPRESS_ZSTD" <<< "$f" && fail "lzo: COMPRESS_ZSTD set" ;;
	zstd) grep -q "COMPRESS_ZSTD" <<< "$f" || fail "zstd: no COMPRESS_ZSTD in $f"
	      grep -q "COMPRESS_LZO" <<< "$f" && fail "zstd: COMPRESS_LZO set" ;;
	esac
done

# zstd image of the compressible tree with nodatasum and nodatacow parts:
# only a (inode 257) is compressed, only it has checksums
ghee_mkfs --compress zstd --inode-flags nodatasum:nosum --inode-flags nodatacow:nocow \
	--rootdir "$compressible" "$img" -b 256M
check_all "$img"
dump=$(btrfs inspect-internal dump-tree -t 5 "$img")
awk '/EXTENT_DATA/ { ino = substr($4, 2) } /extent compression [1-3]/ { print ino }' <<< "$dump" |
	sort -u > comp.ino
[ "$(cat comp.ino)" = 257 ] || fail "compressed inodes: $(tr '\n' ' ' < comp.ino), expected only 257"
sums=$(btrfs inspect-internal dump-tree -t csum "$img" | awk '/length/ { n += $NF } END { print n + 0 }')
[ "$sums" -gt 0 ] && [ "$sums" -lt 100000 ] ||
	fail "checksummed $sums bytes, expected only the compressed extents of a"

# option errors
for bad in zstd:16 zlib:10 lzo:2 zlib:x brotli; do
	run_expect_status 2 "$GHEE" mkfs -q -f --compress $bad --rootdir "$compressible" "$img" 2> err.out
	grep -q -- "--compress $bad" err.out || fail "--compress $bad: $(cat err.out)"
done
run_expect_status 2 "$GHEE" mkfs -q -f --compress zstd "$img" 2> err.out
grep -q "need --rootdir" err.out || fail "--compress without --rootdir: $(cat err.out)"
# the accepted spellings of progs
for ok in no zlib:0 zlib:1 lzo:1 zstd:0 zstd:15; do
	ghee_mkfs --compress $ok --rootdir "$compressible" "$img"
done
exit 0
