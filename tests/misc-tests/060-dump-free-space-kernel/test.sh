#!/bin/bash
# ghee dump-free-space, usage and tree-stats against the kernel's own view,
# on filesystems the kernel wrote: one with the free space tree, one with
# the v1 space cache.  Each is fragmented (files of many sizes, compressed
# and not, a snapshot, every third file deleted, hundreds of one-sector
# holes so that the free space tree uses bitmaps), then, mounted:
#  - python3-btrfs reads every block group's used bytes and free space
#    extents through the ioctls (fsview.py),
#  - btrfs filesystem usage -b prints the usage;
# after unmounting, ghee must print the same numbers: per block group used,
# free, number of free extents and largest one; the usage lines; the
# tree-stats numbers btrfs-progs prints too.  The three free space sources
# must agree (--compare), and the JSON must validate against the schemas
# of the man pages (tests/misc-tests/064-inspect-json-schema checks more).
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3
# python3-btrfs is a Debian package: prefer the system python
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c "import btrfs" 2>/dev/null || skip "python3-btrfs is not installed"

mnt=$TEST_TMP/mnt

populate()
{
	local dir=$1 i

	mkdir -p "$dir/plain" "$dir/small"
	for i in $(seq 0 299); do
		head -c $(( (i % 13 + 1) * 12288 )) /dev/urandom > "$dir/plain/f$i"
	done
	for i in $(seq 0 199); do
		head -c $(( (i % 7 + 1) * 1000 )) /dev/zero > "$dir/small/s$i"
	done
	btrfs -q subvolume snapshot "$dir" "$dir/snap" >/dev/null ||
		fail "snapshot failed"
	for i in $(seq 0 3 299); do rm -f "$dir/plain/f$i"; done
	for i in $(seq 0 4 199); do rm -f "$dir/small/s$i"; done
	# 1200 single-sector files, every other one deleted: hundreds of
	# holes in one data block group, so the free space tree switches that
	# group to bitmaps
	mkdir "$dir/sectors"
	"$PY" - "$dir/sectors" <<'PYEOF' || fail "cannot write the one-sector files"
import os, sys
for i in range(1200):
    with open(os.path.join(sys.argv[1], "s%d" % i), "wb") as f:
        f.write(os.urandom(4096))
os.sync()
for i in range(0, 1200, 2):
    os.unlink(os.path.join(sys.argv[1], "s%d" % i))
PYEOF
	# compressed data in its own extents
	mkdir "$dir/comp"
	btrfs property set "$dir/comp" compression zstd >/dev/null 2>&1
	for i in $(seq 0 39); do
		yes "line $i" | head -c 300000 > "$dir/comp/c$i"
	done
	sync
}

# usage lines that do not depend on the device name or the in-memory
# reservations of the mounted kernel (statfs)
usage_filter()
{
	grep -v 'Free (statfs, df)' | sed -e 's|^   [^ \t]*\t|   DEV\t|'
}

# "tree key value" lines for what btrfs-progs' tree-stats prints too
stats_filter()
{
	awk '/^Calculating size of/ { tree = $4 }
	     /Total size:|Inline data:|Levels:|Total nodes:|On level/ {
		line = $0; sub(/^[ \t]+/, "", line); gsub(/[ \t]+/, " ", line)
		print tree ": " line }'
}

