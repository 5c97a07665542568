#!/bin/bash
# Two devices, RAID1 data and metadata, blake2, 64K nodes: the kernel
# mounts it, takes the workload (scrub verifies both copies), btrfs check
# is clean before and after.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
new_image "$TEST_TMP/d1" 2G
new_image "$TEST_TMP/d2" 2G
ghee_mkfs -d raid1 -m raid1 --csum blake2 -n 64k "$TEST_TMP/d1" "$TEST_TMP/d2"
attach_devices "$TEST_TMP/d1" "$TEST_TMP/d2"
check_image "$LOOP_FIRST"
mount_workload_check "$LOOP_FIRST"
compare_dump_tree "$LOOP_FIRST"
exit 0
