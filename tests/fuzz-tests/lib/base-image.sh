# SPDX-License-Identifier: GPL-2.0
# The healthy image the randomized damage tests start from: a small tree
# (NFILES small files, one 300 KB-ish random file, NLINKS hard links to
# one file, a symlink) put in by mkfs.btrfs --rootdir on 4 KiB nodes, so
# that its metadata spans many leaves the damage can reach.

# make_fuzz_base IMG NFILES NLINKS BIGBYTES
make_fuzz_base()
{
	local img=$1 nfiles=$2 nlinks=$3 big=$4 src=$TEST_TMP/fuzz-src i

	mkdir -p "$src/d1/d2"
	for i in $(seq 1 "$nfiles"); do printf 'data %d\n' "$i" > "$src/d1/f$i"; done
	head -c "$big" /dev/urandom > "$src/d1/d2/big"
	for i in $(seq 1 "$nlinks"); do ln "$src/d1/f1" "$src/d1/d2/link$i"; done
	ln -s d1/f2 "$src/sym"
	truncate -s 300M "$img"
	mkfs.btrfs -q -f -n 4096 -m single --rootdir "$src" "$img" >/dev/null ||
		fail "mkfs.btrfs failed"
}
