#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dump-tree where its exit status differs from btrfs-progs on purpose
# (ghee-dump-tree(8), EXIT STATUS): -b with a zero, unaligned or unmapped
# bytenr and -t tree_log without a log tree print what progs 6.2 and 6.19
# print (stdout after the first line; stderr too where the words are the
# same) and exit 1 where progs exit 0; an unknown tree name is a usage
# error (2).  The man page names every case.
source "$TOP/tests/common.sh"

need_progs_version
P19=$TOP/../shared/tools/btrfs-progs-6.19/btrfs

img=$TEST_TMP/fs.img
truncate -s 256M "$img"
mkfs.btrfs -q -f "$img" > /dev/null || fail "mkfs.btrfs failed"
end=$((256 << 20))

# case OPTS GHEE_STATUS PROGS_STATUS SAME_STDERR(1/0)
case_()
{
	local opts=$1 want=$2 pwant=$3 same_err=$4 prog rc

	# shellcheck disable=SC2086
	"$GHEE" dump-tree $opts "$img" > g.out 2> g.err
	rc=$?
	echo "ghee dump-tree $opts: exit $rc: $(tr '\n' '|' < g.err)"
	[ $rc -eq "$want" ] || fail "ghee dump-tree $opts exits $rc, the man page says $want"
	for prog in btrfs "$P19"; do
		[ -x "$(command -v "$prog")" ] || continue
		# shellcheck disable=SC2086
		"$prog" inspect-internal dump-tree $opts "$img" > p.out 2> p.err
		rc=$?
		[ $rc -eq "$pwant" ] || fail "$prog dump-tree $opts exits $rc, expected $pwant (update the man page?)"
		compare_outputs <(tail -n +2 p.out) <(tail -n +2 g.out) ||
			fail "dump-tree $opts: stdout differs from $prog"
		if [ "$same_err" = 1 ]; then
			compare_outputs p.err g.err || fail "dump-tree $opts: stderr differs from $prog"
		fi
	done
}

case_ "-b 0" 1 0 1
case_ "-b 1" 1 0 1
case_ "-b 30001" 1 0 1
case_ "-b 99999999999" 1 0 1
case_ "-b $end" 1 0 0
case_ "-b 4096" 1 0 0
case_ "-t tree_log" 1 0 1
case_ "-t 18446744073709551610" 1 0 1
"$GHEE" dump-tree -b $end "$img" 2>&1 >/dev/null | grep -q "not mapped by any chunk" ||
	fail "no 'not mapped' message for a block past the end"
run_expect_status 2 "$GHEE" dump-tree -t log "$img"
run_expect_status 0 "$GHEE" dump-tree -t 7 "$img" > /dev/null

man=$TOP/man/ghee-dump-tree.8
for what in '"-b 0, -b BYTENR not aligned' 'outside every chunk' '-b 18446744073709551615' \
	    '-t tree_log' '-t log'; do
	grep -qF -- "$what" "$man" || fail "ghee-dump-tree(8) does not document: $what"
done
exit 0
