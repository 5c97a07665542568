#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# INODE_REF_INVALID, on a kernel-written image: the inode ref of
# /d/inline made to name the inode itself as its directory (the dir entry
# then has no ref either: INODE_REF_MISSING): the bad ref goes and the ref
# comes back from the dir entry.  Then an inode extref of /links/t moved to
# a key offset that is not the hash of its directory and name (the name
# is right: the dir has it): the entry moves to where it belongs.  Then an
# inode ref with an empty name: it goes.  Last, a damaged name in an
# extref.  Each:
# the plan of --dry-run matches, the three checkers are clean, the kernel
# reads the file, and a second repair writes nothing.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs python3

read_back()
{
	local mnt=$TEST_TMP/mnt got

	need_loop
	need_kernel_btrfs
	mount_image "$IMG" "$mnt"
	got=$(cat "$mnt/$1") || { umount_image "$mnt"; fail "cannot read $1"; }
	umount_image "$mnt"
	[ "$got" = "$2" ] || fail "$1 holds '$got', expected '$2'"
}

# a ref naming the inode as its own directory
IMG=$(fs_base_image) || exit
index=$(fs_item_field 5 "$FS_INO_INLINE" 12 "$FS_INO_DIR" 0 8)
fs_edit set-key 5 "$FS_INO_INLINE" 12 "$FS_INO_DIR" "$FS_INO_INLINE" 12 "$FS_INO_INLINE"
expect_fs_codes "$IMG" INODE_REF_INVALID INODE_REF_MISSING
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
INODE_REF_INVALID | delete root 5 ($FS_INO_INLINE INODE_REF $FS_INO_INLINE) entry of index $index (the inode names itself as its directory)
INODE_REF_MISSING | insert root 5 ($FS_INO_INLINE INODE_REF $FS_INO_DIR) index $index name inline
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
expect_second_repair_noop "$IMG"
read_back d/inline hello

# an extref under a wrong key offset (not the first item of its leaf, and
# the offset + 1 still sorts before the next extref)
IMG=$(fs_base_image) || exit
read -r off < <(python3 - "$IMG" "$FS_INO_TARGET" <<'PY'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("e", os.path.join(os.environ["TOP"], "tests/fsck-tests/lib/btrfs-edit.py"))
e = importlib.util.module_from_spec(spec); spec.loader.exec_module(e)
img = e.Image(sys.argv[1]); ino = int(sys.argv[2])
ls = [(b, s, k) for b, s, k, o, z in img.walk_leaves(img.tree_root(5))]
for i, (b, s, k) in enumerate(ls[:-1]):
    n = ls[i + 1]
    if k[0] == ino and k[1] == 13 and s > 0 and n[0] == b and n[2][:2] == k[:2] and n[2][2] > k[2] + 1:
        print(k[2]); break
PY
)
[ -n "$off" ] || fail "no extref to move"
fs_edit set-key 5 "$FS_INO_TARGET" 13 "$off" "$FS_INO_TARGET" 13 $((off + 1))
expect_fs_codes "$IMG" INODE_REF_INVALID
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
grep -q "^INODE_REF_INVALID | delete root 5 ($FS_INO_TARGET INODE_EXTREF $((off + 1))) name hard-link-" "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "the misfiled extref is not deleted"; }
grep -q "^INODE_REF_INVALID | insert root 5 inode ref of $FS_INO_TARGET in $FS_INO_LINKS index [0-9]* name hard-link-" "$TEST_TMP/changes" ||
	{ cat "$TEST_TMP/changes" >&2; fail "the name is not filed again"; }
[ "$(wc -l < "$TEST_TMP/changes")" -eq 2 ] || { cat "$TEST_TMP/changes" >&2; fail "more than the move"; }
python3 "$EDIT" "$IMG" find 5 "$FS_INO_TARGET" 13 "$off" > /dev/null || fail "no extref at offset $off"
expect_second_repair_noop "$IMG"
read_back links/t target

# a second inode ref of /d/inline, in the top directory, with an empty name
IMG=$(fs_base_image) || exit
python3 "$TOP/tests/fsck-tests/lib/fs-items.py" "$IMG" add-ref 5 "$FS_INO_INLINE" 256 99 "" ||
	fail "cannot add the inode ref"
expect_fs_codes "$IMG" INODE_REF_INVALID INODE_NLINK
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
cat > "$TEST_TMP/want" <<WANT
INODE_NLINK | change nothing: right after the fixes before it
INODE_REF_INVALID | delete root 5 ($FS_INO_INLINE INODE_REF 256) entry of index 99 (empty name)
WANT
diff -u "$TEST_TMP/want" "$TEST_TMP/changes" >&2 || fail "not the expected changes"
expect_second_repair_noop "$IMG"
read_back d/inline hello

# a damaged name in an extref of /links/t (one letter's case): its key is
# then not its hash, and the dir item and dir index, which agree, outvote
# it: the ref is written again with their name (INODE_REF_MISSING's fix)
IMG=$(fs_base_image) || exit
read -r obj type off < <(python3 "$EDIT" "$IMG" first 5 13) || fail "no inode extref"
old=$(fs_item_field 5 "$obj" 13 "$off" 18 1)
fs_edit set-item 5 "$obj" 13 "$off" 18 1 $((old ^ 0x20))
expect_fs_codes "$IMG" INODE_REF_INVALID INODE_REF_UNMATCHED INODE_REF_MISSING
expect_plan_matches "$IMG"
expect_repaired "$IMG"
repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
grep -q "^INODE_REF_MISSING | delete root 5 ($obj INODE_EXTREF $off) name Hard-link-" "$TEST_TMP/changes" &&
	grep -q "^INODE_REF_MISSING | insert root 5 ($obj INODE_REF $FS_INO_LINKS) index [0-9]* name hard-link-" "$TEST_TMP/changes" &&
	grep -qx "INODE_REF_INVALID | change nothing: right after the fixes before it" "$TEST_TMP/changes" &&
	grep -qx "INODE_REF_UNMATCHED | change nothing: right after the fixes before it" "$TEST_TMP/changes" &&
	[ "$(wc -l < "$TEST_TMP/changes")" -eq 4 ] || { cat "$TEST_TMP/changes" >&2; fail "not the expected changes"; }
expect_second_repair_noop "$IMG"
read_back links/t target
