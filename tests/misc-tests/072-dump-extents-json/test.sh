#!/bin/bash
# The JSON of every ghee dump-extents mode validates against the schema in
# ghee-dump-extents(8), on an image with a hard link and DUP metadata
# (made by mkfs.btrfs --rootdir) and the demo image; a document that
# breaks the schema fails.
source "$TOP/tests/common.sh"
need_progs python3 mkfs.btrfs xz

man=$TOP/man/ghee-dump-extents.8
src=$TEST_TMP/src
mkdir -p "$src/d1/d2"
for i in $(seq 1 200); do head -c $((3000 + i * 37)) /dev/urandom > "$src/d1/f$i"; done
ln "$src/d1/f100" "$src/d1/d2/link"
img=$TEST_TMP/img
truncate -s 256M "$img"
mkfs.btrfs -q -f -m dup --rootdir "$src" "$img" >/dev/null || fail "mkfs.btrfs failed"
xz -dc "$TOP/examples/demo.img.xz" > "$TEST_TMP/demo.img" || fail "no demo image"

n=0
doc() { n=$((n + 1)); run_check_cmd "$GHEE" dump-extents --format json "$@" > "$TEST_TMP/doc$n.json"; }
for dev in "$img" "$TEST_TMP/demo.img"; do
	doc "$dev"
	doc --tree "$dev"
	first=$("$GHEE" dump-extents --data "$dev" | awk '/^data extent/ { print $3; exit }')
	[ -n "$first" ] || fail "no data extent in $dev"
	doc --logical $((first + 100)) "$dev"
	doc --physical "1:$first" "$dev"
	doc --range "$first:1M" "$dev"
	bg=$("$GHEE" dump-extents --logical "$first" "$dev" | awk '/in chunk/ { print $5; exit }')
	doc --block-group "$bg" "$dev"
	ino=$("$GHEE" dump-extents --logical "$first" "$dev" | awk '/owner/ { print $5; exit }')
	doc --inode "$ino" --subvol 5 "$dev"
	# errors give a complete document too
	n=$((n + 1))
	run_expect_status 1 "$GHEE" dump-extents --format json --logical 1 "$dev" \
		> "$TEST_TMP/doc$n.json" 2>/dev/null
done
python3 "$TOP/tests/pylib/man_schema.py" "$man" "$TEST_TMP"/doc*.json ||
	fail "JSON does not match the schema in ghee-dump-extents(8)"
# the check can fail
sed 's/"mode": "all"/"mode": "bogus"/' "$TEST_TMP/doc1.json" > "$TEST_TMP/broken.json"
python3 "$TOP/tests/pylib/man_schema.py" "$man" "$TEST_TMP/broken.json" >/dev/null &&
	fail "a broken document passed the schema check"
# the hard link has two paths; the inode mode lists both
ino=$("$GHEE" dump-extents "$img" | awk '/owner/ { ino = $5 } /path \/d1\/f100$/ { print ino; exit }')
[ -n "$ino" ] || fail "no owner with the path /d1/f100"
"$GHEE" dump-extents --inode "$ino" --subvol 5 "$img" > "$TEST_TMP/inode.txt" ||
	fail "--inode failed"
grep -qx '		path /d1/f100' "$TEST_TMP/inode.txt" && grep -qx '		path /d1/d2/link' "$TEST_TMP/inode.txt" ||
	fail "the two names of a hard link: $(cat "$TEST_TMP/inode.txt")"
# --help and the man page name every option the command accepts
"$GHEE" dump-extents --help > "$TEST_TMP/help.txt" || fail "--help failed"
for opt in $(grep -o '{ "[a-z-]*", [a-z_]*_argument' "$TOP/cmds/dump-extents.c" | cut -d'"' -f2); do
	grep -q -- "--$opt\b" "$TEST_TMP/help.txt" || fail "--help does not list --$opt"
	grep -q -- "\\\\-\\\\-${opt//-/\\\\-}" "$man" || fail "the man page does not describe --$opt"
done
echo "$n documents valid"
