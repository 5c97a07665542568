#!/bin/bash
# Against mkfs.btrfs 6.2 with the same options: the image holds the same
# trees with the same kinds of items (key types and item sizes, counted),
# and the whole dump-tree with addresses, UUIDs, times and generations
# masked (mask-dump.sed) is printed to the log; DIFFERENCES.md explains
# what differs and why.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version

# the free space tree differs by layout (see known-diffs.txt): compare the
# other trees' shapes exactly, and that one by kinds only
shape_filter()
{
	awk '$2 == "free_space" && ($3 == "FREE_SPACE_EXTENT" || $3 == "FREE_SPACE_INFO") {
		print "   N", $2, $3, $4; next } { print }' | sort -u
}

# compare_one NAME SIZES OPTIONS...
compare_one()
{
	local name=$1 sizes=$2 i=0 s p=() g=()

	shift 2
	# a fresh UUID each time: mkfs.btrfs trips over one the kernel has
	# seen on other devices
	UUID=$(cat /proc/sys/kernel/random/uuid)
	for s in ${sizes//,/ }; do
		i=$((i + 1))
		new_image "p$i" "$s"
		new_image "g$i" "$s"
		p+=("p$i")
		g+=("g$i")
	done
	mkfs.btrfs -q -f -U "$UUID" -L cmp "$@" "${p[@]}" >/dev/null 2>&1 ||
		fail "mkfs.btrfs $* failed"
	ghee_mkfs -U "$UUID" -L cmp "$@" "${g[@]}"
	if [ $i -gt 1 ]; then
		attach_devices "${p[@]}"
		pdev=$LOOP_FIRST
		dump_masked "$pdev" > "$name.progs"
		tree_shape "$pdev" | shape_filter > "$name.progs.shape"
		detach_devices
		attach_devices "${g[@]}"
		gdev=$LOOP_FIRST
		dump_masked "$gdev" > "$name.ghee"
		tree_shape "$gdev" | shape_filter > "$name.ghee.shape"
		detach_devices
	else
		dump_masked p1 > "$name.progs"
		dump_masked g1 > "$name.ghee"
		tree_shape p1 | shape_filter > "$name.progs.shape"
		tree_shape g1 | shape_filter > "$name.ghee.shape"
	fi
	echo "=== $name: $sizes $*"
	diff -u "$name.progs" "$name.ghee" > "$name.diff"
	cat "$name.diff"
	DIFF_LINES=60 compare_outputs "$name.progs.shape" "$name.ghee.shape" ||
		fail "$name: the trees hold different kinds of items"
}

compare_one default 1G
compare_one small-single 200M -m single -n 4k
compare_one dup-data 2G -d dup --csum xxhash
compare_one mixed 1G -M
compare_one no-features 1G -O ^extref,^skinny-metadata,^no-holes -R ^free-space-tree
compare_one quota 1G -R quota
compare_one big 100G -n 64k --csum sha256
need_loop
compare_one raid1 2G,2G -d raid1
compare_one raid10 2G,2G,2G,2G -d raid10 -m raid1c4
exit 0
