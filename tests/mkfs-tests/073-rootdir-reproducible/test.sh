#!/bin/bash
# Reproducible images: the same tree created twice in different orders
# (other readdir order and host inode numbers, other ctimes), built with
# SOURCE_DATE_EPOCH and -U, gives byte-identical images, also on one CPU
# (taskset -c 0); the times later than the epoch are clamped to it and
# the device and chunk tree UUIDs follow from -U.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_progs python3 sha256sum

a=$TEST_TMP/a
b=$TEST_TMP/b
make_tree "$a"
sleep 1
make_tree "$b" reverse
UUID=0e3c6a2f-5d7b-4c1e-9a8f-3b2d1c0e9f8a
export SOURCE_DATE_EPOCH=1450000000

build()
{
	local src=$1 img=$2

	shift 2
	rm -f "$img"
	"$@" "$GHEE" mkfs -q -U "$UUID" -L repro --rootdir "$src" "$img" ||
		fail "mkfs --rootdir $src failed"
}
build "$a" "$TEST_TMP/a.img"
build "$b" "$TEST_TMP/b.img"
build "$a" "$TEST_TMP/c.img" taskset -c 0
sa=$(sha256sum < "$TEST_TMP/a.img")
sb=$(sha256sum < "$TEST_TMP/b.img")
sc=$(sha256sum < "$TEST_TMP/c.img")
[ "$sa" = "$sb" ] || fail "equal trees created in other orders give different images"
[ "$sa" = "$sc" ] || fail "the image under taskset -c 0 differs"
check_all "$TEST_TMP/a.img"

# clamped times: mtimes of 1.5e9 and the ctimes (now) become the epoch
dump=$(btrfs inspect-internal dump-tree -t 5 "$TEST_TMP/a.img")
late=$(echo "$dump" | grep -E '^\s+(ctime|mtime|otime) ' | awk '{ split($2, t, "."); if (t[1] > 1450000000) print }' | head -3)
[ -z "$late" ] || fail "times after SOURCE_DATE_EPOCH remain: $late"
# an older time stays: the top directory's mtime (1.4e9 + 0.999999999)
echo "$dump" | grep -q "mtime 1400000000.999999999" || fail "a time before the epoch was changed"
super=$(btrfs inspect-internal dump-super "$TEST_TMP/a.img")
echo "$super" | grep -q "dev_item.uuid" || fail "no dev_item.uuid in dump-super"
rm -f "$TEST_TMP/d.img"
"$GHEE" mkfs -q -U "$UUID" -L repro "$TEST_TMP/d.img" -b 256M || fail "mkfs without --rootdir failed"
[ "$(btrfs inspect-internal dump-super "$TEST_TMP/d.img" | grep dev_item.uuid)" = \
  "$(echo "$super" | grep dev_item.uuid)" ] || fail "the device UUID does not follow from -U"
exit 0
