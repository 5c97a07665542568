#!/bin/bash
# The default filesystem (DUP metadata, single data, crc32c, 16K nodes) on
# one 2 GiB image: clean for btrfs check, mounted read-write by the kernel,
# takes the workload (files, 100 MB fsynced, deletes, subvolume, snapshots,
# scrub, full balance), clean again after unmount; ghee's dump-tree equals
# btrfs-progs' before and after.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
img=$TEST_TMP/img
new_image "$img" 2G
ghee_mkfs -L ghee-default "$img"
check_image "$img"
compare_dump_tree "$img"
mount_workload_check "$img"
compare_dump_tree "$img"
exit 0
