#!/bin/bash
# A damaged extent tree: one leaf in the middle has a bad checksum (the
# only copy).  ghee dump-extents prints every extent it can read, before
# AND after that leaf, names the block and where it went on, exits 1, and
# its JSON is still a complete document valid against the schema; ghee map
# still writes a valid SVG and exits 1.
source "$TOP/tests/common.sh"
need_progs mkfs.btrfs btrfs python3

src=$TEST_TMP/src
mkdir -p "$src/d"
for i in $(seq 1 1500); do head -c $((4096 + i % 3 * 4096)) /dev/urandom > "$src/d/f$i"; done
img=$TEST_TMP/img
truncate -s 256M "$img"
mkfs.btrfs -q -f -n 4096 -m single --rootdir "$src" "$img" >/dev/null || fail "mkfs.btrfs failed"
rm -rf "$src"

"$GHEE" dump-extents "$img" > "$TEST_TMP/good.txt" || fail "dump-extents failed on the healthy image"
# the third leaf of the extent tree, per btrfs-progs
leaf=$(btrfs inspect-internal dump-tree -t extent "$img" | awk '/^leaf [0-9]+ items/ { n++; if (n == 3) { print $2; exit } }')
[ -n "$leaf" ] || fail "the extent tree has fewer than 3 leaves"
phys=$("$GHEE" dump-extents --logical "$leaf" "$img" | awk '/mirror 1 devid/ { print $6 }')
[ -n "$phys" ] || fail "no physical address for leaf $leaf"
printf 'damage!damage!' | dd of="$img" bs=1 seek=$((phys + 300)) conv=notrunc 2>/dev/null

run_expect_status 1 "$GHEE" dump-extents "$img" > "$TEST_TMP/bad.txt" 2> "$TEST_TMP/bad.err"
cat "$TEST_TMP/bad.err"
grep -q "checksum verify failed on $leaf" "$TEST_TMP/bad.err" || fail "the damaged block is not named"
grep -q "skipped to" "$TEST_TMP/bad.err" || fail "the walk did not go on after the damaged leaf"
grep '^data extent\|^tree block' "$TEST_TMP/good.txt" | sort > "$TEST_TMP/good.ext"
grep '^data extent\|^tree block' "$TEST_TMP/bad.txt" | sort > "$TEST_TMP/bad.ext"
[ -z "$(comm -13 "$TEST_TMP/good.ext" "$TEST_TMP/bad.ext")" ] ||
	fail "extents printed that the healthy image does not have"
lost=$(comm -23 "$TEST_TMP/good.ext" "$TEST_TMP/bad.ext" | wc -l)
total=$(wc -l < "$TEST_TMP/good.ext")
[ "$lost" -gt 0 ] && [ "$lost" -lt $((total / 2)) ] ||
	fail "$lost of $total extents lost: expected only those of one leaf"
last=$(grep '^data extent' "$TEST_TMP/good.txt" | tail -n 1)
grep -qxF "$last" "$TEST_TMP/bad.txt" || fail "the extents after the damaged leaf are missing"

run_expect_status 1 "$GHEE" dump-extents --format json "$img" > "$TEST_TMP/bad.json" 2>/dev/null
python3 "$TOP/tests/pylib/man_schema.py" "$TOP/man/ghee-dump-extents.8" "$TEST_TMP/bad.json" ||
	fail "the JSON of a damaged image does not match the schema"
run_expect_status 1 "$GHEE" map -o "$TEST_TMP/map.svg" "$img" 2>/dev/null
if command -v xmllint >/dev/null; then
	xmllint --noout "$TEST_TMP/map.svg" || fail "the SVG of a damaged image is not valid XML"
fi
echo "lost $lost of $total extents, the rest printed"
