#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Crash safety of the repair: a build with --enable-fault-injection fails
# the Nth device write (GHEE_FAIL_WRITE_AT=N) or flush (GHEE_FAIL_FLUSH_AT=N)
# of a repair, for every N until the repair runs through.  Afterwards the
# image is the old filesystem (the same findings, the same primary
# superblock byte for byte) or the repaired one (clean) -- never anything
# in between, also when the repair takes several phases: their commits
# write no superblock, the last superblocks are written once at the end --
# and the undo file the failed repair kept puts back the original bytes.
# Cases: the orphan free space entries of a fresh mkfs.btrfs image, a
# corpus image with an orphan dev extent and orphan free space entries
# (two phases, two transactions), and with GHEE_LONG=1 a link count too.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs make gcc python3 mkfs.btrfs

fault_injection_build

orphans=$TEST_TMP/orphans.img
truncate -s 128M "$orphans"
mkfs.btrfs -q -f "$orphans" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
fault_runs "$orphans" GHEE_FAIL_WRITE_AT
fault_runs "$orphans" GHEE_FAIL_FLUSH_AT

# a filesystem tree fix (GHEE_LONG=1: the suite keeps to the two cases)
if [ -n "${GHEE_LONG:-}" ]; then
	IMG=$(fs_base_image) || exit
	fs_edit set-item 5 "$FS_INO_TWO" 1 0 40 4 2
	cp --sparse=always "$IMG" "$TEST_TMP/nlink.img"
	fault_runs "$TEST_TMP/nlink.img" GHEE_FAIL_WRITE_AT
	fault_runs "$TEST_TMP/nlink.img" GHEE_FAIL_FLUSH_AT
fi

need_corpus
cp --sparse=always "$(corpus_image 068-orphan-dev-extent__default)" "$TEST_TMP/devext.img" || exit
fault_runs "$TEST_TMP/devext.img" GHEE_FAIL_WRITE_AT 2
fault_runs "$TEST_TMP/devext.img" GHEE_FAIL_FLUSH_AT 2
