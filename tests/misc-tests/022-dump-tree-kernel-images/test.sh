#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee dump-tree against btrfs-progs 6.2 on the kernel-written images of
# tests/images (compression, reflinks, snapshots, quotas, balance, raid1,
# every checksum...): identical text in every dump mode, JSON with the
# same blocks and items.  Multi-device images are given all their devices,
# then only the first one.
source "$TOP/tests/common.sh"
source "$TOP/tests/misc-tests/020-dump-tree-mkfs-matrix/dump-tree-lib.sh"

need_progs_version
need_progs python3

"$TOP/tests/images/make-images.sh" "$CACHE" > "$TEST_TMP/make-images.log" 2>&1
rc=$?
[ $rc -eq 77 ] && skip "cannot build the kernel images: $(tail -n1 "$TEST_TMP/make-images.log")"
[ $rc -eq 0 ] || { cat "$TEST_TMP/make-images.log" >&2; fail "make-images.sh failed"; }

mapfile -t names < <("$TOP/tests/images/list.sh" "$CACHE")
[ ${#names[@]} -gt 0 ] || skip "no kernel images were built"
# one image; a worker of dt_parallel
one_image()
{
	local name=$1 devs

	if [ -f "$CACHE/images/$name.devices" ]; then
		mapfile -t devs < "$CACHE/images/$name.devices"
		devs=("${devs[@]/#/$CACHE/images/}")
		[ -e "${devs[0]}" ] || mapfile -t devs < "$CACHE/images/$name.devices"
		dt_all_modes "$name" "${devs[@]}"
		dt_compare "$name-first-device" "" "${devs[0]}"
	else
		dt_all_modes "$name" "$CACHE/images/$name.img"
	fi
}

dt_parallel one_image "${names[@]}"
echo "${#names[@]} images"
dt_summary "kernel images"
exit 0
