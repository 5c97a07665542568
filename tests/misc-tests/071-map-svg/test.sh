#!/bin/bash
# ghee map draws every block group: the SVG is valid XML (xmllint), renders
# (rsvg-convert), and in the rendered PNG the middle of a known data,
# metadata and system block group has that type's colour; the hover titles
# carry progs' numbers (start, length, used); the physical layout renders
# too, and --png writes the same picture.
source "$TOP/tests/common.sh"
need_progs python3 mkfs.btrfs btrfs xmllint rsvg-convert

src=$TEST_TMP/src
mkdir -p "$src/d"
for i in $(seq 1 300); do head -c $((5000 + i * 300)) /dev/urandom > "$src/d/f$i"; done
img=$TEST_TMP/img
truncate -s 512M "$img"
mkfs.btrfs -q -f -m dup --rootdir "$src" "$img" >/dev/null || fail "mkfs.btrfs failed"
rm -rf "$src"

run_check_cmd "$GHEE" map -o "$TEST_TMP/map.svg" --png "$TEST_TMP/ghee.png" "$img"
xmllint --noout "$TEST_TMP/map.svg" || fail "the SVG is not valid XML"
rsvg-convert -o "$TEST_TMP/map.png" "$TEST_TMP/map.svg" || fail "rsvg-convert failed"
cmp -s "$TEST_TMP/map.png" "$TEST_TMP/ghee.png" || fail "--png differs from rsvg-convert's picture"
btrfs inspect-internal dump-tree -t chunk "$img" > "$TEST_TMP/chunks.txt" || fail "progs dump-tree failed"
btrfs inspect-internal dump-tree -t extent "$img" > "$TEST_TMP/bgs.txt" || fail "progs dump-tree failed"
python3 "$TEST_DIR/check_map.py" "$TEST_TMP/map.svg" "$TEST_TMP/map.png" \
	"$TEST_TMP/chunks.txt" "$TEST_TMP/bgs.txt" || fail "the picture is wrong"

run_check_cmd "$GHEE" map --physical -o "$TEST_TMP/phys.svg" "$img"
xmllint --noout "$TEST_TMP/phys.svg" || fail "the physical SVG is not valid XML"
rsvg-convert -o "$TEST_TMP/phys.png" "$TEST_TMP/phys.svg" || fail "rsvg-convert failed (physical)"
# DUP metadata: two stripes of each metadata group on the one device
n=$(grep -c 'class="bg metadata"' "$TEST_TMP/phys.svg")
m=$(grep -c 'class="bg metadata"' "$TEST_TMP/map.svg")
[ "$n" -eq $((2 * m)) ] || fail "physical layout: $n metadata stripes for $m DUP groups"
run_expect_status 2 "$GHEE" map "$img" 2>/dev/null
# --help and the man page name every option the command accepts
"$GHEE" map --help > "$TEST_TMP/help.txt" || fail "--help failed"
for opt in $(grep -o '{ "[a-z-]*", [a-z_]*_argument' "$TOP/cmds/map.c" | cut -d'"' -f2); do
	grep -q -- "--$opt\b" "$TEST_TMP/help.txt" || fail "--help does not list --$opt"
	grep -q -- "\\\\-\\\\-${opt//-/\\\\-}" "$TOP/man/ghee-map.8" || fail "the man page does not describe --$opt"
done
echo "map ok"
