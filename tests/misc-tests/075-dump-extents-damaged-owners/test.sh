#!/bin/bash
# Owner resolution over a damaged extent tree: the extent leaf holding the
# item of the file system tree's root node has a bad checksum (the only
# copy), so the trees reaching every leaf of that tree cannot be found
# through the extent tree.  ghee dump-extents must still give every data
# extent it prints the owners and paths it has on the healthy image (the
# tree whose search found the leaf holds it), name each block it cannot
# place once (the failure is remembered, not retried for every extent of
# the leaf), and exit 1.
source "$TOP/tests/common.sh"
need_progs mkfs.btrfs btrfs

src=$TEST_TMP/src
mkdir -p "$src/d"
for i in $(seq 1 1500); do head -c $((4096 + i % 3 * 4096)) /dev/urandom > "$src/d/f$i"; done
img=$TEST_TMP/img
truncate -s 256M "$img"
mkfs.btrfs -q -f -n 4096 -m single --rootdir "$src" "$img" >/dev/null || fail "mkfs.btrfs failed"
rm -rf "$src"

"$GHEE" dump-extents "$img" > "$TEST_TMP/good.txt" || fail "dump-extents failed on the healthy image"
# per btrfs-progs: the fs tree's root node, and the extent leaf with its item
root_node=$(btrfs inspect-internal dump-tree -t 5 "$img" | awk '/^(node|leaf) [0-9]+ level/ { print $2; exit }')
level=$(btrfs inspect-internal dump-tree -t 5 "$img" | awk '/^(node|leaf) [0-9]+ level/ { print $4; exit }')
[ -n "$root_node" ] && [ "$level" -ge 1 ] || fail "the fs tree has a single level"
leaf=$(btrfs inspect-internal dump-tree -t extent "$img" |
	awk -v b="$root_node" '/^leaf [0-9]+ items/ { leaf = $2 }
		$0 ~ "key \\(" b " (METADATA_ITEM|EXTENT_ITEM)" { print leaf; exit }')
[ -n "$leaf" ] || fail "no extent item for tree block $root_node"
phys=$("$GHEE" dump-extents --logical "$leaf" "$img" | awk '/mirror 1 devid/ { print $6 }')
[ -n "$phys" ] || fail "no physical address for leaf $leaf"
printf 'damage!damage!' | dd of="$img" bs=1 seek=$((phys + 300)) conv=notrunc 2>/dev/null
btrfs check --readonly "$img" > /dev/null 2>&1 && fail "btrfs check finds no damage"

run_expect_status 1 "$GHEE" dump-extents "$img" > "$TEST_TMP/bad.txt" 2> "$TEST_TMP/bad.err"
grep -q "checksum verify failed on $leaf" "$TEST_TMP/bad.err" || fail "the damaged block is not named"
grep -q "tree block $root_node: cannot find the trees that reach it" "$TEST_TMP/bad.err" ||
	fail "the block whose extent item is lost is not named"
dup=$(grep -o 'tree block [0-9]*: cannot find' "$TEST_TMP/bad.err" | sort | uniq -d | head -n 3)
[ -z "$dup" ] || fail "a block is said more than once (the failure is retried): $dup"

# one line per data extent: its header and every owner and path line
per_extent()
{
	awk '/^data extent/ { if (e != "") print e; e = $0; next }
	     /^tree block/ { if (e != "") print e; e = ""; next }
	     e != "" && /^\t(owner|\tpath)/ { e = e " |" $0 }
	     END { if (e != "") print e }' "$1" | sort
}
per_extent "$TEST_TMP/good.txt" > "$TEST_TMP/good.own"
per_extent "$TEST_TMP/bad.txt" > "$TEST_TMP/bad.own"
nr_bad=$(wc -l < "$TEST_TMP/bad.own")
[ "$nr_bad" -gt 1000 ] || fail "only $nr_bad data extents printed"
missing=$(comm -13 "$TEST_TMP/good.own" "$TEST_TMP/bad.own" | head -n 3)
[ -z "$missing" ] || fail "data extents whose owners differ from the healthy image's: $missing"
owners=$(awk '/^total:/ { print $9 }' "$TEST_TMP/bad.txt")
data=$(awk '/^total:/ { print $4 }' "$TEST_TMP/bad.txt" | tr -d '(')
[ "$owners" = "$data" ] || fail "$owners owners for $data data extents"
echo "$nr_bad data extents, all with the healthy image's owners;" \
	"$(grep -c 'cannot find the trees' "$TEST_TMP/bad.err") blocks named once each"
