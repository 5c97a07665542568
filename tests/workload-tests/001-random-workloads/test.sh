#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Randomized kernel-written filesystems (tests/workload/make-workload-fs.sh:
# random mkfs options and profiles on 1-3 devices, compression, nodatacow,
# small max_inline, stress-ng and fio bounded in time, reflinks,
# snapshots and their deletion, quotas with limits, balance, device
# add/remove, seed+sprout, metadata_uuid, a log tree left by fsync): ghee
# check's verdict must equal btrfs check 6.19's on each, with and without
# --check-data-csum.  Disagreements listed in
# tests/workload/known-disagreements.sh (false alarms of 6.19, each with
# its evidence) are reported but tolerated; any other fails the test.
#
# The suite runs a few fixed seeds chosen for what their recipes cover
# (GHEE_WORKLOAD_SEED_LIST overrides them; GHEE_WORKLOAD_SEEDS=N runs N
# seeds from GHEE_WORKLOAD_FIRST_SEED, default 1, instead):
#   5027  raid1 on 2 devices, nodatacow, snapshot, quota, log tree
#   5033  raid6 on 3 devices, quota, device add and replace, snapshot
#   5043  space_cache=v1, quota then snapshot, log tree
#   5049  raid5 data, nodatacow, quota, metadata_uuid
#   5011  a seed device with a sprout
# The long version is tests/workload/run-long.sh.

source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs btrfstune stress-ng fio
[ -x "$TOP/../shared/tools/btrfs-progs-6.19/btrfs" ] ||
	skip "btrfs-progs 6.19 not found in $TOP/../shared/tools"

if [ -n "${GHEE_WORKLOAD_SEEDS:-}" ]; then
	first=${GHEE_WORKLOAD_FIRST_SEED:-1}
	seeds=$(seq "$first" $((first + GHEE_WORKLOAD_SEEDS - 1)))
else
	seeds=${GHEE_WORKLOAD_SEED_LIST:-5027 5033 5043 5049 5011}
fi
# shellcheck disable=SC2086 # one word per seed
"$TOP/tests/workload/run-seeds.sh" "$TEST_TMP/results" $seeds
rc=$?
[ $rc -eq 77 ] && skip "the workload generator cannot run here"
if [ -s "$TEST_TMP/results/disagreements.txt" ]; then
	echo "disagreements (known ones tolerated):"
	cat "$TEST_TMP/results/disagreements.txt"
fi
grep -q -P '\tnot-built\t' "$TEST_TMP/results/summary.tsv" &&
	echo "warning: some seeds could not be built (see above)"
[ $rc -eq 0 ] || fail "ghee check and btrfs check 6.19 disagree (see above)"
