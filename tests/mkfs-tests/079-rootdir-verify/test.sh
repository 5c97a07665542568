#!/bin/bash
# mkfs --rootdir on a generated tree with every kind of file
# (tests/tools/gen-tree.py: sparse and empty files, sizes from 1 byte up,
# 255-byte names, a deep chain, 320 hard links to one inode, xattrs of
# every namespace, ACLs, capabilities, devices, fifos, sockets): btrfs
# check 6.2 and 6.19 and ghee check --check-data-csum clean, the tree
# read back through the kernel (read only) with zero differences, then a
# read-write workload (write, delete, snapshot, scrub, full balance) and
# the three checks again.
# GHEE_LONG=1: 20,000 files up to 64 MiB, and a copy of a real system
# tree (/usr/share, or GHEE_SYSTEM_TREE) the same way.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup

# noatime_view DIR VIEW: DIR seen through a noatime bind mount at VIEW.
# The generated times have atimes older than mtimes, which relatime moves
# on every read (of directories by mkfs, of anything by find or du).
noatime_view()
{
	mkdir -p "$2" || fail "cannot create $2"
	mount --bind "$1" "$2" || fail "cannot bind-mount $1"
	at_exit "umount '$2'"
	mount -o remount,bind,noatime "$2" || fail "cannot make $2 noatime"
}

# verify SRC SIZE: mkfs, checks, read-only comparison, workload
verify()
{
	local t0 t1

	new_image "$img" "$2"
	t0=$(date +%s.%N)
	ghee_mkfs --rootdir "$1" "$img"
	t1=$(date +%s.%N)
	echo "mkfs --rootdir $1: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
	check_all "$img"
	mount_image "$img" "$mnt" ro
	compare_tree "$1" "$mnt"
	umount_image "$mnt"
	workload "$img" "$mnt"
}

if [ -n "${GHEE_LONG:-}" ]; then
	files=20000 max=64M
else
	files=3000 max=4M
fi
python3 "$TOP/tests/tools/gen-tree.py" --seed 79 --files "$files" --max-size "$max" \
	--many-links 320 "$TEST_TMP/gen" >/dev/null || fail "cannot generate the tree"
noatime_view "$TEST_TMP/gen" "$src"
nr=$(find "$src" | wc -l)
[ "$nr" -ge "$files" ] || fail "the generated tree has $nr paths, wanted $files"
# links of the many-linked inode: at least 300 in one group
big=$(find "$src" -type f -links +299 | head -1)
[ -n "$big" ] || fail "no inode of the tree has 300 links"
for t in s p b c l; do
	[ -n "$(find "$src" -type "$t" | head -1)" ] || fail "the tree has no file of type $t"
done
# room for the data, twice (snapshot and balance of the workload), and
# the workload's own files
kib=$(du -s --apparent-size "$src" | cut -f1)
verify "$src" "$(( (kib * 3 / 1024) + 768 ))M"

if [ -n "${GHEE_LONG:-}" ]; then
	sys=${GHEE_SYSTEM_TREE:-/usr/share}
	[ -d "$sys" ] || fail "no system tree $sys"
	src=$TEST_TMP/sys
	rm -rf "$TEST_TMP/gen"
	# a copy (times kept) that nothing else reads
	cp -a "$sys" "$TEST_TMP/sys-copy" || fail "cannot copy $sys"
	noatime_view "$TEST_TMP/sys-copy" "$src"
	kib=$(du -s --apparent-size "$src" | cut -f1)
	echo "system tree $sys: $(find "$src" | wc -l) paths, $((kib / 1024)) MiB"
	verify "$src" "$(( (kib * 3 / 1024) + 768 ))M"
fi
exit 0
