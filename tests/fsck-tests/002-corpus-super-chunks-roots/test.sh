#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Corpus images whose damage lies in what phases 1, 2, 4, 8 and 9 check
# (superblock, devices and device extents, root items, checksums, quota
# groups, the log tree): each must be reported with the named code.

source "$TOP/tests/common.sh"
need_corpus

# image  finding code that must be among the findings
cases="
028-unaligned-super-dev-sizes__dev_and_super_mismatch_unaligned SUPER_TOTAL_BYTES
036-bad-dev-extents__over_dev_boundary DEV_EXTENT_BEYOND_DEVICE
047-dev-bytes-used__default_case DEV_BYTES_USED
068-orphan-dev-extent__default DEV_EXTENT_NO_CHUNK
066-missing-root-orphan-item__default ROOT_ITEM_INVALID
032-corrupted-qgroup__qgroup_corrupted QGROUP_COUNTS
063-log-missing-csum__default LOG_TREE_INVALID
"

failed=0
while read -r name code; do
	[ -n "$name" ] || continue
	img=$(corpus_image "$name") || fail "cannot restore $name"
	"$GHEE" check -q --no-progress "$img" > "$TEST_TMP/out" 2>&1
	rc=$?
	if [ $rc -ne $CHECK_ERRORS ] || ! grep -q "^ERROR: \[$code\]" "$TEST_TMP/out"; then
		echo "WRONG: $name: exit $rc, want 1 with $code"
		head -n 5 "$TEST_TMP/out"
		failed=$((failed + 1))
	fi
done <<< "$cases"
[ $failed -eq 0 ] || fail "$failed images without their finding"
