#!/bin/bash
# A matrix of single-device options: every checksum, node sizes 4K/16K/64K,
# every feature on and off, single/dup/mixed profiles, sizes from the
# minimum up.  Every image must be clean for `btrfs check`, and ghee's
# dump-tree of it must equal btrfs-progs'.  (block-group-tree images are
# judged elsewhere: btrfs-progs 6.2 cannot read them.)
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
img=$TEST_TMP/img
nr=0

# one SIZE OPTIONS...: make, check, compare
one()
{
	local size=$1

	shift
	new_image "$img" "$size"
	ghee_mkfs "$@" "$img"
	check_image "$img"
	compare_dump_tree "$img"
	nr=$((nr + 1))
}

for csum in crc32c xxhash sha256 blake2; do
	for n in 4k 16k 64k; do
		one 1G --csum "$csum" -n "$n"
	done
	one 1G --csum "$csum" -M
done

for feat in extref skinny-metadata no-holes free-space-tree quota; do
	one 1G -O "^$feat"
	one 1G -O "$feat"
	one 1G -O "^$feat" -n 4k -m single
done
one 1G -O ^extref,^skinny-metadata,^no-holes,^free-space-tree
one 1G -R quota,^free-space-tree -O ^no-holes
one 1G -O raid1c34

for prof in "-m single -d single" "-m dup -d single" "-m dup -d dup" \
	    "-m single -d dup" "-M" "-M -m dup -d dup" "-d raid0 -m single"; do
	# shellcheck disable=SC2086
	one 2G $prof
	# shellcheck disable=SC2086
	one 60G $prof
done

# the smallest sizes each profile accepts (the mkfs.btrfs 6.2 minimum)
one 114294784
one 47185920 -m single
one 240123904 -d dup
one 16777216 -M
one 16777216 -M -m dup -d dup
one 114294784 -n 64k
one 114294784 -n 4k -O ^skinny-metadata
# odd sizes: not a multiple of the sector size or the stripe length
one $((1073741824 + 12345))
one $((5 * 1073741824 + 65536 * 3 + 512))
# large sparse images
one 300G
one 1T --csum xxhash
one 8T -n 64k
echo "$nr images made and checked"
exit 0
