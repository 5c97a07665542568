#!/bin/bash
# Four devices, RAID10 data, RAID1C4 metadata (raid1c34 feature): the
# kernel mounts it, takes the workload, btrfs check is clean before and
# after.  Then three devices with RAID1C3 data and RAID0 metadata.
#
# The devices are sized for the workload's full balance, which needs room
# for a new chunk of every profile on every device while the old ones are
# still allocated (with RAID1C3 each device holds all of the data).  At
# 2 GiB, after the workload each device held 1.3 GB of data chunks and had
# 0.72 GB unallocated, and the balance needs a new data chunk of up to
# 0.6 GB (10% of the filesystem) on every device at once, plus metadata:
# ENOSPC now and then, depending on how the kernel sized its chunks.  At
# 8 GiB (sparse files, no cost) 6.3 GB stay unallocated per device, for
# chunks of at most 1 GiB.
DEV_SIZE=8G
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
for i in 1 2 3 4; do new_image "$TEST_TMP/d$i" $DEV_SIZE; done
ghee_mkfs -d raid10 -m raid1c4 "$TEST_TMP"/d[1-4]
attach_devices "$TEST_TMP"/d[1-4]
check_image "$LOOP_FIRST"
mount_workload_check "$LOOP_FIRST"
compare_dump_tree "$LOOP_FIRST"
detach_devices

for i in 1 2 3; do new_image "$TEST_TMP/d$i" $DEV_SIZE; done
ghee_mkfs -d raid1c3 -m raid0 -n 4k "$TEST_TMP"/d[1-3]
attach_devices "$TEST_TMP"/d[1-3]
check_image "$LOOP_FIRST"
mount_workload_check "$LOOP_FIRST"
compare_dump_tree "$LOOP_FIRST"
exit 0
