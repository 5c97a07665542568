#!/bin/bash
# Bad --rootdir input: a clear message naming the path, exit status 1 (2
# for a wrong command line), and nothing left that btrfs check accepts:
# DIR missing or not a directory, a file or directory mkfs may not read
# (root without CAP_DAC_OVERRIDE), a symlink target too long to inline,
# several devices, a file that changes size while copied, a tree bigger than the given size (ENOSPC with the
# size needed), --owner without --rootdir or malformed.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version

img=$TEST_TMP/img
src=$TEST_TMP/src
mkdir -p "$src/sub"
echo data > "$src/sub/file"

# expect_fail STATUS PATTERN ARGS...: ghee mkfs ARGS fails with STATUS and
# a message matching PATTERN; the old filesystem on the image is gone
expect_fail()
{
	local want=$1 pat=$2 out rc

	shift 2
	new_image "$img" 256M
	mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || { echo "$out" >&2; fail "$*: exit status $rc, expected $want"; }
	echo "$out" | grep -qE -e "$pat" || { echo "$out" >&2; fail "$*: no message matching '$pat'"; }
	if [ "$want" = 1 ] && echo "$out" | grep -q "cannot copy\|not enough space"; then
		btrfs check --readonly "$img" >/dev/null 2>&1 &&
			{ echo "$out" >&2; fail "$*: failed, but btrfs check accepts what is left"; }
	fi
	return 0
}

expect_fail 1 "cannot open --rootdir directory $TEST_TMP/missing: No such file" \
	"$GHEE" mkfs -q -f -r "$TEST_TMP/missing" "$img"
expect_fail 1 "--rootdir $src/sub/file is not a directory" \
	"$GHEE" mkfs -q -f -r "$src/sub/file" "$img"
expect_fail 2 "limited to a single device" \
	"$GHEE" mkfs -q -f -r "$src" "$img" "$TEST_TMP/img2"
expect_fail 2 "need --rootdir" "$GHEE" mkfs -q -f --owner 1:1 "$img"
expect_fail 2 "invalid --owner 'x:1'" "$GHEE" mkfs -q -f -r "$src" --owner x:1 "$img"

# (a failure before the first write leaves the old filesystem as it was)
# a symlink target longer than a 4 KiB node's inline extent
long=$TEST_TMP/long
mkdir -p "$long"
ln -s "$(printf 'x%.0s' $(seq 4000))" "$long/toolong"
expect_fail 1 "symlink $long/toolong: target of 4000 bytes" \
	"$GHEE" mkfs -q -f -n 4096 -r "$long" "$img"

# more data than the given size: ENOSPC, with the size needed
big=$TEST_TMP/big
mkdir -p "$big"
head -c 150M /dev/zero > "$big/zeros"
expect_fail 1 "not enough space for --rootdir $big: the tree needs about [0-9]+ bytes" \
	"$GHEE" mkfs -q -f -b 128M -r "$big" "$img"
rm -rf "$big"

# a file whose content is not what its size says (a sysfs attribute,
# 4096 bytes by stat, a few bytes read): "changed size while copied"
sysattr=/sys/kernel/mm/transparent_hugepage/enabled
[ -f "$sysattr" ] || sysattr=$(find /sys/kernel -maxdepth 2 -type f -size 4k -readable 2>/dev/null | head -n 1)
if [ -n "$sysattr" ] && [ "$(stat -c %s "$sysattr")" = 4096 ]; then
	chg=$TEST_TMP/chg
	mkdir -p "$chg"
	touch "$chg/file"
	mount --bind "$sysattr" "$chg/file" || fail "bind mount of $sysattr failed"
	at_exit "umount '$chg/file' 2>/dev/null"
	expect_fail 1 "$chg/file changed size while it was copied" \
		"$GHEE" mkfs -q -f -r "$chg" "$img"
	umount "$chg/file"
fi

# the image file inside DIR: left out with a warning, not copied into itself
self=$TEST_TMP/self
mkdir -p "$self"
echo a > "$self/a"
(cd "$self" && "$GHEE" mkfs -q -r . img) 2> "$TEST_TMP/self.err" ||
	{ cat "$TEST_TMP/self.err" >&2; fail "mkfs -r . of a tree holding the image failed"; }
grep -q "img is the image being made: not copied" "$TEST_TMP/self.err" ||
	fail "no warning about the image inside DIR"
check_image "$self/img"

# unreadable file and directory for a root without DAC override
if command -v setpriv >/dev/null && setpriv --bounding-set -dac_override,-dac_read_search true 2>/dev/null; then
	nocap=(setpriv --bounding-set -dac_override,-dac_read_search)
	deny=$TEST_TMP/deny
	mkdir -p "$deny/d"
	echo secret > "$deny/f"
	chown 4321:4321 "$deny/f" "$deny/d"
	chmod 000 "$deny/f"
	expect_fail 1 "$deny/f: Permission denied" "${nocap[@]}" "$GHEE" mkfs -q -f -r "$deny" "$img"
	chmod 644 "$deny/f"
	chmod 000 "$deny/d"
	expect_fail 1 "$deny/d: Permission denied" "${nocap[@]}" "$GHEE" mkfs -q -f -r "$deny" "$img"
else
	echo "setpriv cannot drop capabilities: the permission cases are not run"
fi
exit 0
