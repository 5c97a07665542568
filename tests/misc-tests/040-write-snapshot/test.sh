#!/bin/bash
# Copy on write of shared tree blocks on a kernel-made filesystem: the
# kernel creates a subvolume with files (data extents, an xattr), snapshots
# it and changes the source a little; then edit-subvols (built here against
# the engine) adds files to BOTH the source and the snapshot and deletes
# the source's xattr, in one transaction.  btrfs check and ghee check must find
# the result clean, the kernel must mount it with every file readable, and
# btrfs check must still be clean after the kernel's unmount.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs setfattr cc md5sum

img=$TEST_TMP/img
mnt=$TEST_TMP/mnt
mkdir -p "$mnt"

# ---- the helper, built like the unit tests (sanitizer flags included) ----
mkvar() {
	make -s -C "$BUILDDIR" -f Makefile -f - print-var V="$1" <<'EOF' 2>/dev/null
print-var:
	@echo $($(V))
EOF
}
cflags="$(mkvar CFLAGS) $(mkvar SAN_CFLAGS)"
libs="$(mkvar BLKID_LIBS) $(mkvar UUID_LIBS) $(mkvar ZLIB_LIBS) $(mkvar XXHASH_LIBS) \
      $(mkvar SODIUM_LIBS) $(mkvar ZSTD_LIBS) $(mkvar LZO_LIBS) -lpthread"
[ -f "$BUILDDIR/libghee.a" ] || fail "no libghee.a in $BUILDDIR"
# shellcheck disable=SC2086
cc $cflags -DHAVE_CONFIG_H -I"$BUILDDIR" -I"$TOP" -I"$TOP/kernel-shared" -I"$TOP/lib" \
	-o "$TEST_TMP/edit-subvols" "$TEST_DIR/edit-subvols.c" \
	"$BUILDDIR/libghee.a" $(mkvar SAN_LDFLAGS) $libs ||
	fail "cannot build edit-subvols"

# ---- the kernel makes a subvolume and a snapshot ----
truncate -s 1G "$img"
mkfs.btrfs -q -f "$img" >/dev/null || fail "mkfs.btrfs failed"
loop=$(losetup -f --show "$img") || fail "losetup failed"
at_exit "detach_file '$img'"
mount -o noatime "$loop" "$mnt" || fail "mount failed"
at_exit "umount $mnt 2>/dev/null"

btrfs -q subvolume create "$mnt/src" >/dev/null || fail "subvolume create failed"
for i in $(seq 0 599); do
	head -c $((4096 + (i % 5) * 4096)) /dev/urandom > "$mnt/src/file-$i"
done
head -c 1M /dev/urandom > "$mnt/src/big"
setfattr -n user.cow -v shared "$mnt/src/file-300" || fail "setfattr failed"
sync
btrfs -q subvolume snapshot "$mnt/src" "$mnt/snap" >/dev/null || fail "snapshot failed"
# the source changes a little after the snapshot (noatime: reading does not)
echo changed > "$mnt/src/file-500"
sync
(cd "$mnt/src" && md5sum file-* big) > "$TEST_TMP/src.md5"
(cd "$mnt/snap" && md5sum file-* big) > "$TEST_TMP/snap.md5"
src_id=$(btrfs inspect-internal rootid "$mnt/src")
snap_id=$(btrfs inspect-internal rootid "$mnt/snap")
xino=$(stat -c %i "$mnt/src/file-300")
umount "$mnt" || fail "umount failed"

btrfs check --readonly "$img" > "$TEST_TMP/check0.log" 2>&1 ||
	fail "kernel image not clean: $(cat "$TEST_TMP/check0.log")"
# ghee check reports the kernel's own leftovers on some kernels (free space
# info of block groups the kernel removed): the edit must add no finding
"$GHEE" check "$img" > "$TEST_TMP/ghee-check0.log" 2>&1
grep '^ERROR' "$TEST_TMP/ghee-check0.log" > "$TEST_TMP/ghee-errors0"

# ---- ghee changes both trees ----
# the source first: its shared blocks switch to FULL_BACKREF (the leaf of
# file-300 stays so, the snapshot keeps its xattr there); the snapshot then
# copies blocks that are FULL_BACKREF, or that it shares with the source
"$TEST_TMP/edit-subvols" "$img" "$src_id:srcnew:150:$xino" "$snap_id:snapnew:150:0" ||
	fail "edit-subvols failed"
btrfs inspect-internal dump-tree -t extent "$img" > "$TEST_TMP/extent.txt" 2>&1 ||
	fail "dump-tree of the extent tree failed"
nfull=$(grep -c "FULL_BACKREF" "$TEST_TMP/extent.txt")
nshared=$(grep -c "shared data backref" "$TEST_TMP/extent.txt")
[ "$nfull" -gt 0 ] && [ "$nshared" -gt 0 ] ||
	fail "no FULL_BACKREF block ($nfull) or shared data backref ($nshared) after the edit"
echo "after the edit: $nfull FULL_BACKREF blocks, $nshared shared data backrefs"

btrfs check --readonly "$img" > "$TEST_TMP/check1.log" 2>&1 ||
	fail "btrfs check after the edit: $(cat "$TEST_TMP/check1.log")"
"$GHEE" check "$img" > "$TEST_TMP/ghee-check.log" 2>&1
rc=$?
grep '^ERROR' "$TEST_TMP/ghee-check.log" > "$TEST_TMP/ghee-errors1"
cmp -s "$TEST_TMP/ghee-errors0" "$TEST_TMP/ghee-errors1" ||
	fail "ghee check after the edit: $(cat "$TEST_TMP/ghee-check.log")"
[ $rc -eq 0 ] || [ -s "$TEST_TMP/ghee-errors0" ] ||
	fail "ghee check after the edit (exit $rc): $(cat "$TEST_TMP/ghee-check.log")"
[ -s "$TEST_TMP/ghee-errors0" ] &&
	echo "note: ghee check findings on the kernel's image, unchanged by the edit: $(wc -l < "$TEST_TMP/ghee-errors0")"

# ---- the kernel reads it back ----
mount "$loop" "$mnt" || fail "mount after the edit failed"
(cd "$mnt/src" && md5sum -c --quiet "$TEST_TMP/src.md5") || fail "source files changed"
(cd "$mnt/snap" && md5sum -c --quiet "$TEST_TMP/snap.md5") || fail "snapshot files changed"
for d in src:srcnew snap:snapnew; do
	n=$(ls "$mnt/${d%%:*}" | grep -c "^${d##*:}-")
	[ "$n" -eq 150 ] || fail "${d%%:*}: $n new files, expected 150"
	[ -f "$mnt/${d%%:*}/${d##*:}-149" ] || fail "${d%%:*}: new file not found"
done
getfattr -n user.cow "$mnt/src/file-300" >/dev/null 2>&1 && fail "src: the xattr is still there"
[ "$(getfattr --only-values -n user.cow "$mnt/snap/file-300" 2>/dev/null)" = shared ] ||
	fail "snap: the xattr is gone"
echo new > "$mnt/snap/snapnew-3" || fail "cannot write a new file"
umount "$mnt" || fail "umount after the edit failed"

btrfs check --readonly "$img" > "$TEST_TMP/check2.log" 2>&1 ||
	fail "btrfs check after the kernel: $(cat "$TEST_TMP/check2.log")"
echo "snapshot and source changed through shared blocks: clean"
exit 0
