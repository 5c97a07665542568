#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Crash safety of the repair: a build with --enable-fault-injection fails
# the Nth device write (GHEE_FAIL_WRITE_AT=N) or flush (GHEE_FAIL_FLUSH_AT=N)
# of a repair, for every N until the repair runs through.  Afterwards the
# image is the old filesystem (the same findings, the same primary
# superblock byte for byte) or the repaired one (clean) -- never anything
# in between, also when the repair takes several phases: their commits
# write no superblock, the last superblocks are written once at the end --
# and the undo file the failed repair kept puts back the original bytes.
# Cases: the orphan free space entries of a fresh mkfs.btrfs image, a
# corpus image with an orphan dev extent and orphan free space entries
# (two phases, two transactions), and with GHEE_LONG=1 a link count too.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/fs-trees-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs make gcc python3 mkfs.btrfs

fault_injection_build

# the sorted findings of IMG, one "CODE message" per line
findings()
{
	"$GHEE" check --format json "$1" > "$TEST_TMP/f.json" 2> /dev/null
	python3 - "$TEST_TMP/f.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
out = []
for ph in doc.get("phases", []):
    for m in ph.get("messages", []):
        if m.get("type") == "finding":
            out.append(m["code"] + " " + m["message"])
for line in sorted(out):
    print(line)
PY
}

# faults DAMAGED_IMG VARIABLE [PASSES]: fail write/flush N = 1, 2, ... of
# a repair; PASSES: how many transactions the repair without faults takes
faults()
{
	local damaged=$1 var=$2 passes=${3:-1} n=1 img=$TEST_TMP/try.img undo=$TEST_TMP/try.undo rc hit sb

	findings "$damaged" > "$TEST_TMP/before"
	[ -s "$TEST_TMP/before" ] || fail "the damaged image is clean"
	sb=$(super_digest "$damaged")
	while :; do
		cp --sparse=always "$damaged" "$img"
		rm -f "$undo"
		env "$var=$n" "$FGHEE" check --repair --undo "$undo" --format json "$img" > "$TEST_TMP/try.json" 2> "$TEST_TMP/try.err"
		rc=$?
		_status_is_crash $rc && { cat "$TEST_TMP/try.err" >&2; fail "$var=$n: crash (status $rc)"; }
		hit=$(grep -c "fault injection" "$TEST_TMP/try.err")
		findings "$img" > "$TEST_TMP/after"
		if [ -s "$TEST_TMP/after" ]; then
			cmp -s "$TEST_TMP/before" "$TEST_TMP/after" ||
				{ diff "$TEST_TMP/before" "$TEST_TMP/after" >&2; fail "$var=$n: the image is neither the old one nor repaired"; }
			[ "$(super_digest "$img")" = "$sb" ] ||
				fail "$var=$n: the old findings under a new primary superblock"
		fi
		if [ "$hit" -eq 0 ]; then
			[ $rc -eq "$CHECK_CORRECTED" ] || fail "$var=$n: no fault, yet status $rc"
			[ -s "$TEST_TMP/after" ] && fail "$var=$n: repair without faults left findings"
			grep -q "\"transactions\": *$passes," "$TEST_TMP/try.json" ||
				fail "$var=$n: not $passes transactions"
			break
		fi
		[ $((rc & CHECK_CANNOT)) -ne 0 ] || fail "$var=$n: a failed write, yet status $rc"
		if [ -e "$undo" ]; then
			"$GHEE" undo --force-incomplete "$undo" "$img" > /dev/null 2> "$TEST_TMP/undo.err" ||
				{ cat "$TEST_TMP/undo.err" >&2; fail "$var=$n: undo failed"; }
			same_bytes "$img" "$damaged" || fail "$var=$n: undo did not restore the original bytes"
		fi
		n=$((n + 1))
		[ $n -le 400 ] || fail "$var: more than 400 faults, the repair never completes"
	done
	echo "$var: $((n - 1)) faulted runs" >&2
	[ $n -gt 1 ] || fail "$var: the first write/flush never failed"
}

orphans=$TEST_TMP/orphans.img
truncate -s 128M "$orphans"
mkfs.btrfs -q -f "$orphans" >/dev/null 2>&1 || fail "mkfs.btrfs failed"
faults "$orphans" GHEE_FAIL_WRITE_AT
faults "$orphans" GHEE_FAIL_FLUSH_AT

# a filesystem tree fix (GHEE_LONG=1: the suite keeps to the two cases)
if [ -n "${GHEE_LONG:-}" ]; then
	IMG=$(fs_base_image) || exit
	fs_edit set-item 5 "$FS_INO_TWO" 1 0 40 4 2
	cp --sparse=always "$IMG" "$TEST_TMP/nlink.img"
	faults "$TEST_TMP/nlink.img" GHEE_FAIL_WRITE_AT
	faults "$TEST_TMP/nlink.img" GHEE_FAIL_FLUSH_AT
fi

need_corpus
cp --sparse=always "$(corpus_image 068-orphan-dev-extent__default)" "$TEST_TMP/devext.img" || exit
faults "$TEST_TMP/devext.img" GHEE_FAIL_WRITE_AT 2
faults "$TEST_TMP/devext.img" GHEE_FAIL_FLUSH_AT 2
