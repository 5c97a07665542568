#!/bin/bash
# mkfs --rootdir ARCHIVE --subvol on paths that are not directories of the
# archive: missing, a regular file, below a regular file, a symlink to a
# directory, not plain ("..", ".", empty components), absolute, given
# twice, two defaults.  Each fails with a message naming the --subvol
# before anything is written (the target keeps no filesystem) and leaves
# no spool behind; a plain directory and "./dir/" work.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_tar_input

img=$TEST_TMP/img
src=$TEST_TMP/src
mkdir -p "$src/dir/sub" "$src/other"
head -c 300000 /dev/urandom > "$src/dir/big"
echo small > "$src/file"
ln -s dir "$src/dirlink"
tar -C "$src" -cf "$TEST_TMP/a.tar" . || fail "tar failed"

# refused MESSAGE MKFS-ARGS...
refused()
{
	local msg=$1 out

	shift
	new_image "$img" 256M
	out=$("$GHEE" mkfs -q -f "$@" --rootdir "$TEST_TMP/a.tar" "$img" 2>&1) &&
		fail "mkfs --rootdir a.tar $* succeeded"
	echo "$out" | grep -qF -- "$msg" || fail "mkfs --rootdir a.tar $*: no message '$msg' in: $out"
	[ "$(head -c 128K "$img" | tr -d '\0' | wc -c)" = 0 ] ||
		fail "mkfs --rootdir a.tar $* wrote to the target"
	no_spool_left
}

refused "--subvol missing: no such directory in the archive" -u missing
refused "--subvol dir/missing: no such directory in the archive" -u dir/missing
refused "--subvol file: not a directory in the archive" -u file
refused "--subvol file/x: no such directory in the archive" -u file/x
refused "--subvol dirlink: not a directory in the archive" -u dirlink
refused "--subvol dirlink/sub: no such directory in the archive" -u ro:dirlink/sub
for bad in "dir/../other" "dir/./sub" "dir//sub" ".." "/dir"; do
	refused "--subvol $bad: expected a" -u "$bad"
done
refused "given twice" -u dir -u rw:./dir/
refused "at most one default" -u default:dir -u default-ro:other

# the good ones work
new_image "$img" 256M
ghee_mkfs -u ./dir/ -u default-ro:dir/sub -u other --rootdir "$TEST_TMP/a.tar" "$img"
no_spool_left
check_all "$img"
[ "$(btrfs inspect-internal dump-tree -t root "$img" | grep -cE 'item [0-9]+ key \(25[678] ROOT_ITEM')" = 3 ] ||
	fail "three subvolumes were asked for"
btrfs inspect-internal dump-tree -t root "$img" | grep -A3 'item [0-9]* key (258 ROOT_ITEM' | grep -q 'flags 0x1(RDONLY)' ||
	fail "dir/sub (subvolume 258, after the top directory's entries) is not read-only"
exit 0
