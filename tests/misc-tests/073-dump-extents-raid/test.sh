#!/bin/bash
# ghee dump-extents on multi-device kernel-written filesystems with striped
# profiles (data RAID0, RAID10, RAID5, RAID6): owners and paths match the
# kernel's (logical-resolve -P, inode-resolve), every copy --logical names
# holds the file's bytes on its device file and maps back with
# --physical, and a sweep of --physical over the first rows of each
# striped chunk finds every data stripe once per copy and every parity
# stripe once.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3 chattr

mnt=$TEST_TMP/mnt
mkdir -p "$mnt"
run_profile()
{
	local prof=$1 nd=$2 devs=() loops=() i opts=""

	for i in $(seq 1 "$nd"); do
		devs+=("$TEST_TMP/dev$i")
		rm -f "$TEST_TMP/dev$i"
		truncate -s 512M "$TEST_TMP/dev$i"
	done
	mkfs.btrfs -q -f -d "$prof" -m raid1 "${devs[@]}" >/dev/null 2>&1 ||
		fail "mkfs.btrfs -d $prof failed"
	for i in "${!devs[@]}"; do
		loops+=("$(losetup --find --show "${devs[i]}")") || fail "losetup failed"
		at_exit "detach_file '${devs[i]}'"
	done
	for i in "${loops[@]}"; do opts+=",device=$i"; done
	mount_loops "$mnt" "noatime$opts" "${loops[@]}" || fail "mount ($prof) failed"
	at_exit "umount $mnt 2>/dev/null"
	bash "$TOP/tests/misc-tests/070-dump-extents-resolve/make-fs.sh" "$mnt" 60 ||
		fail "populating ($prof) failed"
	umount "$mnt" || fail "umount failed"
	btrfs check --readonly "${loops[0]}" > "$TEST_TMP/check.log" 2>&1 ||
		fail "$prof image not clean: $(tail -5 "$TEST_TMP/check.log")"
	local list
	list=$(IFS=,; echo "${devs[*]}")
	python3 "$TOP/tests/misc-tests/070-dump-extents-resolve/resolve.py" ghee "$GHEE" \
		"$list" "$TEST_TMP/state.json" 60 || fail "ghee side ($prof) failed"
	btrfs inspect-internal dump-tree -t chunk "${devs[0]}" > "$TEST_TMP/chunks.txt" ||
		fail "progs dump-tree failed"
	python3 "$TEST_DIR/sweep.py" "$GHEE" "$list" "$TEST_TMP/chunks.txt" 2 ||
		fail "physical sweep ($prof) failed"
	mount_loops "$mnt" "ro,noatime$opts" "${loops[@]}" || fail "mount ($prof) failed"
	python3 "$TOP/tests/misc-tests/070-dump-extents-resolve/resolve.py" kernel \
		"$list" "$mnt" "$TEST_TMP/state.json" || fail "ghee and the kernel disagree ($prof)"
	umount "$mnt" || fail "umount failed"
	for i in "${loops[@]}"; do losetup -d "$i"; done
}

run_profile raid0 2
run_profile raid10 4
run_profile raid5 3
run_profile raid6 4
echo "striped profiles ok"
