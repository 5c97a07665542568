#!/bin/bash
# Mixed block groups (DUP), sha256, quota on: the kernel mounts it,
# takes the workload, btrfs check is clean before and after.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
img=$TEST_TMP/img
new_image "$img" 1G
ghee_mkfs -M -m dup -d dup --csum sha256 -O quota "$img"
check_image "$img"
mount_workload_check "$img"
btrfs check --readonly --qgroup-report "$img" > qg.out 2>&1 ||
	{ cat qg.out >&2; fail "qgroup report failed"; }
compare_dump_tree "$img"
exit 0
