#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee check --repair over the corpus images whose expectation is
# `repairable` (and, with GHEE_LONG=1, the `corrupt` ones too).  For every
# image: no crash or hang, the number of findings never grows; the images
# listed in REPAIRED below must come out clean for ghee check, btrfs check
# 6.2 and btrfs check 6.19, and the kernel mounts them read-write, reads
# every file back, runs a workload and leaves them clean.  By default only those are run (a few seconds
# each, one per kind of action: QUICK); GHEE_LONG=1 runs every image and
# prints how many end clean.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_corpus
need_progs python3 xz

# images the repair makes clean today (all three checkers agree)
REPAIRED="004-no-dir-index__default_case
038-missing-one-file-extent__default_case
014-no-extent-info__no_extent
014-no-extent-info__no_extent_bad_dev
011-no-inode-item__default_case
016-wrong-inode-nbytes__default_case
017-missing-all-file-extent__default_case
028-unaligned-super-dev-sizes__dev_and_super_mismatch_unaligned
039-bad-inode-mode__bad_free_space_cache_imode
043-bad-inode-generation__bad_inode_geneartion
043-bad-inode-generation__bad_inode_transid
044-invalid-extent-item-generation__bad_extent_item_gen_for_data
044-invalid-extent-item-generation__bad_extent_item_gen_for_tree_block
047-dev-bytes-used__default_case
051-invalid-super-bytes-used__default
058-bad-free-space-tree-entry__corrupt-free-space-tree
058-bad-free-space-tree-entry__corrupt-free-space-tree2
064-deprecated-inode-cache__4k_nodesize
066-missing-root-orphan-item__default
068-orphan-dev-extent__default
071-orphan-fst-entry__orphan_fst_entries
032-corrupted-qgroup__qgroup_corrupted
034-bad-inode-flags__default_case
063-log-missing-csum__default
001-bad-file-extent-bytenr__default_case
006-bad-root-items__default_case
006-bad-root-items__skinny_case
027-bad-extent-inline-ref-type__bad-extent-inline-ref-type
061-out-of-order-inline-backref__btrfs_image
053-bad-metadata-level__default
002-bad-transid__default_case
003-shift-offsets__default_case
041-invalid-root-generation__default_case
069-unknown-fs-tree-key__unknown_key_empty
008-bad-dir-index-name__default_case
026-bad-dir-item-name__default_case
067-dupe-filename__default
039-bad-inode-mode__bad_imodes_in_subvolume_tree
049-dir-hard-link__default
012-leaf-corruption__good-leafcorrupt
007-bad-offset-snapshots__default_case"

# kernel_workload IMG NAME: the kernel mounts the repaired image read-write,
# every file reads back (when its data checksums verify: btrfs-image
# restores carry no data), a workload runs, and it is clean afterwards
kernel_workload()
{
	local img=$1 name=$2 mnt=$TEST_TMP/mnt readback=yes

	[ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && grep -qw btrfs /proc/filesystems || return 0
	"$GHEE" check --check-data-csum "$img" > /dev/null 2>&1 || readback=no
	mount_image "$img" "$mnt"
	if [ $readback = yes ]; then
		find "$mnt" -xdev -type f -exec cat {} + > /dev/null ||
			{ umount_image "$mnt"; fail "$name: files do not read back after the repair"; }
	fi
	mkdir -p "$mnt/ghee-workload" && head -c 300000 /dev/urandom > "$mnt/ghee-workload/f" &&
		cp -r "$mnt/ghee-workload" "$mnt/ghee-workload2" && rm -rf "$mnt/ghee-workload" ||
		{ umount_image "$mnt"; fail "$name: the workload failed on the repaired filesystem"; }
	umount_image "$mnt"
	"$GHEE" check "$img" > "$TEST_TMP/after-mount.out" 2>&1 ||
		{ cat "$TEST_TMP/after-mount.out" >&2; fail "$name: not clean after the kernel wrote to it"; }
	echo "$name: kernel mount, read back: $readback, workload: ok" >&2
}

if [ -n "${GHEE_LONG:-}" ]; then
	names=$(corpus_names repairable; corpus_names corrupt)
else
	names="004-no-dir-index__default_case
038-missing-one-file-extent__default_case
014-no-extent-info__no_extent
064-deprecated-inode-cache__4k_nodesize
011-no-inode-item__default_case
017-missing-all-file-extent__default_case
028-unaligned-super-dev-sizes__dev_and_super_mismatch_unaligned
044-invalid-extent-item-generation__bad_extent_item_gen_for_tree_block
047-dev-bytes-used__default_case
058-bad-free-space-tree-entry__corrupt-free-space-tree
066-missing-root-orphan-item__default
068-orphan-dev-extent__default
032-corrupted-qgroup__qgroup_corrupted
063-log-missing-csum__default
001-bad-file-extent-bytenr__default_case
027-bad-extent-inline-ref-type__bad-extent-inline-ref-type
002-bad-transid__default_case
008-bad-dir-index-name__default_case
026-bad-dir-item-name__default_case
067-dupe-filename__default
012-leaf-corruption__good-leafcorrupt
007-bad-offset-snapshots__default_case"
fi
total=0 clean=0 clean_all=0
for name in $names; do
	img=$(corpus_copy "$name" "$TEST_TMP/c.img") || exit
	expect=$(corpus_field "$name" expectation)
	before=$(count_findings "$img" "$TEST_TMP/codes.before")
	timeout 120 "$GHEE" check --repair -q "$img" > "$TEST_TMP/r.out" 2>&1
	rc=$?
	_status_is_crash $rc && { tail -n 20 "$TEST_TMP/r.out" >&2; fail "$name: repair crashed or hung (status $rc)"; }
	after=$(count_findings "$img" "$TEST_TMP/codes.after")
	new=$(new_structural "$TEST_TMP/codes.before" "$TEST_TMP/codes.after")
	[ -n "$new" ] && fail "$name: the repair introduced $new"
	grown=$(comm -13 "$TEST_TMP/codes.before" "$TEST_TMP/codes.after" | tr '\n' ' ')
	[ -n "$grown" ] && echo "$name: codes revealed by the repair: $grown" >&2
	[ "$before" -ge 0 ] && [ "$after" -gt "$before" ] &&
		fail "$name: $before findings before the repair, $after after"
	total=$((total + 1))
	ok619=no ok62=no
	if [ "$after" -eq 0 ]; then
		clean=$((clean + 1))
		btrfs check --readonly "$img" > /dev/null 2>&1 && ok62=yes
		[ -n "$PROGS619" ] && "$PROGS619" check --readonly "$img" 2>&1 | grep -q "no error found" && ok619=yes
		[ $ok62 = yes ] && { [ -z "$PROGS619" ] || [ $ok619 = yes ]; } && clean_all=$((clean_all + 1))
	fi
	echo "$name ($expect): findings $before -> $after, status $rc, btrfs 6.2 clean: $ok62, 6.19 clean: $ok619" >&2
	if echo "$REPAIRED" | grep -qx "$name"; then
		[ "$after" -eq 0 ] || { cat "$TEST_TMP/r.out" >&2; fail "$name: not clean after the repair"; }
		[ $((rc & CHECK_CORRECTED)) -ne 0 ] || fail "$name: status $rc without the corrected bit"
		expect_all_clean "$img"
		kernel_workload "$img" "$name"
	fi
	rm -f "$img"
done
echo "repair: $clean of $total images clean for ghee check, $clean_all clean for all three checkers" >&2
