#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkfs.btrfs before 6.16 (6.2 here) leaves free space tree entries of its
# temporary chunks below the first block group; the kernel ignores them
# and btrfs check 6.19 reports them (6.2 does not look).  ghee reports each,
# saying what it is and how to remove it; mkfs.btrfs 6.19 leaves none.
# (A plain orphan entry is damage: fsck-tests/027.)

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/verdict-lib.sh"
need_verdict_tools

img=$TEST_TMP/fs.img
truncate -s 300M "$img"
mkfs.btrfs -q -f "$img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
mount_image "$img" "$TEST_TMP/mnt"
echo data > "$TEST_TMP/mnt/file"
umount_image "$TEST_TMP/mnt" || fail "umount failed"
why="left by mkfs.btrfs before 6.16 for its temporary chunks, harmless to the kernel; remove with ghee check --repair"
cat > "$TEST_TMP/expected" <<EOT
ERROR: [FREE_SPACE_ORPHAN] free space tree: (1048576 FREE_SPACE_INFO 4194304) does not belong to any block group; $why
ERROR: [FREE_SPACE_ORPHAN] free space tree: (5242880 FREE_SPACE_INFO 8388608) does not belong to any block group; $why
EOT
expect_ghee $CHECK_ERRORS "$TEST_TMP/expected" "$img"
expect_progs clean errors "$img"
echo "ok mkfs.btrfs 6.2 leftovers explained"

"${PROGS619%/btrfs}/mkfs.btrfs" -q -f "$img" > /dev/null 2>&1 || fail "mkfs.btrfs 6.19 failed"
: > "$TEST_TMP/none"
expect_ghee $CHECK_CLEAN "$TEST_TMP/none" "$img"
expect_progs clean clean "$img"
echo "ok mkfs.btrfs 6.19: none"

