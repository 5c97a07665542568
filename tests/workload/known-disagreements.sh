# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # REF_ORPHAN_RE is used by compare-checks.sh
#
# The disagreements between ghee check and btrfs check 6.19 that are known
# and explained: each entry says why the other side is wrong.  Anything not
# listed here fails the workload tests.  Sourced by compare-checks.sh.
#
# An entry is a finding class (see compare-checks.sh) and the condition
# under which it is a known false alarm: a tag of the recipe (tags file)
# and/or a text the finding must carry.

# the lines of btrfs check 6.19 for the free space tree entries mkfs.btrfs
# before 6.16 leaves behind; ghee reports them too (FREE_SPACE_ORPHAN), so
# they are agreement, never a class
REF_ORPHAN_RE='^Space key logical [0-9]+ length [0-9]+ has no corresponding block group$|^ERROR: errors found in free space tree$'

_tag()
{
	grep -q "^$2=$3\$" "$1"
}

# known_disagreement CLASS TAGS_FILE GHEE_OUTPUT REF_OUTPUT: true when
# CLASS is a known false alarm on this filesystem
known_disagreement()
{
	local class=$1 tags=$2 gout=$3 rout=$4

	case $class in
	# Not ghee's: btrfs check 6.19 --check-data-csum reports checksum
	# mismatches of "mirror 2" (the copy rebuilt from parity) on RAID5
	# data that is correct on disk.  Evidence: on a 2-device RAID5 chunk
	# (parity equals data) both stripes hold exactly the bytes whose
	# checksum the csum tree has; and on a fresh `mkfs -d raid5` of 2
	# devices with 8 x (1 MiB random + 2 MiB text) written under
	# compress=zstd, 6.19 reports mirror 2 mismatches on about half the
	# runs while a read-write kernel scrub (which verifies and repairs
	# parity) finds no error, and 6.19 still reports them after it.  ghee
	# reads the data stripes only.  Accepted while every mismatch 6.19
	# reports is of a mirror >= 2 in a RAID5/6 data profile.
	ref:mirror_N_bytenr_N_csum_X_expected_csum_X)
		{ _tag "$tags" data raid5 || _tag "$tags" data raid6; } &&
			! grep -E '^mirror [0-9]+ bytenr' "$rout" | grep -q -E '^mirror 1 ' ;;
	# 6.19's summary line after the mismatches above
	ref:ERROR:_errors_found_in_csum_tree)
		grep -q -E '^mirror [2-9] bytenr' "$rout" &&
			known_disagreement ref:mirror_N_bytenr_N_csum_X_expected_csum_X "$tags" "$gout" "$rout" ;;
	*)
		return 1 ;;
	esac
}
