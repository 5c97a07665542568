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
# failed run puts back the original bytes.
# Damage: a node pointer's generation one below its leaf's.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
need_progs make gcc python3

fault_injection_build --sanitizers

edit() { python3 "$EDIT" "$damaged" "$@" || fail "btrfs-edit.py $* failed"; }

damaged=$(fsck_base_image) || exit
leaf=$(edit leaf-of 5 $((256 + 300)) 1 0)
read -r node slot < <(edit parent-of 5 "$leaf")
gen=$(edit get-block "$leaf" 80 8)
edit set-block "$node" $((101 + 33 * slot + 25)) 8 $((gen - 1))
expect_code_present "$damaged" TREE_BLOCK_INVALID "parent transid verify failed on $leaf"

# a failed allocation never leads to a published repair; the first one is
# the action's own copy on write, which gives the pass up
fault_run_check()
{
	[ -s "$TEST_TMP/after" ] || fail "GHEE_FAIL_ALLOC_AT=$1: a failed repair, yet the image was published repaired"
	[ "$1" -eq 1 ] || return 0
	python3 - "$TEST_TMP/try.out" <<'PY' || { cat "$TEST_TMP/try.out" >&2; fail "the failed copy on write is not reported"; }
import json, sys
doc = json.load(open(sys.argv[1]))
sys.exit(0 if any(f["code"] == "TREE_BLOCK_INVALID" and f["status"] == "failed" and
                  f["error"] == "No space left on device" for f in doc["fixes"]) else 1)
PY
	grep -q "^ERROR: transaction [0-9]* abandoned: a fix failed half way (No space left on device); nothing is written" \
		"$TEST_TMP/try.err" || { cat "$TEST_TMP/try.err" >&2; fail "the abandoned transaction is not reported"; }
}

fault_runs "$damaged" GHEE_FAIL_ALLOC_AT
exit 0
