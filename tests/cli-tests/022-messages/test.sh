#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Error messages give the right reason, once, in one style: an empty or
# too small file is "device too small" (not "No such file or directory"),
# a missing file says so once (no doubled errno), devices of another
# filesystem or given twice do not end in ": Invalid argument", and every
# line on stderr starts with "ERROR: " or "WARNING: " (check, dump-tree,
# dump-super, mkfs, the command dispatcher).
source "$TOP/tests/common.sh"

[ -x "$GHEE" ] || fail "ghee is not built: $GHEE"

# msgs WANT_STATUS CMD...: run, keep stderr in err.out, check its style
msgs()
{
	local want=$1 line rc

	shift
	echo "+ (expect $want) ghee $*"
	"$GHEE" "$@" > /dev/null 2> err.out
	rc=$?
	cat err.out
	[ $rc -eq "$want" ] || fail "expected exit status $want, got $rc from: ghee $*"
	[ -s err.out ] || fail "no message from ghee $*"
	while IFS= read -r line; do
		case $line in
		"ERROR: "*|"WARNING: "*|"Try 'ghee "*"--help' for more information.") ;;
		*) fail "ghee $*: stderr line not in the ERROR:/WARNING: style: $line" ;;
		esac
	done < err.out
	grep -E '(: [A-Z][a-z ]+)\1' err.out && fail "ghee $*: the reason is doubled"
	grep -q ': Invalid argument$' err.out && fail "ghee $*: message ends in ': Invalid argument'"
	return 0
}

: > empty.img
truncate -s 10k small.img
for f in empty.img small.img; do
	msgs $CHECK_CANNOT check "$f"
	grep -q "device too small" err.out || fail "check $f: reason is not 'device too small'"
	grep -q "No such file" err.out && fail "check $f: says 'No such file or directory'"
	msgs 1 dump-tree "$f"
	grep -q "device too small" err.out || fail "dump-tree $f: reason is not 'device too small'"
done
msgs $CHECK_CANNOT check missing.img
[ "$(grep -o 'No such file or directory' err.out | wc -l)" -eq 1 ] ||
	fail "check: 'No such file or directory' not said exactly once"
msgs 1 dump-tree missing.img
msgs 1 dump-super missing.img

truncate -s 256M a.img b.img
"$GHEE" mkfs -q a.img > /dev/null || fail "mkfs a.img"
"$GHEE" mkfs -q b.img > /dev/null || fail "mkfs b.img"
msgs $CHECK_CANNOT check --noscan a.img b.img
grep -q "b.img belongs to another filesystem" err.out || fail "no fsid message"
msgs $CHECK_CANNOT check --noscan a.img a.img
grep -q "devid 1 given twice" err.out || fail "no devid message"
msgs 1 dump-tree --noscan a.img b.img

msgs $CHECK_USAGE check
msgs $CHECK_USAGE check --super 7 a.img
msgs $CHECK_USAGE check --format xml a.img
msgs 2 dump-tree -t nosuchtree a.img
msgs 2 dump-super --bytenr x a.img
msgs 2 mkfs
msgs 2 no-such-command
exit 0
