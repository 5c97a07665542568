#!/bin/bash
# mkfs --rootdir --compress with each algorithm (and a level): the tree
# of every kind of file (also with --mixed, and with -O ^no-holes,
# sha256 and 64 KiB nodes) plus compressible, incompressible, half-and-half
# and inline-size files.  Compressible pieces are stored as compressed
# 128 KiB extents (ram_bytes 131072, disk bytes smaller), incompressible
# ones plain (a file whose first piece does not compress: all of it, in
# large extents), a small compressible file inline and compressed.  All three
# checks clean (ghee check --check-data-csum verifies the checksums of the
# compressed bytes), the kernel reads the same tree (tree-compare.py),
# then a read-write workload and the checks again.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"
mkdir -p "$src/comp"
yes "a line of text that compresses well" | head -c 1000000 > "$src/comp/text"
head -c 700000 /dev/urandom > "$src/comp/random"
{ yes zz | head -c 300000; head -c 300000 /dev/urandom; yes yy | head -c 5000; } > "$src/comp/mixed"
yes abc | head -c 2000 > "$src/comp/inline-text"
head -c 1500 /dev/urandom > "$src/comp/inline-random"
truncate -s 4M "$src/comp/sparse"
yes s | head -c 200000 | dd of="$src/comp/sparse" bs=64K seek=20 conv=notrunc status=none

# ALGO[:LEVEL]/more mkfs options
for run in zlib:9/ lzo/--mixed "zstd:15/-O ^no-holes --csum sha256 -n 65536" zstd/; do
	spec=${run%%/*}
	algo=${spec%%:*}
	# shellcheck disable=SC2086
	ghee_mkfs --compress "$spec" ${run#*/} --rootdir "$src" "$img" -b 512M
	check_all "$img"
	dump=$(btrfs inspect-internal dump-tree -t 5 "$img")
	ncomp=$(grep -c "extent compression [1-3] ($algo)" <<< "$dump")
	[ "$ncomp" -ge 10 ] || fail "$spec: only $ncomp compressed extents"
	grep -q "inline extent data size [0-9]* ram_bytes 2000 compression [1-3] ($algo)" <<< "$dump" ||
		fail "$spec: comp/inline-text is not inline and compressed"
	# the kernel's lzo keeps any result that fits inline (it checks the
	# size only past two sectors): random bytes go inline "compressed"
	if [ "$algo" = lzo ]; then
		grep -q "inline extent data size [0-9]* ram_bytes 1500 compression 2 (lzo)" <<< "$dump" ||
			fail "$spec: comp/inline-random is not inline and lzo, as the kernel stores it"
	else
		grep -q "inline extent data size 1500 ram_bytes 1500 compression 0" <<< "$dump" ||
			fail "$spec: comp/inline-random is not inline and plain"
	fi
	# comp/random, whose first piece does not compress, is stored plain
	# in one extent (the kernel's rule); the random half of comp/mixed
	# in plain pieces
	grep -A2 "extent data disk byte [0-9]* nr 700416$" <<< "$dump" |
		grep -q "extent compression 0" || fail "$spec: comp/random is not one plain extent"
	nplain=$(grep -c "extent compression 0 (none)" <<< "$dump")
	[ "$nplain" -ge 3 ] || fail "$spec: only $nplain plain extents"
	# a compressed extent: ram 131072, on disk less
	awk '/extent data disk byte/ { d = $NF } /extent data offset/ { r = $NF }
	     /extent compression [1-3]/ { if (r != 131072 && r % 4096) bad = 1; if (d >= r) bad = 1 }
	     END { exit bad }' <<< "$dump" || fail "$spec: a compressed extent does not save space"
	mount_image "$img" "$mnt" ro
	# reading a symlink moves its atime on the source: compare_tree
	# compares the other atimes
	python3 "$TOP/tests/tools/tree-compare.py" -q --ignore-atime "$src" "$mnt" ||
		{ umount_image "$mnt"; fail "$spec: the image differs from the source"; }
	compare_tree "$src" "$mnt"
	umount_image "$mnt"
	[ "$algo" = zstd ] && [ "$spec" != zstd ] && continue
	workload "$img" "$mnt"
done
exit 0
