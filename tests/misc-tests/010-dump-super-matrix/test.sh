#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee dump-super against btrfs-progs 6.2 "btrfs inspect-internal
# dump-super" on a matrix of filesystems made by mkfs.btrfs and btrfstune
# (every csum type, node sizes, mixed block groups, raid1 on two devices,
# metadata_uuid, seeding, a label, a 300 GiB image whose 256 GiB copy
# exists, a device too small for the 64 MiB copy) and on crafted
# superblocks (hostile sys_chunk_array, unknown csum type, every flag bit,
# bad magic in a mirror, extent-tree-v2 and block-group-tree bits).
#
# For each image and each argument set, stdout, stderr and the exit status
# must be identical (progs prints no version line for dump-super, so
# nothing is stripped).  Then --format json must be valid and agree with
# the text output.
source "$TOP/tests/common.sh"

need_progs_version
need_progs mkfs.btrfs btrfstune python3 truncate

CRAFT="python3 $TEST_DIR/craft-super.py"
IMG=$TEST_TMP/img
mkdir -p "$IMG" || fail "cannot create $IMG"

IMAGES=()

# mkimg NAME SIZE MKFS-ARGS...: a fresh sparse image made by mkfs.btrfs
mkimg()
{
	local name=$1 size=$2

	shift 2
	rm -f "$IMG/$name"
	truncate -s "$size" "$IMG/$name" || fail "truncate $name"
	mkfs.btrfs -q -f -K "$@" "$IMG/$name" >"$TEST_TMP/mkfs.log" 2>&1 ||
		{ cat "$TEST_TMP/mkfs.log" >&2; return 1; }
	IMAGES+=("$IMG/$name")
}

# derive NEW FROM: a sparse copy to tweak
derive()
{
	cp --sparse=always "$IMG/$2" "$IMG/$1" || fail "copy $2"
	IMAGES+=("$IMG/$1")
}

# compare ARGS...: progs and ghee agree on stdout, stderr and status
compare()
{
	local prc grc ok=1

	btrfs inspect-internal dump-super "$@" >"$TEST_TMP/p.out" 2>"$TEST_TMP/p.err"
	prc=$?
	"$GHEE" dump-super "$@" >"$TEST_TMP/g.out" 2>"$TEST_TMP/g.err"
	grc=$?
	_status_is_crash $grc && fail "ghee crashed (status $grc): dump-super $*"
	if ! compare_outputs "$TEST_TMP/p.out" "$TEST_TMP/g.out"; then
		ok=0
	fi
	if ! compare_outputs "$TEST_TMP/p.err" "$TEST_TMP/g.err"; then
		ok=0
	fi
	if [ "$prc" != "$grc" ]; then
		echo "exit status: progs $prc, ghee $grc" >&2
		ok=0
	fi
	if [ $ok = 1 ]; then
		echo "SAME: dump-super $*"
	else
		echo "DIFFERS: dump-super $*"
	fi
}

# every argument set on one image, in a run_parallel job
one_image()
{
	local args

	for args in "${ARGSETS[@]}"; do
		# shellcheck disable=SC2086 # word splitting of the options wanted
		compare $args "$1"
	done
}

ARGSETS=("" "-f" "-a" "-s 1" "--bytenr 67108864" "-a -f" "-s 2")

# ---- images made by the tools ----
for csum in crc32c xxhash sha256 blake2; do
	mkimg "csum-$csum" 1G --csum "$csum" || fail "mkfs --csum $csum"
done
for n in 4096 16384 65536; do
	mkimg "node-$n" 1G -n "$n" || fail "mkfs -n $n"
done
mkimg mixed 1G --mixed || fail "mkfs --mixed"
mkimg label 1G -L "ghee dump-super label" -m single -d single ||
	fail "mkfs -L"
mkimg nofeatures 1G -O ^no-holes,^extref,^skinny-metadata -R ^free-space-tree ||
	fail "mkfs without features"
mkimg raid1c3-capable 1G -O raid1c34 || fail "mkfs -O raid1c34"
mkimg big 300G || fail "mkfs on a 300 GiB image"

# block-group-tree: mkfs.btrfs 6.2 only has it in experimental builds;
# otherwise set the bit by hand (dump-super only reads the flags)
if ! mkimg bgt 1G -O block-group-tree 2>/dev/null; then
	derive bgt csum-crc32c
	$CRAFT "$IMG/bgt" 65536 compat_ro=0xb block_group_root=30523392 \
		block_group_root_generation=6 block_group_root_level=0 ||
		fail "craft bgt"
fi

# two devices, raid1: each device, then both in one call
truncate -s 1G "$IMG/raid1-a" "$IMG/raid1-b" || fail "truncate raid1"
mkfs.btrfs -q -f -K -d raid1 -m raid1 "$IMG/raid1-a" "$IMG/raid1-b" \
	>"$TEST_TMP/mkfs.log" 2>&1 || { cat "$TEST_TMP/mkfs.log" >&2; fail "mkfs raid1"; }
IMAGES+=("$IMG/raid1-a" "$IMG/raid1-b")

derive metadata-uuid csum-crc32c
btrfstune -m "$IMG/metadata-uuid" >/dev/null 2>&1 || fail "btrfstune -m"
derive metadata-uuid-M csum-sha256
btrfstune -M 01234567-89ab-cdef-0123-456789abcdef "$IMG/metadata-uuid-M" \
	>/dev/null 2>&1 || fail "btrfstune -M"
