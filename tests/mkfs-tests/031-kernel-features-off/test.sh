#!/bin/bash
# Every optional feature off (no extref, no skinny metadata, holes, v1
# space cache instead of the free space tree), xxhash, 4K nodes, single
# metadata: the kernel mounts it read-write and takes the workload; btrfs
# check is clean before and after.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
img=$TEST_TMP/img
new_image "$img" 1G
ghee_mkfs --csum xxhash -n 4k -m single \
	-O ^extref,^skinny-metadata,^no-holes,^free-space-tree "$img"
check_image "$img"
mount_workload_check "$img"
compare_dump_tree "$img"
exit 0
