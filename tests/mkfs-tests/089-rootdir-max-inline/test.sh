#!/bin/bash
# mkfs --rootdir --max-inline BYTES: file data of at most BYTES (and less
# than a sector) goes inline; the default is the kernel's max_inline, 2048;
# 0 puts no file data inline (symlinks still are); more than a sector, a
# bad number, or no --rootdir are refused.  Each image: the three checks
# clean, the tree compares equal, a workload on one.  With the inline
# limit of mkfs.btrfs 6.19 (sector - 1 = 4095), ghee has at most its
# extent items, csum items, metadata bytes, image bytes and allocated
# bytes after --shrink, on make_tree plus small files of every size
# around the limits and a generated tree.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"
python3 - "$src/small" <<'PY' || fail "cannot write the small files"
import os, random, sys
top = sys.argv[1]
os.makedirs(top)
r = random.Random(89)
for n in (1, 100, 2047, 2048, 2049, 2500, 3000, 3500, 4000, 4094, 4095, 4096, 4097, 6000):
    for k in range(3):
        open(os.path.join(top, "s%05d-%d" % (n, k)), "wb").write(bytes(r.getrandbits(8) for _ in range(n)))
PY
python3 "$TOP/tests/tools/gen-tree.py" --seed 89 --files 1500 --no-owners "$src/gen" > /dev/null ||
	fail "gen-tree.py failed"
# reading symlinks moves their atimes: a first run settles them
"$GHEE" mkfs -q -f --rootdir "$src" "$TEST_TMP/warm.img" -b 1G > /dev/null || fail "mkfs failed"
rm -f "$TEST_TMP/warm.img"

# inline IMG PATH: is the file data of PATH (relative) inline in IMG?
inline()
{
	local ino

	mount_image "$1" "$mnt" ro
	ino=$(stat -c %i "$mnt/$2")
	umount_image "$mnt"
	btrfs inspect-internal dump-tree -t 5 "$1" | grep -A3 "key ($ino EXTENT_DATA 0)" |
		grep -q "inline extent data size"
}

for limit in default 4095 0; do
	args=()
	[ "$limit" = default ] || args=(--max-inline "$limit")
	new_image "$img" 1G
	ghee_mkfs "${args[@]}" --rootdir "$src" "$img"
	check_all "$img"
	mount_image "$img" "$mnt" ro
	compare_tree "$src" "$mnt"
	umount_image "$mnt"
	case $limit in
	default) want_in="s02048-0"; want_out="s02049-0 s04095-0" ;;
	4095) want_in="s02049-0 s04095-0"; want_out="s04096-0" ;;
	0) want_in=""; want_out="s00001-0 s02048-0" ;;
	esac
	for f in $want_in; do
		inline "$img" "small/$f" || fail "--max-inline $limit: small/$f is not inline"
	done
	for f in $want_out; do
		inline "$img" "small/$f" && fail "--max-inline $limit: small/$f is inline"
	done
	if [ "$limit" = 0 ]; then
		btrfs inspect-internal dump-tree -t 5 "$img" | grep -q "inline extent data size" ||
			fail "--max-inline 0: the symlinks are not inline"
	fi
	[ "$limit" = 4095 ] && workload "$img" "$mnt"
done

run_expect_status 2 "$GHEE" mkfs -q -f --max-inline 4097 --rootdir "$src" "$img" 2> err.out
grep -q -- "--max-inline 4097: more than the sector size 4096" err.out || { cat err.out >&2; fail "--max-inline 4097 is not refused"; }
run_expect_status 2 "$GHEE" mkfs -q -f --max-inline lots --rootdir "$src" "$img" 2> err.out
grep -q -- "--max-inline lots: expected a size" err.out || { cat err.out >&2; fail "--max-inline lots is not refused"; }
run_expect_status 2 "$GHEE" mkfs -q -f --max-inline 100 "$img" 2> err.out
grep -q -- "need --rootdir" err.out || { cat err.out >&2; fail "--max-inline without --rootdir is not refused"; }

# the numbers against mkfs.btrfs 6.19, at its inline limit, after --shrink
[ -x "$PROGS619/mkfs.btrfs" ] || { echo "no mkfs.btrfs 6.19: the comparison is skipped" >&2; exit 0; }
# numbers IMG: extent items, csum items, metadata bytes, image bytes, allocated bytes
numbers()
{
	local nodesize meta

	nodesize=$(btrfs inspect-internal dump-super "$1" | awk '$1 == "nodesize" { print $2 }')
	meta=$("$PROGS619/btrfs" inspect-internal dump-tree -t extent "$1" | grep -cE 'key \([0-9]+ METADATA_ITEM ')
	echo "$("$PROGS619/btrfs" inspect-internal dump-tree -t extent "$1" | grep -cE 'key \([0-9]+ EXTENT_ITEM ')" \
	     "$("$PROGS619/btrfs" inspect-internal dump-tree -t csum "$1" | grep -cE 'key \(EXTENT_CSUM EXTENT_CSUM ')" \
	     "$((meta * nodesize))" "$(stat -c %s "$1")" "$(du -B1 "$1" | cut -f1)"
}
rm -f "$img"
ghee_mkfs --max-inline 4095 --shrink --rootdir "$src" "$img"
check_all "$img"
new_image "$TEST_TMP/p.img" 1G
"$PROGS619/mkfs.btrfs" -q -f --shrink --rootdir "$src" "$TEST_TMP/p.img" > /dev/null 2>&1 ||
	fail "mkfs.btrfs 6.19 --shrink failed"
read -r -a g <<< "$(numbers "$img")"
read -r -a p <<< "$(numbers "$TEST_TMP/p.img")"
names=("extent items" "csum items" "metadata bytes" "image bytes" "allocated bytes")
printf '%-16s %14s %14s\n' "" "ghee" "mkfs.btrfs 6.19" >&2
for i in 0 1 2 3 4; do
	printf '%-16s %14s %14s\n' "${names[$i]}" "${g[$i]}" "${p[$i]}" >&2
done
for i in 0 1 2 3 4; do
	[ "${g[$i]}" -le "${p[$i]}" ] || fail "${names[$i]}: ghee ${g[$i]}, more than mkfs.btrfs 6.19 ${p[$i]}"
done
exit 0
