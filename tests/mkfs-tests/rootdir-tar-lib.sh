# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the --rootdir tar tests (after rootdir-lib.sh): a tree that
# tar can hold, a comparison of an archive with a mounted image
# (tests/tools/tree-compare.py reads the archive itself), and a check that
# nothing of the spool stays behind (its files have no names: a leftover
# would be an older ghee's spool directory or a mkstemp() name).

need_tar_input()
{
	need_progs tar python3
	tar -cf "$TEST_TMP/probe.tar" --files-from /dev/null
	if "$GHEE" mkfs -q -f --rootdir "$TEST_TMP/probe.tar" "$TEST_TMP/probe.img" 2>&1 |
	   grep -q "tar input not built in"; then
		skip "ghee built without libarchive (tar input not built in)"
	fi
	rm -f "$TEST_TMP/probe.tar" "$TEST_TMP/probe.img"
}

# the spool goes into TEST_TMP, so that a leftover shows
export TMPDIR=$TEST_TMP

# tar_tree DIR: make_tree without the socket (no tar format holds one)
tar_tree()
{
	make_tree "$1"
	rm -f "$1/sock"
	# the times make_tree gave the top directory
	touch -m -d @1400000000.999999999 "$1" && touch -a -d @1400000000.000000005 "$1"
}

no_spool_left()
{
	local left

	left=$(find "$TEST_TMP" -maxdepth 1 -name 'ghee-mkfs-tar.*' | head -3)
	[ -z "$left" ] || fail "spool files or directories left behind: $left"
}

# tar_compare ARCHIVE MNT [TREE-COMPARE-OPTIONS...]
tar_compare()
{
	local archive=$1 mnt=$2

	shift 2
	python3 "$TOP/tests/tools/tree-compare.py" -q "$@" "$archive" "$mnt" ||
		fail "the image made from $archive differs from it"
}

# tar_roundtrip ARCHIVE IMG MNT [TREE-COMPARE-OPTIONS...]: mkfs from the
# archive, the three checks, a read-only mount compared with the archive
tar_roundtrip()
{
	local archive=$1 img=$2 mnt=$3

	shift 3
	new_image "$img" "${ROOTDIR_IMG_SIZE:-512M}"
	ghee_mkfs --rootdir "$archive" "$img"
	no_spool_left
	check_all "$img"
	mount_image "$img" "$mnt" ro
	tar_compare "$archive" "$mnt" "$@"
	umount_image "$mnt"
}