derive seeding csum-crc32c
btrfstune -S 1 "$IMG/seeding" >/dev/null 2>&1 || fail "btrfstune -S 1"

# too small for the 64 MiB copy: it lies past the end and is skipped
derive small node-16384
truncate -s 60M "$IMG/small" || fail "truncate small"
# cut short in the middle of the 64 MiB copy: a read error
derive cut node-16384
truncate -s $((67108864 + 2048)) "$IMG/cut" || fail "truncate cut"

# ---- crafted superblocks ----
item=$(python3 -c "import sys; f=open(sys.argv[1],'rb'); f.seek(65536+811); print(f.read(129).hex())" \
	"$IMG/csum-crc32c") || fail "read sys_chunk_array"
zero168=$(printf '%0336d' 0)
backup3=$((2859 + 3 * 168))
craft()
{
	local name=$1

	shift
	derive "$name" csum-crc32c
	$CRAFT "$IMG/$name" 65536 "$@" || fail "craft $name"
}
craft sys-too-big sys_array_size=3000
craft sys-full sys_array_size=2048
craft sys-short-key sys_array_size=10
craft sys-short-chunk sys_array_size=57
craft sys-bad-type @819=01
craft sys-no-stripes @872=0000
craft sys-many-stripes @872=6400
craft sys-max-stripes @872=ffff
craft sys-two-items sys_array_size=258 @940="$item"
craft sys-second-cut sys_array_size=200 @940="$item"
craft sys-odd-key @811=ffffffffffffffff @820=ffffffffffffffff
craft chunk-type-garbage @836=ff07000000000000
craft csum-unknown csum_type=7
craft csum-mismatch @0=deadbeef --no-csum
craft magic-garbage magic=0x80ff7f2041422e00
craft all-flags flags=0xffffffffffffffff incompat=0xffffffffffffffff \
	compat_ro=0xffffffffffffffff compat=0xffffffffffffffff
craft flags-verity compat_ro=0x4
craft flags-unknown-only incompat=0x6000 flags=0x4
craft extent-tree-v2 incompat=0x2341 nr_global_roots=3
craft label-full @299="$(printf '41%.0s' $(seq 256))"
craft label-binary label="$(printf 'a\tb\\c\001\303\251\377')"
craft backup-empty @$backup3="$zero168"
craft backup-root-only @$backup3="$zero168" @$((backup3 + 16))=01
craft metadata-uuid-zero incompat=0x741
derive mirror1-bad node-16384
$CRAFT "$IMG/mirror1-bad" 67108864 magic=0 || fail "craft mirror1-bad"

run_parallel one_image "${IMAGES[@]}" > "$TEST_TMP/compare.log" ||
	{ cat "$TEST_TMP/compare.log"; fail "ghee crashed"; }
# forced dumps of what is not a superblock, and progs' deprecated syntax
{
compare -F --bytenr 4096 "$IMG/csum-crc32c"
compare -fF --bytenr 4096 "$IMG/csum-crc32c"
compare -fF "$IMG/magic-garbage"
compare -s 65536 "$IMG/csum-crc32c"
compare -i 1 "$IMG/csum-crc32c"
compare -a -i 1 "$IMG/csum-crc32c"
compare -a -s 1 "$IMG/csum-crc32c"
compare -a -f "$IMG/raid1-a" "$IMG/raid1-b"
compare "$IMG/csum-crc32c" "$TEST_TMP/no-such-device" "$IMG/node-4096"
compare -a "$IMG/mirror1-bad" "$IMG/csum-crc32c"
compare "$TEST_TMP"
} >> "$TEST_TMP/compare.log"
grep -v '^SAME: ' "$TEST_TMP/compare.log"
NR_SAME=$(grep -c '^SAME: ' "$TEST_TMP/compare.log")
NR_DIFF=$(grep -c '^DIFFERS: ' "$TEST_TMP/compare.log")
[ $((NR_SAME + NR_DIFF)) -eq $((${#IMAGES[@]} * ${#ARGSETS[@]} + 11)) ] ||
	fail "$((NR_SAME + NR_DIFF)) comparisons made, expected $((${#IMAGES[@]} * ${#ARGSETS[@]} + 11))"

echo "text: $NR_SAME of $((NR_SAME + NR_DIFF)) comparisons identical (${#IMAGES[@]} images)"
[ $NR_DIFF -eq 0 ] || fail "$NR_DIFF comparisons differ"

# ---- JSON ----
python3 "$TEST_DIR/json-check.py" "$GHEE" "${IMAGES[@]}" || fail "JSON differs from the text"
nr_json=${#IMAGES[@]}
# a document cut short by an error is still complete JSON
"$GHEE" dump-super --format json -a "$IMG/mirror1-bad" >"$TEST_TMP/bad.json" 2>/dev/null
[ $? -eq 1 ] || fail "bad magic in JSON mode should exit 1"
if command -v jq >/dev/null 2>&1; then
	jq -e '.superblocks[-1].status == "bad_magic"' "$TEST_TMP/bad.json" >/dev/null ||
		fail "JSON of mirror1-bad"
else
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["superblocks"][-1]["status"] != "bad_magic")' \
		"$TEST_TMP/bad.json" || fail "JSON of mirror1-bad"
fi
echo "json: $nr_json images valid and consistent with the text"
exit 0
