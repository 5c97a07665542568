#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quota groups after snapshots that share tree blocks and data with their
# source (the issue's recipe: compression, random, compressible, sparse and
# preallocated files, a subvolume, quota enabled, a snapshot of it, a
# read-only snapshot of the top level, deletions and a reflink), and again
# on 4 KiB nodes (shared trees of several levels) with a level-1 qgroup
# holding the subvolume and its snapshot.  The kernel's counts are right: btrfs
# check 6.2 and 6.19 call them clean; ghee must too, and must still catch a
# count changed by one sector.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools
need_progs python3 fallocate

img=$TEST_TMP/fs.img
mnt=$TEST_TMP/mnt
: > "$TEST_TMP/none"

populate()
{
	local m=$1 i

	head -c 3M /dev/urandom > "$m/rand"
	yes compressible | head -c 2M > "$m/comp"
	truncate -s 10M "$m/sparse"
	echo x | dd of="$m/sparse" bs=1 seek=5M conv=notrunc status=none
	fallocate -l 1M "$m/prealloc"
	echo small > "$m/small"
	mkdir "$m/d"
	for i in $(seq 1 400); do
		echo "file $i" > "$m/d/f$i"
	done
	head -c 20000 /dev/urandom > "$m/med"
}

# NAME NODESIZE: "recipe" enables quotas after the files are written (the
# issue's order); "hierarchy" enables them first and puts both subvolumes
# into a level-1 qgroup as they are made, then rescans
for variant in "recipe 16384" "hierarchy 4096"; do
	read -r name nodesize <<< "$variant"
	kernel_mkfs "$img" 512M -n "$nodesize"
	mount_image "$img" "$mnt" space_cache=v2,compress=zstd
	if [ "$name" = hierarchy ]; then
		btrfs quota enable "$mnt" || fail "quota enable failed"
		btrfs qgroup create 1/100 "$mnt" || fail "qgroup create failed"
	fi
	populate "$mnt"
	if [ "$name" = hierarchy ]; then
		btrfs subvolume create -i 1/100 "$mnt/sub" > /dev/null || fail "subvolume create failed"
	else
		btrfs subvolume create "$mnt/sub" > /dev/null || fail "subvolume create failed"
	fi
	cp -a "$mnt/rand" "$mnt/comp" "$mnt/sparse" "$mnt/prealloc" "$mnt/small" \
		"$mnt/d" "$mnt/med" "$mnt/sub/" || fail "copy failed"
	if [ "$name" = hierarchy ]; then
		btrfs subvolume snapshot -i 1/100 "$mnt/sub" "$mnt/snap" > /dev/null ||
			fail "snapshot failed"
	else
		btrfs quota enable "$mnt" || fail "quota enable failed"
		# the rescan quota enable starts must be over before the snapshot
		btrfs quota rescan -W "$mnt" > /dev/null || fail "waiting for the rescan failed"
		btrfs subvolume snapshot "$mnt/sub" "$mnt/snap" > /dev/null || fail "snapshot failed"
	fi
	snap=$(btrfs inspect-internal rootid "$mnt/snap") || fail "no root id"
	btrfs subvolume snapshot -r "$mnt" "$mnt/rosnap" > /dev/null || fail "snapshot failed"
	# nothing deleted from the top level: its leaves stay shared with rosnap
	rm "$mnt/snap/comp" "$mnt/sub/rand" "$mnt/snap/d/f7"
	echo changed > "$mnt/snap/d/f100"
	cp --reflink=always "$mnt/snap/rand" "$mnt/snap/rand2" || fail "reflink failed"
	# a snapshot into a higher qgroup leaves the counts inconsistent
	[ "$name" = recipe ] || btrfs quota rescan -w "$mnt" > /dev/null ||
		fail "quota rescan failed"
	umount_image "$mnt" || fail "umount failed"
	btrfs inspect-internal dump-tree -t 8 "$img" | grep -q 'flags ON scan' ||
		fail "$name: the quota status is not consistent: nothing to compare"
	expect_progs clean clean "$img"
	btrfs check --readonly --qgroup-report "$img" 2>&1 | grep -q "Counts for qgroup id: 0/$snap" ||
		fail "btrfs check reports no count for qgroup 0/$snap"
	expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$img"
	echo "ok $name, nodesize $nodesize: qgroup counts clean"
done

# damage: exclusive bytes of the snapshot's qgroup one sector off
edit=$TOP/tests/fsck-tests/lib/btrfs-edit.py
# struct btrfs_qgroup_info_item: generation, rfer, rfer_cmpr, excl, excl_cmpr
read -r rfer < <(python3 "$edit" "$img" get-item 8 0 242 "$snap" 8 8)
read -r excl < <(python3 "$edit" "$img" get-item 8 0 242 "$snap" 24 8)
python3 "$edit" "$img" add-item 8 0 242 "$snap" 24 8 4096 || fail "cannot edit the qgroup info"
cat > "$TEST_TMP/expected" <<EOT
ERROR: [QGROUP_COUNTS] qgroup 0/$snap: counts are different: referenced $rfer expect $rfer, exclusive $((excl + 4096)) expect $excl
EOT
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs errors errors "$img"
echo "ok exclusive count off by a sector: error"
