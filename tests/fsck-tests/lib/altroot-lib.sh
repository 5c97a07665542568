# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the repairs from another superblock copy or root (fsck-tests
# 160-162).  Source after tests/common.sh, extents-lib.sh and repair-lib.sh:
#
#   super_field IMG FIELD    a field of ghee dump-super (the primary copy)
#   backup_slot IMG GEN      "TREE_ROOT CHUNK_ROOT" of the backup slot whose
#                            tree root has generation GEN (empty: none)
#   expect_unchanged IMG REF IMG holds the bytes of REF
#   expect_source_repaired IMG OPTS...
#                            ghee check --repair -y OPTS: exit CHECK_CORRECTED,
#                            every superblock copy rewritten (the report says
#                            so), nothing remains, all three checkers clean
#   expect_kernel_takes IMG  the kernel mounts it read-write, every file reads
#                            back (data checksums verified), a new file is
#                            written; clean afterwards; then a second --repair
#                            writes nothing

super_field()
{
	"$GHEE" dump-super "$1" 2>/dev/null | awk -v f="$2" '$1 == f { print $2; exit }'
}

backup_slot()
{
	"$GHEE" dump-super -f "$1" 2>/dev/null | awk -v g="$2" '
		$1 == "backup_tree_root:" { tree = $2; gen = $4 }
		$1 == "backup_chunk_root:" && gen == g { print tree, $2; exit }'
}

expect_unchanged()
{
	cmp -s "$1" "$2" || fail "$3: the image changed"
}

expect_source_repaired()
{
	local img=$1

	shift
	repair "$img" -y "$@"
	[ "$REPAIR_RC" -eq "$CHECK_CORRECTED" ] ||
		{ cat "$TEST_TMP/repair.json" "$TEST_TMP/repair.err" >&2; fail "repair $*: expected status $CHECK_CORRECTED, got $REPAIR_RC"; }
	python3 - "$TEST_TMP/repair.json" <<'PY' || { cat "$TEST_TMP/repair.json" >&2; fail "repair $*: the report"; }
import json, sys
doc = json.load(open(sys.argv[1]))
src = doc.get("source", {})
sys.exit(1 if doc["remaining"] or not src.get("superblocks_rewritten") else 0)
PY
	expect_all_clean "$img"
}

expect_kernel_takes()
{
	local img=$1 mnt=$TEST_TMP/mnt

	if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems; then
		mount_image "$img" "$mnt"
		find "$mnt" -xdev -type f -exec cat {} + > /dev/null ||
			{ umount_image "$mnt"; fail "files do not read back after the repair"; }
		[ "$(cat "$mnt/d/f1")" = "small file 1" ] ||
			{ umount_image "$mnt"; fail "d/f1 does not read back"; }
		head -c 200000 /dev/urandom > "$mnt/d/after-repair" ||
			{ umount_image "$mnt"; fail "the kernel cannot write to the repaired filesystem"; }
		umount_image "$mnt"
		"$GHEE" check "$img" > "$TEST_TMP/after-mount.out" 2>&1 ||
			{ cat "$TEST_TMP/after-mount.out" >&2; fail "not clean after the kernel wrote to it"; }
	fi
	expect_second_repair_noop "$img"
}
