#!/bin/bash
# Two to four device images with raid0, raid1, raid1c3, raid1c4, raid10
# (and the defaults: RAID1 metadata, single data): btrfs check is clean on
# the loop devices, ghee's dump-tree equals btrfs-progs', and the summary
# lists every device with the profiles asked for.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
need_loop
nr=0

# multi NDEVS SIZE OPTIONS...
multi()
{
	local n=$1 size=$2 i imgs=()

	shift 2
	for ((i = 1; i <= n; i++)); do
		new_image "$TEST_TMP/d$i" "$size"
		imgs+=("$TEST_TMP/d$i")
	done
	"$GHEE" mkfs -f "$@" "${imgs[@]}" > summary.out 2> err.out ||
		{ cat err.out >&2; fail "ghee mkfs $* on $n devices failed"; }
	grep -q "^Number of devices:  $n\$" summary.out ||
		fail "summary does not count $n devices"
	attach_devices "${imgs[@]}"
	check_image "$LOOP_FIRST"
	compare_dump_tree "$LOOP_FIRST"
	detach_devices
	nr=$((nr + 1))
}

multi 2 2G
grep -q '^  Metadata:         RAID1 ' summary.out || fail "default metadata is not RAID1"
grep -q '^  Data:             single ' summary.out || fail "default data is not single"
multi 2 2G -d raid0
multi 2 2G -d raid1 -m raid1
multi 2 2G -d raid10 -m raid10
multi 2 1G -M -d raid1 -m raid1
multi 3 2G -d raid1c3 -m raid1c3
grep -q '^  Data:             RAID1C3 ' summary.out || fail "no RAID1C3 data"
multi 3 2G -d raid0 -m raid1 --csum xxhash
multi 3 2G -d raid10 -m raid1c3
multi 3 2G -d raid1 -m raid0 -n 4k
multi 4 2G -d raid10 -m raid1c4
grep -q '^  Metadata:         RAID1C4 ' summary.out || fail "no RAID1C4 metadata"
multi 4 2G -d raid1c4 -m raid10 --csum sha256 -n 64k
multi 4 2G -d raid0 -m raid0
multi 4 1G -d raid1c3 -m raid1c4 -O ^no-holes,^extref
# devices of different sizes
new_image "$TEST_TMP/d1" 1G
new_image "$TEST_TMP/d2" 3G
new_image "$TEST_TMP/d3" 5G
ghee_mkfs -d raid1 -m raid1c3 "$TEST_TMP/d1" "$TEST_TMP/d2" "$TEST_TMP/d3"
attach_devices "$TEST_TMP/d1" "$TEST_TMP/d2" "$TEST_TMP/d3"
check_image "$LOOP_FIRST"
compare_dump_tree "$LOOP_FIRST"
detach_devices
echo "$((nr + 1)) multi-device filesystems made and checked"
exit 0
