#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee dump-tree against btrfs-progs 6.2 on filesystems made by mkfs.btrfs
# with every checksum, node sizes 4k/16k/64k, single and dup metadata,
# mixed block groups, holes, the v1 space cache, two-device raid1, with
# and without --rootdir content: the text must be identical line for line
# (the first line aside) in every dump mode, and the JSON must hold the
# same blocks and items.  Then two crafted leaves: one with every item
# type and odd but valid contents (must be identical), one with items too
# short for what they claim (progs reads past them; ghee must print a note
# and must not crash).
source "$TOP/tests/common.sh"
source "$TOP/tests/misc-tests/020-dump-tree-mkfs-matrix/dump-tree-lib.sh"

need_progs_version
need_progs python3

root=$TEST_TMP/root
mkdir -p "$root/dir/sub" || fail "mkdir"
echo small > "$root/inline"
head -c 5000 /dev/urandom > "$root/dir/5k"
head -c 300000 /dev/zero | tr '\0' 'a' > "$root/dir/sub/300k"
: > "$root/empty"
ln -s dir/5k "$root/link"
ln "$root/inline" "$root/dir/hardlink"
mkfifo "$root/fifo"
truncate -s 1M "$root/sparse"

# mkimg NAME MKFS-ARGS...: a fresh 300 MiB image (or NAME.1 and NAME.2)
mkimg()
{
	local name=$1 img=$TEST_TMP/$1.img

	shift
	rm -f "$img"
	truncate -s 300M "$img" || fail "truncate"
	mkfs.btrfs -q -f "$@" "$img" > "$TEST_TMP/mkfs.log" 2>&1 ||
		{ cat "$TEST_TMP/mkfs.log"; fail "mkfs.btrfs $* failed"; }
	echo "$img"
}

matrix=(
	"default"
	"csum-crc32c --csum crc32c --rootdir $root"
	"csum-xxhash --csum xxhash --rootdir $root"
	"csum-sha256 --csum sha256 --rootdir $root"
	"csum-blake2 --csum blake2 --rootdir $root"
	"node-4k -n 4096 --rootdir $root"
	"node-16k -n 16384 --rootdir $root"
	"node-64k -n 65536 --rootdir $root"
	"meta-single -m single -d single --rootdir $root"
	"meta-dup -m dup --rootdir $root"
	"mixed --mixed --rootdir $root"
	"holes -O ^no-holes --rootdir $root"
	"no-fst -R ^free-space-tree --rootdir $root"
)
# one matrix entry; a worker of dt_parallel
one_entry()
{
	local args name img

	read -r -a args <<< "$1"
	name=${args[0]}
	img=$(mkimg "$name" "${args[@]:1}") || exit
	dt_all_modes "$name" "$img"
	dt_compare "$name" "--follow -b $(btrfs inspect-internal dump-tree -r "$img" |
		awk '/^root tree:/ { print $3 }')" "$img"
	rm -f "$img"
}
dt_parallel one_entry "${matrix[@]}"

# two devices, raid1 data and metadata: both given, and only the first
d1=$TEST_TMP/r1.img
d2=$TEST_TMP/r2.img
truncate -s 300M "$d1" "$d2" || fail "truncate"
mkfs.btrfs -q -f -d raid1 -m raid1 "$d1" "$d2" \
	> "$TEST_TMP/mkfs.log" 2>&1 || { cat "$TEST_TMP/mkfs.log"; fail "mkfs raid1"; }
dt_all_modes raid1 "$d1" "$d2"
dt_compare raid1-one-device "" "$d1"
dt_compare raid1-one-device "--noscan -e" "$d1"

# crafted leaves in the fs tree of a 64k-node single-metadata image
craft()
{
	local kind=$1 img leaf chunk_log stripe phys

	img=$(mkimg "craft-$kind" -n 65536 -m single -d single) || exit
	leaf=$(btrfs inspect-internal dump-tree -t fs "$img" | awk '/^leaf / { print $2; exit }')
	phys=$(btrfs inspect-internal dump-tree -t chunk "$img" | awk -v L="$leaf" '
		/CHUNK_ITEM/ { for (i = 1; i <= NF; i++) if ($i == "CHUNK_ITEM") { lo = $(i + 1); sub(/\)/, "", lo) } }
		/^\t\tlength / { len = $2 }
		/stripe 0 devid/ { if (L >= lo + 0 && L < lo + len) { print L - lo + $6; exit } }')
	[ -n "$leaf" ] && [ -n "$phys" ] || fail "cannot locate the fs tree leaf of $img"
	python3 "$DT_DIR/craft-leaf.py" "$kind" "$img" "$phys" 65536 ||
		fail "craft-leaf.py $kind failed"
	echo "$img"
}

img=$(craft good) || exit
for mode in "-t fs" "-t fs --hide-names" "-t fs --csum-items" "-t fs --dfs --csum-headers" ""; do
	dt_compare craft-good "$mode" "$img"
done
dt_json craft-good "-t fs --csum-items" "$img"

img=$(craft bad) || exit
for mode in "-t fs" "-t fs --hide-names --csum-items"; do
	"$GHEE" dump-tree $mode "$img" > "$TEST_TMP/bad.out" 2> "$TEST_TMP/bad.err"
	rc=$?
	_status_is_crash $rc && fail "crafted bad leaf [$mode]: status $rc"
	notes=$(grep -c 'invalid' "$TEST_TMP/bad.out")
	[ "$notes" -ge 10 ] || fail "crafted bad leaf [$mode]: only $notes notes"
	DT_PASS=$((DT_PASS + 1))
done
dt_json craft-bad "-t fs" "$img"

dt_summary "mkfs matrix"
exit 0
