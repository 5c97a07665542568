#!/bin/bash
# The summary: for the same options and the same image, ghee mkfs prints
# what mkfs.btrfs 6.2 prints (label, UUID, sizes, block group profiles and
# sizes, features, checksum, devices) apart from the first line naming the
# program; --format json holds the same facts; -q prints nothing.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"

need_ghee
need_progs_version
UUID=0d4c2b1a-7e6f-4a5b-9c8d-1e2f3a4b5c6d

# same_summary SIZES OPTIONS... -- compare summaries on images of SIZES
# (comma separated, one device each)
same_summary()
{
	local sizes=$1 i=0 s imgs=()

	shift
	for s in ${sizes//,/ }; do
		i=$((i + 1))
		new_image "d$i" "$s"
		imgs+=("d$i")
	done
	mkfs.btrfs -f -U "$UUID" "$@" "${imgs[@]}" > progs.out 2>/dev/null ||
		fail "mkfs.btrfs $* failed"
	"$GHEE" mkfs -f -U "$UUID" "$@" "${imgs[@]}" > ghee.out 2> ghee.err ||
		{ cat ghee.err >&2; fail "ghee mkfs $* failed"; }
	tail -n +2 progs.out | sed 's|^See http://btrfs.wiki.kernel.org for more information.$|SEE|' > progs.cmp
	tail -n +2 ghee.out | sed 's|^See ghee-mkfs(8) for more information.$|SEE|' > ghee.cmp
	head -n1 ghee.out | grep -q '^ghee v' || fail "the first line does not name ghee"
	compare_outputs progs.cmp ghee.cmp || fail "summary differs for $sizes $*"
}

same_summary 1G
same_summary 500M -L "a label"
same_summary 2G -d dup --csum xxhash
same_summary 1G -m single -n 4k --csum sha256
same_summary 1G -M
same_summary 2G -M -m dup -d dup --csum blake2
same_summary 5G -R quota
same_summary 60G -O ^no-holes,^extref
same_summary 200G -R ^free-space-tree
same_summary 2G,2G
same_summary 2G,2G -d raid0
same_summary 2G,2G,2G -d raid1c3 -m raid1c3
same_summary 2G,2G,2G,2G -d raid10 -m raid1c4 -L four
same_summary 1G,3G,5G -d raid1 -m raid10
same_summary 1T,1T -d raid1 -m raid1 -n 64k

# -q: nothing on stdout
new_image d1 1G
"$GHEE" mkfs -q -f d1 > q.out 2>&1 || fail "ghee mkfs -q failed"
[ -s q.out ] && { cat q.out >&2; fail "-q printed something"; }

# JSON: one object with the same facts
new_image d1 1G
new_image d2 1G
"$GHEE" mkfs -f --format json -U "$UUID" -L js -d raid1 d1 d2 > j.out ||
	fail "ghee mkfs --format json failed"
python3 - j.out "$UUID" <<'PY' || fail "the JSON summary is wrong"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["uuid"] == sys.argv[2], j["uuid"]
assert j["label"] == "js"
assert j["nodesize"] == 16384 and j["sectorsize"] == 4096
assert j["size"] == 2 << 30
assert j["num_devices"] == 2 and len(j["devices"]) == 2
assert [d["devid"] for d in j["devices"]] == [1, 2]
assert j["checksum"] == "crc32c"
assert j["features"] == ["extref", "skinny-metadata", "no-holes", "free-space-tree"]
bg = {b["type"]: b for b in j["block_groups"]}
assert bg["data"]["profile"] == "raid1" and bg["metadata"]["profile"] == "raid1"
assert bg["system"]["profile"] == "raid1"
assert all(b["size"] > 0 for b in j["block_groups"])
assert j["incompat_flags"] == 0x341 and j["compat_ro_flags"] == 3
PY

# --device-uuid lands in the device item, and the JSON names it
DEVUUID=9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a
"$GHEE" mkfs -f --format json --device-uuid "$DEVUUID" d1 > j.out ||
	fail "ghee mkfs --device-uuid failed"
grep -q "\"uuid\": \"$DEVUUID\"" j.out || fail "the JSON lacks the device uuid"
btrfs inspect-internal dump-super d1 | grep -q "^dev_item.uuid[[:space:]]*$DEVUUID\$" ||
	fail "the device item does not carry --device-uuid"
exit 0
