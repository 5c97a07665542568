#!/bin/bash
# ghee mkfs command line: help, version, feature listing, and every kind of
# malformed option is a usage error (exit 2) with a message naming it;
# nothing is written in those cases.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
img=$TEST_TMP/img
new_image "$img" 1G

run_check_cmd "$GHEE" mkfs --help > help.out
grep -q '^usage: ghee mkfs' help.out || fail "--help shows no usage line"
run_check_cmd "$GHEE" mkfs -V > version.out
grep -q 'ghee v' version.out || fail "-V prints no version"

run_check_cmd "$GHEE" mkfs -O list-all 2> list.out
for f in mixed-bg extref skinny-metadata no-holes raid1c34 quota \
	 free-space-tree block-group-tree; do
	grep -q "^$f " list.out || fail "-O list-all does not list $f"
done
run_check_cmd "$GHEE" mkfs -R list-all 2> rlist.out
grep -q '^quota ' rlist.out && grep -q '^free-space-tree ' rlist.out ||
	fail "-R list-all lacks quota or free-space-tree"

# expect_usage "MESSAGE PART" ARGS...: exit 2, message on stderr
expect_usage()
{
	local want=$1

	shift
	run_expect_status 2 "$GHEE" mkfs "$@" 2> err.out
	grep -qF -- "$want" err.out || {
		cat err.out >&2
		fail "no '$want' in the message for: $*"
	}
}

expect_usage "no device given"
expect_usage "ERROR: unknown option '--no-such-option'" --no-such-option "$img"
expect_usage "illegal nodesize 8000" -n 8000 "$img"
expect_usage "illegal nodesize 131072 (larger than 65536)" -n 128k "$img"
expect_usage "illegal nodesize 2048 (smaller than 4096)" -n 2k "$img"
expect_usage "not equal to 4096 for mixed block group" -M -n 16k "$img"
expect_usage "invalid sectorsize 2048" -s 2048 "$img"
expect_usage "unknown metadata profile foo" -m foo "$img"
expect_usage "unknown data profile bar" -d bar "$img"
expect_usage "have 1 devices but 2 devices are required" -m raid1 "$img"
expect_usage "have 1 devices but 3 devices are required" -d raid1c3 "$img"
expect_usage "have 1 devices but 2 devices are required" -d raid10 "$img"
expect_usage "RAID5/6" -d raid5 "$img" "$img"
expect_usage "RAID5/6" -m raid6 "$img" "$img" "$img"
expect_usage "must be the same" -M -d single -m dup "$img"
expect_usage "unrecognized filesystem feature 'foo'" -O foo "$img"
expect_usage "unrecognized runtime feature 'bar'" -R bar "$img"
expect_usage "not supported" -O raid56 "$img"
expect_usage "not supported" -O zoned "$img"
expect_usage "requires free-space-tree" -O block-group-tree,^free-space-tree "$img"
expect_usage "unknown csum type md5" --csum md5 "$img"
expect_usage "could not parse UUID: nope" -U nope "$img"
expect_usage "could not parse UUID: nope" --device-uuid nope "$img"
expect_usage "one device only" \
	--device-uuid 11111111-2222-3333-4444-555555555555 "$img" "$img"
expect_usage "is too long (max 255)" -L "$(printf 'x%.0s' $(seq 256))" "$img"
expect_usage "invalid size '1X'" -b 1X "$img"
expect_usage "unknown output format" --format yaml "$img"
expect_usage "--leafsize has been removed" -l 16k "$img"
expect_usage "--rootdir is limited to a single device" -r /tmp "$img" "$img.2"
expect_usage "need --rootdir" --shrink "$img"
expect_usage "invalid --root-owner" -r /tmp --root-owner 1 "$img"

# nothing above may have touched the image
[ "$(stat -c %b "$img")" = 0 ] || fail "a refused command wrote to the image"
exit 0
