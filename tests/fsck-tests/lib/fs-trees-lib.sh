# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the fsck tests 040-059 (phase 7: filesystem trees).  Source
# after tests/common.sh:
#
#	source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
#
#   EDIT                    tests/fsck-tests/lib/btrfs-edit.py (see its --help)
#   fs_base_image           a private copy of a small kernel-written image
#                           without NO_HOLES, built once into $CACHE; its
#                           inode numbers are fixed (FS_INO_* below)
#   fs_phase_codes IMG      run `ghee check --format json`: the sorted
#                           distinct finding codes of phase 7 (fs-trees)
#                           go to $TEST_TMP/codes, the exit status to FS_RC,
#                           the JSON to $TEST_TMP/check.json
#   expect_fs_codes IMG CODE...
#                           ghee check exits 1 and phase 7 reports exactly
#                           these codes
#
# Inode item field offsets, for btrfs-edit.py set-item/add-item:
#   generation 0, transid 8, size 16, nbytes 24, nlink 40 (4 bytes),
#   mode 52 (4 bytes), flags 64
# Dir item / dir index: location key 0 (objectid 0, type 8, offset 9),
#   transid 17, data_len 25, name_len 27, type 29, name 30
# File extent: generation 0, ram_bytes 8, compression 16, type 20,
#   disk_bytenr 21, disk_num_bytes 29, offset 37, num_bytes 45

EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py

# inode numbers of the base image (checked when it is built)
FS_INO_DIR=257		# /d
FS_INO_INLINE=258	# /d/inline: 6 bytes, one inline extent
FS_INO_TWO=259		# /d/two: 16 KiB written as two 8 KiB extents
FS_INO_BIG=260		# /d/big: 64 KiB, one extent, an xattr
FS_INO_LINKS=261	# /links
FS_INO_TARGET=262	# /links/t: 1 + 400 hard links in /links (extrefs)
FS_NR_LINKS=401

_fs_base_recipe()
{
	local img=$1 mnt=$2 i want

	truncate -s 256M "$img" || return 1
	# explicit holes (no NO_HOLES), no free space tree from mkfs.btrfs 6.2
	# (it leaves entries of its temporary chunks behind)
	mkfs.btrfs -q -f -O ^no-holes -R ^free-space-tree "$img" >/dev/null 2>&1 || return 1
	mount_image "$img" "$mnt" space_cache=v2
	mkdir "$mnt/d" || return 1
	printf 'hello\n' > "$mnt/d/inline"
	head -c 8192 /dev/urandom > "$mnt/d/two"
	sync -f "$mnt"
	head -c 8192 /dev/urandom >> "$mnt/d/two"
	head -c 65536 /dev/urandom > "$mnt/d/big"
	setfattr -n user.test -v value "$mnt/d/big" || return 1
	mkdir "$mnt/links"
	echo target > "$mnt/links/t"
	for i in $(seq 1 $((FS_NR_LINKS - 1))); do
		ln "$mnt/links/t" "$mnt/links/hard-link-with-a-rather-long-name-to-fill-the-inode-ref-item-$i" || return 1
	done
	btrfs -q subvolume create "$mnt/sv" || return 1
	echo in-subvolume > "$mnt/sv/f"
	btrfs -q subvolume snapshot "$mnt/sv" "$mnt/snap" || return 1
	for want in "d $FS_INO_DIR" "d/inline $FS_INO_INLINE" "d/two $FS_INO_TWO" \
		    "d/big $FS_INO_BIG" "links $FS_INO_LINKS" "links/t $FS_INO_TARGET"; do
		set -- $want
		[ "$(stat -c %i "$mnt/$1")" = "$2" ] ||
			{ echo "inode of $1 is $(stat -c %i "$mnt/$1"), expected $2"; return 1; }
	done
	sync
	umount_image "$mnt"
}

_fs_base_verify()
{
	btrfs check --readonly "$1" > "$TEST_TMP/fs-base-progs.log" 2>&1 ||
		{ cat "$TEST_TMP/fs-base-progs.log" >&2; echo "btrfs check finds it damaged" >&2; return 1; }
	"$GHEE" check "$1" > "$TEST_TMP/fs-base-check.log" 2>&1 ||
		{ cat "$TEST_TMP/fs-base-check.log" >&2; return 1; }
}

# fs_base_image: print the path of a fresh private copy of the base image
fs_base_image()
{
	local img

	need_progs btrfs mkfs.btrfs setfattr
	img=$(cached_base_image "$CACHE/fsck-fs-trees" _fs_base_recipe _fs_base_verify) || exit
	cp --sparse=always "$img" "$TEST_TMP/fs.img" || fail "cannot copy the base image"
	echo "$TEST_TMP/fs.img"
}

# print the phase 7 codes of a check's JSON output, one per line, sorted
_fs_json_codes()
{
	python3 - "$1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
codes = set()
for phase in doc.get("phases", []):
    if phase.get("name") != "fs-trees":
        continue
    for m in phase.get("messages", []):
        if m.get("type") == "finding":
            codes.add(m["code"])
            print("  " + m["code"] + ": " + m["message"], file=sys.stderr)
for c in sorted(codes):
    print(c)
EOF
}

# fs_phase_codes IMG: run the check; codes to $TEST_TMP/codes, status to FS_RC
fs_phase_codes()
{
	"$GHEE" check --format json "$1" > "$TEST_TMP/check.json" 2> "$TEST_TMP/check.err"
	FS_RC=$?
	_status_is_crash $FS_RC && { cat "$TEST_TMP/check.err" >&2; fail "crash or sanitizer error (status $FS_RC)"; }
	{ [ $FS_RC -eq 0 ] || [ $FS_RC -eq $CHECK_ERRORS ]; } || { cat "$TEST_TMP/check.err" >&2; fail "ghee check could not check (status $FS_RC)"; }
	_fs_json_codes "$TEST_TMP/check.json" > "$TEST_TMP/codes" ||
		fail "cannot parse the JSON output"
}

expect_fs_codes()
{
	local img=$1 want got

	shift
	fs_phase_codes "$img"
	got=$(cat "$TEST_TMP/codes")
	[ "$FS_RC" -eq $CHECK_ERRORS ] || fail "expected exit status $CHECK_ERRORS, got $FS_RC"
	want=$(printf '%s\n' "$@" | sort -u)
	[ "$want" = "$got" ] ||
		fail "expected phase 7 codes: $(echo $want), got: $(echo $got)"
}

# fs_item_field TREE OBJECTID TYPE OFFSET FIELD_OFF WIDTH: print a field
fs_item_field()
{
	python3 "$EDIT" "$IMG" get-item "$@" || fail "cannot read item ($2 $3 $4) of tree $1"
}

# fs_edit ARGS...: btrfs-edit.py on $IMG, failing the test on error
fs_edit()
{
	python3 "$EDIT" "$IMG" "$@" || fail "btrfs-edit.py $* failed"
}