one_image()
{
	local name=$1 mkfs_opts=$2 mount_opts=$3 img=$TEST_TMP/$1.img src

	truncate -s 2G "$img"
	# shellcheck disable=SC2086
	mkfs.btrfs -q -f $mkfs_opts "$img" >/dev/null 2>&1 || fail "mkfs.btrfs $mkfs_opts failed"
	mount_image "$img" "$mnt" "$mount_opts"
	populate "$mnt"
	"$PY" "$TEST_DIR/fsview.py" "$mnt" > "$TEST_TMP/$name.kernel" ||
		fail "python3-btrfs could not read $mnt"
	btrfs filesystem usage -b "$mnt" | usage_filter > "$TEST_TMP/$name.usage.progs" ||
		fail "btrfs filesystem usage failed"
	btrfs filesystem usage "$mnt" | usage_filter > "$TEST_TMP/$name.usage-h.progs" ||
		fail "btrfs filesystem usage failed"
	umount_image "$mnt" || fail "umount failed"
	btrfs check --readonly "$img" >/dev/null 2>&1 || fail "$name: btrfs check is not clean"

	# the kernel's view, from the source the filesystem uses
	src=tree
	[ "$name" = v1 ] && src=extents
	"$GHEE" dump-free-space --source $src --format json "$img" > "$TEST_TMP/$name.json" ||
		fail "$name: ghee dump-free-space --source $src failed"
	"$PY" "$TEST_DIR/ghee-view.py" < "$TEST_TMP/$name.json" > "$TEST_TMP/$name.ghee" ||
		fail "$name: bad JSON"
	compare_outputs "$TEST_TMP/$name.kernel" "$TEST_TMP/$name.ghee" ||
		fail "$name: ghee dump-free-space differs from python3-btrfs"
	[ "$(wc -l < "$TEST_TMP/$name.ghee")" -ge 3 ] || fail "$name: too few block groups"
	awk '$5 > 5 { n++ } END { exit !(n > 0) }' "$TEST_TMP/$name.ghee" ||
		fail "$name: no fragmented block group: the test does not test much"

	# the sources agree
	if [ "$name" = fst ]; then
		btrfs inspect-internal dump-tree -t 10 "$img" 2>/dev/null | grep -q FREE_SPACE_BITMAP ||
			fail "$name: no free space bitmap: the bitmap decoding is not tested"
		run_check_cmd "$GHEE" dump-free-space --source tree --compare extents "$img" \
			> "$TEST_TMP/$name.cmp" || fail "$name: tree and extents differ"
		grep -q "agree" "$TEST_TMP/$name.cmp" || fail "$name: no agreement line"
		"$GHEE" dump-free-space "$img" | grep -q '^source: free space tree' ||
			fail "$name: the default source is not the free space tree"
	else
		"$GHEE" dump-free-space "$img" > "$TEST_TMP/$name.default" ||
			fail "$name: ghee dump-free-space (default source) failed"
		grep -q '^source: v1 space cache' "$TEST_TMP/$name.default" ||
			fail "$name: the default source is not the v1 cache"
		run_check_cmd "$GHEE" dump-free-space --source cache --compare extents "$img" \
			> "$TEST_TMP/$name.cmp" || { cat "$TEST_TMP/$name.cmp"; fail "$name: cache and extents differ"; }
		grep -q "agree" "$TEST_TMP/$name.cmp" || fail "$name: no agreement line"
		# at least one group really had a cache that was decoded
		"$GHEE" dump-free-space --source cache --format json "$img" |
			"$PY" -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not any("free" in b and "error" not in b and b.get("source") == "cache" for b in d["block_groups"]))' ||
			fail "$name: no block group has a usable v1 cache"
	fi

	# usage, as btrfs filesystem usage -b printed it while mounted
	"$GHEE" usage -b "$img" | usage_filter > "$TEST_TMP/$name.usage.ghee" ||
		fail "$name: ghee usage failed"
	compare_outputs "$TEST_TMP/$name.usage.progs" "$TEST_TMP/$name.usage.ghee" ||
		fail "$name: ghee usage -b differs from btrfs filesystem usage -b"
	"$GHEE" usage "$img" | usage_filter > "$TEST_TMP/$name.usage-h.ghee" ||
		fail "$name: ghee usage failed"
	compare_outputs "$TEST_TMP/$name.usage-h.progs" "$TEST_TMP/$name.usage-h.ghee" ||
		fail "$name: ghee usage differs from btrfs filesystem usage (human units)"

	# tree-stats: the numbers progs prints
	btrfs inspect-internal tree-stats -b "$img" 2>/dev/null | stats_filter > "$TEST_TMP/$name.ts.progs"
	[ -s "$TEST_TMP/$name.ts.progs" ] || fail "$name: no output from btrfs inspect-internal tree-stats"
	"$GHEE" tree-stats -b -t root -t extent -t csum -t fs "$img" | stats_filter \
		> "$TEST_TMP/$name.ts.ghee" || fail "$name: ghee tree-stats failed"
	compare_outputs "$TEST_TMP/$name.ts.progs" "$TEST_TMP/$name.ts.ghee" ||
		fail "$name: ghee tree-stats differs from btrfs inspect-internal tree-stats"
	"$GHEE" tree-stats "$img" > /dev/null || fail "$name: ghee tree-stats (all trees) failed"
	[ "$name" = v1 ] && damage_cache_page "$img"
	echo "$name: $(wc -l < "$TEST_TMP/$name.ghee") block groups equal"
}

# flip a byte in page 0 of one block group's v1 cache file: --source cache
# names the page, the default source warns and uses the extent tree
damage_cache_page()
{
	local img=$1 bg phys

	read -r bg phys < <(btrfs inspect-internal dump-tree -t 1 "$img" 2>/dev/null |
		"$PY" "$TEST_DIR/cache-page.py" "$(btrfs inspect-internal dump-tree -t 3 "$img" 2>/dev/null | base64 -w0)") ||
		fail "no v1 cache file found"
	printf '\xa5' | dd of="$img" bs=1 seek=$((phys + 200)) conv=notrunc 2>/dev/null
	run_expect_status 1 "$GHEE" dump-free-space --source cache --block-group "$bg" "$img" \
		> /dev/null 2> "$TEST_TMP/v1.damaged.err"
	grep -q "block group $bg: checksum of page 0 does not match" "$TEST_TMP/v1.damaged.err" ||
		{ cat "$TEST_TMP/v1.damaged.err"; fail "the damaged cache page is not named"; }
	run_check_cmd "$GHEE" dump-free-space --block-group "$bg" "$img" \
		> "$TEST_TMP/v1.fallback" 2> "$TEST_TMP/v1.fallback.err"
	grep -q "v1 space cache not usable (checksum of page 0 does not match), using the extent tree" \
		"$TEST_TMP/v1.fallback.err" || fail "no warning about the damaged cache"
	grep -q " extents\$" "$TEST_TMP/v1.fallback" || fail "the fallback did not use the extent tree"
}

one_image fst "" "compress=zstd"
one_image v1 "-R ^free-space-tree" "space_cache=v1,compress=zstd"
exit 0
