#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every kernel-written image (varied workloads: compression, reflinks,
# snapshots, quotas, balance, nodatasum, RAID1 on two devices) is clean
# with --check-data-csum: every data sector read and verified.
#
# Two images are fresh mkfs.btrfs 6.2 output with a free space tree: that
# version leaves the free space entries of its two temporary chunks (at 1
# and 5 MiB) behind, the very damage corpus case 071 expects a checker to
# report.  On those, exactly these two orphan entries must be found.

source "$TOP/tests/common.sh"

bash "$TOP/tests/images/make-images.sh" "$CACHE" >&2
rc=$?
[ $rc -eq 77 ] && skip "cannot build kernel images here"
[ $rc -eq 0 ] || fail "make-images.sh failed"
failed=0
for name in $(bash "$TOP/tests/images/list.sh" "$CACHE"); do
	devs=("$CACHE/images/$name.img")
	[ -f "$CACHE/images/$name.devices" ] &&
		mapfile -t devs < <(sed "s|^|$CACHE/images/|" "$CACHE/images/$name.devices")
	"$GHEE" check -q --check-data-csum "${devs[@]}" > "$TEST_TMP/out" 2>&1
	rc=$?
	if [ "$name" = mkfs-empty ] || [ "$name" = mkfs-rootdir ]; then
		found=$(grep -c '^ERROR' "$TEST_TMP/out")
		if [ $rc -ne $CHECK_ERRORS ] || [ "$found" -ne 2 ] ||
		   ! grep -q 'FREE_SPACE_ORPHAN.*(1048576 FREE_SPACE_INFO 4194304)' "$TEST_TMP/out" ||
		   ! grep -q 'FREE_SPACE_ORPHAN.*(5242880 FREE_SPACE_INFO 8388608)' "$TEST_TMP/out"; then
			echo "WRONG: $name should show only the two stale mkfs.btrfs entries"
			head -n 10 "$TEST_TMP/out"
			failed=$((failed + 1))
		fi
		continue
	fi
	if [ $rc -ne 0 ]; then
		echo "NOT CLEAN: $name"
		head -n 10 "$TEST_TMP/out"
		failed=$((failed + 1))
	fi
done
[ $failed -eq 0 ] || fail "$failed kernel images not clean with --check-data-csum"
