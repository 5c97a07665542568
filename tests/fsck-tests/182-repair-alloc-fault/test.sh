#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An action that fails half way through the repair's transaction: a
# --enable-fault-injection build fails the Nth tree block allocation
# (GHEE_FAIL_ALLOC_AT=N, -ENOSPC) of a repair, for every N until it runs
# through.  The first one is the copy on write of the TREE_BLOCK_INVALID
# action, which used to abort (and free) the transaction the pass then
# committed.  Now the action only marks the pass failed, the pass gives
# the transaction up once, nothing is published: every run ends in order
# (no sanitizer report with ./run-tests.sh --sanitizers, which builds the
# fault-injection ghee with them), the image checks as before under the
# same primary superblock, or is repaired and clean, and the undo file of a
# failed run puts back the original bytes.  A fix that ran before the
# failing one in the given-up pass is never reported fixed (JSON status
# "not-written", text "not written [CODE] ...: the pass was abandoned"):
# nothing of it was written.  An action whose allocation fails before it
# changes anything could not fix its finding, and the rest of the repair
# goes on: published, never worse, the findings left as reported.  A fix
# of an earlier pass that was committed is not written either when a
# later pass is given up: no superblock leads to that commit (status
# "not-written", the summary says nothing was written).
# Damage: the node pointers' generations of two leaves one below the
# leaves' (two TREE_BLOCK_INVALID fixes in one pass), and an inode's
# nbytes (INODE_NBYTES, fixed in a later pass).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs make gcc python3

fault_injection_build --sanitizers

edit() { python3 "$EDIT" "$damaged" "$@" || fail "btrfs-edit.py $* failed"; }

# break_pointer LEAF: its node pointer's generation one below its own
break_pointer()
{
	local node slot gen

	read -r node slot < <(edit parent-of 5 "$1")
	gen=$(edit get-block "$1" 80 8)
	edit set-block "$node" $((101 + 33 * slot + 25)) 8 $((gen - 1))
}

damaged=$(fsck_base_image) || exit
leaf=$(edit leaf-of 5 $((256 + 300)) 1 0)
leaf2=$(edit leaf-of 5 $((256 + 20)) 1 0)
[ "$leaf" != "$leaf2" ] || fail "the two inodes share a leaf"
break_pointer "$leaf"
break_pointer "$leaf2"
edit add-item 5 $((256 + 150)) 1 0 24 8 4096
expect_code_present "$damaged" TREE_BLOCK_INVALID "parent transid verify failed on $leaf"
expect_code_present "$damaged" TREE_BLOCK_INVALID "parent transid verify failed on $leaf2"
expect_code_present "$damaged" INODE_NBYTES "$((256 + 150))"

# Each faulted run: published partly repaired (an action failed before it
# changed anything; checked by repair_fault_run) to PARTIAL_AT, or
# nothing published and no fix may say fixed.  N of a run where a fix had
# run before the failing one in the given-up pass to NOT_WRITTEN_AT, of a
# run that failed after a pass had committed to UNPUBLISHED_AT.  The first
# allocation is the TREE_BLOCK_INVALID action's own copy on write.
NOT_WRITTEN_AT=
UNPUBLISHED_AT=
PARTIAL_AT=
fault_run_check()
{
	# an action that could not start (nothing changed): the rest is published
	if [ "$FAULT_PARTIAL" = 1 ]; then
		PARTIAL_AT=${PARTIAL_AT:-$1}
		return 0
	fi
	[ -s "$TEST_TMP/after" ] || fail "GHEE_FAIL_ALLOC_AT=$1: a failed repair, yet the image was published repaired"
	python3 - "$TEST_TMP/try.out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
status = [f["status"] for f in doc["fixes"]]
if "fixed" in status or "planned" in status or doc["fixed"]:
    print("a fix of the abandoned pass is reported fixed: %s" % status, file=sys.stderr)
    sys.exit(2)
sys.exit(0 if any(f["status"] == "not-written" and f.get("error") == "the pass was abandoned"
                  for f in doc["fixes"]) else 3)
PY
	case $? in
	0) NOT_WRITTEN_AT=${NOT_WRITTEN_AT:-$1} ;;
	3) ;;
	*) fail "GHEE_FAIL_ALLOC_AT=$1: fixes claimed that were not written" ;;
	esac
	grep -q '"error": *"the repair failed before its superblocks were written"' "$TEST_TMP/try.out" &&
		UNPUBLISHED_AT=${UNPUBLISHED_AT:-$1}
	[ "$1" -eq 1 ] || return 0
	python3 - "$TEST_TMP/try.out" <<'PY' || { cat "$TEST_TMP/try.out" >&2; fail "the failed copy on write is not reported"; }
import json, sys
doc = json.load(open(sys.argv[1]))
sys.exit(0 if any(f["code"] == "TREE_BLOCK_INVALID" and f["status"] == "failed" and
                  f.get("error") == "No space left on device" for f in doc["fixes"]) else 1)
PY
	grep -q "^ERROR: transaction [0-9]* abandoned: a fix failed half way (No space left on device); nothing is written" \
		"$TEST_TMP/try.err" || { cat "$TEST_TMP/try.err" >&2; fail "the abandoned transaction is not reported"; }
}

FAULT_PARTIAL_OK=1 fault_runs "$damaged" GHEE_FAIL_ALLOC_AT 2
[ -n "$NOT_WRITTEN_AT" ] || fail "no run gave up the pass after a fix had run"
[ -n "$PARTIAL_AT" ] || fail "no run published what the passes before a failed action fixed"

# the text report of such a run says the same
cp --sparse=always "$damaged" "$TEST_TMP/text.img"
GHEE_FAIL_ALLOC_AT=$NOT_WRITTEN_AT "$FGHEE" check --repair "$TEST_TMP/text.img" > "$TEST_TMP/text.out" 2>&1
grep -q "^  not written \[TREE_BLOCK_INVALID\] .*: the pass was abandoned$" "$TEST_TMP/text.out" &&
	! grep -q "^  fixed \[" "$TEST_TMP/text.out" ||
	{ cat "$TEST_TMP/text.out" >&2; fail "GHEE_FAIL_ALLOC_AT=$NOT_WRITTEN_AT: the text claims a fix that was not written"; }

# a failure after a committed pass: the text summary counts no fix
[ -n "$UNPUBLISHED_AT" ] || fail "no run failed after a pass had committed"
cp --sparse=always "$damaged" "$TEST_TMP/text.img"
GHEE_FAIL_ALLOC_AT=$UNPUBLISHED_AT "$FGHEE" check --repair "$TEST_TMP/text.img" > "$TEST_TMP/text.out" 2>&1
grep -q "^repair summary: the repair failed, nothing it did is written ([0-9]* fix\(es\)\? of earlier passes not written)$" \
	"$TEST_TMP/text.out" && ! grep -q "^  [A-Z_]* *[0-9]* fixed" "$TEST_TMP/text.out" ||
	{ cat "$TEST_TMP/text.out" >&2; fail "GHEE_FAIL_ALLOC_AT=$UNPUBLISHED_AT: the summary counts fixes that were not written"; }
exit 0
