# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the fsck tests 020-039 (tree blocks, extents, free space).
# Source after tests/common.sh:
#
#	source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
#
#   EDIT                     tests/fsck-tests/lib/btrfs-edit.py (see its --help)
#   fsck_base_image          a private copy of a small kernel-written image
#                            (files, inline files, reflinks, a subvolume and a
#                            modified snapshot), built once into $CACHE
#   finding_codes IMG        the sorted distinct finding codes of ghee check
#   expect_codes IMG CODE... ghee check exits 1 with exactly these codes
#   expect_code_present IMG CODE [REGEX]
#                            ghee check exits 1 and reports CODE (with a
#                            message matching REGEX)

EDIT=$TOP/tests/fsck-tests/lib/btrfs-edit.py

_fsck_base_recipe()
{
	local img=$1 mnt=$2 i

	truncate -s 256M "$img" || return 1
	# no free space tree from mkfs.btrfs 6.2: it leaves entries of its
	# temporary chunks behind; the kernel builds a clean one at mount
	mkfs.btrfs -q -f -R ^free-space-tree "$img" >/dev/null 2>&1 || return 1
	mount_image "$img" "$mnt" space_cache=v2
	mkdir "$mnt/d" || return 1
	for i in $(seq 1 600); do
		echo "small file $i" > "$mnt/d/f$i"
	done
	for i in 1 2 3 4; do
		head -c $((i * 65536 + 8192)) /dev/urandom > "$mnt/d/big$i" || return 1
	done
	cp --reflink=always "$mnt/d/big1" "$mnt/d/big1.clone" || return 1
	btrfs subvolume create "$mnt/sv" >/dev/null || return 1
	for i in $(seq 1 300); do
		echo "subvolume file $i" > "$mnt/sv/g$i"
	done
	head -c 300000 /dev/urandom > "$mnt/sv/data" || return 1
	btrfs subvolume snapshot "$mnt/sv" "$mnt/snap" >/dev/null || return 1
	echo changed > "$mnt/snap/g7"
	head -c 4096 /dev/urandom | dd of="$mnt/snap/data" bs=4096 seek=3 conv=notrunc 2>/dev/null
	rm -f "$mnt/d/f5" "$mnt/d/big3"
	sync
	umount_image "$mnt"
}

_fsck_base_verify()
{
	"$GHEE" check "$1" > "$TEST_TMP/base-check.log" 2>&1 ||
		{ cat "$TEST_TMP/base-check.log" >&2; return 1; }
}

# fsck_base_image: print the path of a fresh private copy of the base image
fsck_base_image()
{
	local img

	need_progs
	img=$(cached_base_image "$CACHE/fsck-extents" _fsck_base_recipe _fsck_base_verify) || exit
	cp --sparse=always "$img" "$TEST_TMP/test.img" || fail "cannot copy the base image"
	echo "$TEST_TMP/test.img"
}

finding_codes()
{
	"$GHEE" check -q "$1" 2>/dev/null |
		sed -n 's/^ERROR: \[\([A-Z0-9_]*\)\].*/\1/p' | sort -u
}

expect_codes()
{
	local img=$1 rc want got

	shift
	"$GHEE" check -q "$img" > "$TEST_TMP/check.out" 2>&1
	rc=$?
	cat "$TEST_TMP/check.out" >&2
	_status_is_crash $rc && fail "crash or sanitizer error (status $rc)"
	[ $rc -eq $CHECK_ERRORS ] || fail "expected exit status $CHECK_ERRORS, got $rc"
	want=$(printf '%s\n' "$@" | sort -u)
	got=$(sed -n 's/^ERROR: \[\([A-Z0-9_]*\)\].*/\1/p' "$TEST_TMP/check.out" | sort -u)
	[ "$want" = "$got" ] ||
		fail "expected codes: $(echo $want), got: $(echo $got)"
}

expect_code_present()
{
	local img=$1 code=$2 re=${3:-} rc

	"$GHEE" check -q "$img" > "$TEST_TMP/check.out" 2>&1
	rc=$?
	cat "$TEST_TMP/check.out" >&2
	_status_is_crash $rc && fail "crash or sanitizer error (status $rc)"
	[ $rc -eq $CHECK_ERRORS ] || fail "expected exit status $CHECK_ERRORS, got $rc"
	grep -q "^ERROR: \[$code\] .*$re" "$TEST_TMP/check.out" ||
		fail "no $code finding${re:+ matching '$re'}"
}
