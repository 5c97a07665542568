# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the repair tests (fsck-tests 100-199).  Source after
# tests/common.sh:
#
#   PROGS619                 btrfs-progs 6.19's btrfs (may be missing)
#   repair IMG [OPTS...]     ghee check --repair --format json OPTS IMG: the
#                            report to $TEST_TMP/repair.json, status to REPAIR_RC;
#                            fails the test on a crash
#   expect_repaired IMG [OPTS...]
#                            repair exits CHECK_CORRECTED, nothing remains, and
#                            expect_all_clean
#   expect_all_clean IMG     ghee check exits 0, btrfs check 6.2 exits 0, and
#                            btrfs check 6.19 (when present) says "no error found"
#   repair_changes JSON      the changes of a report, "CODE | op what: old -> new"
#                            per line, sorted (dry run: planned, repair: applied)
#   expect_change JSON LINE  that line is among the changes
#   expect_plan_matches IMG  on a copy: the dry run's plan equals what the real
#                            repair does: the same fixes (every phase), the same
#                            changes, transactions and remaining findings
#   expect_second_repair_noop IMG
#                            a second --repair exits 0 and changes no byte
#   expect_changes LINE...   the changes of the last repair are exactly these
#                            lines (repair_changes' form, in any order)
#   expect_exact_repair IMG LINE...
#                            expect_plan_matches, expect_repaired with
#                            exactly these changes, expect_second_repair_noop
#   file_sums IMG OUT [MOUNT-OPTIONS]
#                            the kernel mounts IMG: the sha256 of every file
#                            (one subvolume: -xdev) to OUT, sorted by path
#   expect_same_files IMG SUMS
#                            the kernel reads the files of IMG as SUMS says
#   count_findings IMG CODES prints the number of findings of ghee check (-1:
#                            cannot check); their codes to the file CODES
#   new_structural BEFORE AFTER
#                            the structural codes in AFTER and not in BEFORE
#   super_digest IMG         a digest of the primary superblock (the commit point)
#   sorted_findings IMG      the sorted findings of ghee check, "CODE message"
#   repair_fault_run VAR N DAMAGED [CHECK-ARGS...]
#                            one repair by the fault-injection build of a copy
#                            of DAMAGED with fault N of VAR (for fault_sweep,
#                            common.sh): no crash or sanitizer report, the old
#                            image (findings, primary superblock) or a clean one
#   fault_runs DAMAGED VARIABLE [PASSES]
#                            $FGHEE repairs copies of DAMAGED with VARIABLE=N
#                            (GHEE_FAIL_WRITE_AT, ...), N = 1, 2, ... until no
#                            fault hits: repair_fault_run for each, the undo
#                            file of a failed one puts back the original bytes,
#                            the run without a fault commits PASSES (1)
#                            transactions; fault_run_check N RC is called after
#                            each faulted run when defined (the report in
#                            $TEST_TMP/try.out)

PROGS619=/work/shared/tools/btrfs-progs-6.19/btrfs
[ -x "$PROGS619" ] || PROGS619=

repair()
{
	local img=$1

	shift
	"$GHEE" check --repair --format json "$@" "$img" > "$TEST_TMP/repair.json" 2> "$TEST_TMP/repair.err"
	REPAIR_RC=$?
	_status_is_crash $REPAIR_RC && { cat "$TEST_TMP/repair.err" >&2; fail "repair crashed (status $REPAIR_RC)"; }
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TEST_TMP/repair.json" ||
		{ head -c 2000 "$TEST_TMP/repair.json" >&2; fail "the repair report is not JSON"; }
	return 0
}

expect_all_clean()
{
	local img=$1 rc

	"$GHEE" check "$img" > "$TEST_TMP/recheck.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat "$TEST_TMP/recheck.out" >&2; fail "ghee check after repair: status $rc"; }
	if command -v btrfs >/dev/null; then
		btrfs check --readonly "$img" > "$TEST_TMP/progs.out" 2>&1 ||
			{ cat "$TEST_TMP/progs.out" >&2; fail "btrfs check 6.2 finds errors after the repair"; }
	fi
	if [ -n "$PROGS619" ]; then
		"$PROGS619" check --readonly "$img" > "$TEST_TMP/progs619.out" 2>&1
		grep -q "no error found" "$TEST_TMP/progs619.out" ||
			{ cat "$TEST_TMP/progs619.out" >&2; fail "btrfs check 6.19 finds errors after the repair"; }
	fi
	return 0
}

expect_repaired()
{
	local img=$1

	repair "$@"
	[ "$REPAIR_RC" -eq "$CHECK_CORRECTED" ] ||
		{ cat "$TEST_TMP/repair.json" "$TEST_TMP/repair.err" >&2; fail "repair: expected status $CHECK_CORRECTED, got $REPAIR_RC"; }
	python3 - "$TEST_TMP/repair.json" <<'PY' || fail "the report says problems remain"
import json, sys
doc = json.load(open(sys.argv[1]))
sys.exit(1 if doc["remaining"] or doc["exit_code"] != 1 else 0)
PY
	expect_all_clean "$img"
}

repair_changes()
{
	python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
out = []
for it in doc["fixes"]:
    for c in it.get("changes", []):
        line = "%s | %s %s" % (it["code"], c["op"], c["what"])
        if "old" in c:
            line += ": %d -> %d" % (c["old"], c["new"])
        out.append(line)
for line in sorted(out):
    print(line)
PY
}

expect_change()
{
	repair_changes "$1" > "$TEST_TMP/changes"
	grep -qxF "$2" "$TEST_TMP/changes" ||
		{ cat "$TEST_TMP/changes" >&2; fail "missing change: $2"; }
}

expect_plan_matches()
{
	local img=$1 copy=$TEST_TMP/plan-copy.img

	cp --sparse=always "$img" "$copy" || fail "cannot copy $img"
	"$GHEE" check --repair --dry-run --format json "$copy" > "$TEST_TMP/plan.json" 2> "$TEST_TMP/plan.err"
	[ $? -eq "$CHECK_ERRORS" ] || { cat "$TEST_TMP/plan.err" >&2; fail "dry run: expected status $CHECK_ERRORS"; }
	cmp -s "$img" "$copy" || fail "the dry run changed the image"
	"$GHEE" check --repair --format json "$copy" > "$TEST_TMP/real.json" 2> "$TEST_TMP/real.err"
	python3 - "$TEST_TMP/plan.json" "$TEST_TMP/real.json" <<'PY' || fail "the plan and the repair differ"
import json, sys
plan = json.load(open(sys.argv[1]))
real = json.load(open(sys.argv[2]))
status = {"planned": "fixed"}
def fixes(doc):
    return [(it["code"], it["message"], status.get(it["status"], it["status"]),
             [(c["op"], c["what"], c.get("old"), c.get("new")) for c in it.get("changes", [])])
            for it in doc["fixes"]]
def remaining(doc):
    return sorted((it["code"], it["message"]) for it in doc["remaining"])
p, r = fixes(plan), fixes(real)
bad = 0
if not any(f[2] == "fixed" for f in p):
    print("the plan is empty", file=sys.stderr); bad = 1
if p != r:
    for a, b in zip(p + [None] * len(r), r + [None] * len(p)):
        if a != b:
            print("plan:   %s\nrepair: %s" % (a, b), file=sys.stderr); bad = 1
            break
if plan["transactions"] != real["transactions"]:
    print("plan: %d transactions, repair: %d" % (plan["transactions"], real["transactions"]),
          file=sys.stderr); bad = 1
if remaining(plan) != remaining(real):
    print("plan leaves %s\nrepair leaves %s" % (remaining(plan), remaining(real)),
          file=sys.stderr); bad = 1
sys.exit(bad)
PY
}

expect_changes()
{
	repair_changes "$TEST_TMP/repair.json" > "$TEST_TMP/changes"
	printf '%s\n' "$@" | sort > "$TEST_TMP/changes.expected"
	compare_outputs "$TEST_TMP/changes.expected" "$TEST_TMP/changes" || fail "not the expected changes"
}

expect_exact_repair()
{
	local img=$1

	shift
	expect_plan_matches "$img"
	expect_repaired "$img"
	expect_changes "$@"
	expect_second_repair_noop "$img"
}

file_sums()
{
	local mnt=$TEST_TMP/sums-mnt

	mount_image "$1" "$mnt" "${3:-}"
	(cd "$mnt" && find . -xdev -type f -print0 | sort -z | xargs -0 -r sha256sum) > "$2" ||
		{ umount_image "$mnt"; fail "cannot read the files of $1"; }
	umount_image "$mnt"
}

expect_same_files()
{
	file_sums "$1" "$TEST_TMP/sums.now"
	compare_outputs "$2" "$TEST_TMP/sums.now" || fail "the files do not read back as before"
}

expect_second_repair_noop()
{
	local img=$1 before=$TEST_TMP/before-second.img rc

	cp --sparse=always "$img" "$before" || fail "cannot copy $img"
	"$GHEE" check --repair "$img" > "$TEST_TMP/second.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat "$TEST_TMP/second.out" >&2; fail "second repair: status $rc"; }
	cmp -s "$img" "$before" || fail "a second repair changed the image"
	rm -f "$before"
}

# same_bytes A B: the two (sparse) images hold the same bytes; fast on big
# sparse images: only the ranges where either has data are read
same_bytes()
{
	python3 - "$1" "$2" <<'PY'
import os, sys
def segments(fd, size):
    out, pos = [], 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:
            break
        end = os.lseek(fd, start, os.SEEK_HOLE)
        out.append((start, end))
        pos = end
    return out
fa, fb = os.open(sys.argv[1], os.O_RDONLY), os.open(sys.argv[2], os.O_RDONLY)
sa, sb = os.fstat(fa).st_size, os.fstat(fb).st_size
if sa != sb:
    sys.exit(1)
for start, end in sorted(segments(fa, sa) + segments(fb, sb)):
    pos = start
    while pos < end:
        n = min(end - pos, 1 << 20)
        if os.pread(fa, n, pos) != os.pread(fb, n, pos):
            sys.exit(1)
        pos += n
sys.exit(0)
PY
}

count_findings()
{
	timeout 60 "$GHEE" check --format json "$1" 2>/dev/null | python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
except ValueError:
    doc = {"result": "cannot-check"}
codes = sorted({m["code"] for p in doc.get("phases", []) for m in p.get("messages", [])
                if m.get("type") == "finding"})
open(sys.argv[1], "w").write("".join(c + "\n" for c in codes))
if doc.get("result") == "cannot-check":
    print(-1); sys.exit(0)
print(sum(1 for p in doc.get("phases", []) for m in p.get("messages", [])
          if m.get("type") == "finding"))' "$2"
}

# a repair writes whole, valid blocks through the engine: a structural code
# it introduces means it made the image worse
new_structural()
{
	comm -13 "$1" "$2" | grep -E '^(TREE_|SUPER_|CHUNK_|DEV_EXTENT_OVERLAP|DEV_ITEM_MISSING)'
}

super_digest()
{
	dd if="$1" bs=4096 skip=16 count=1 status=none | md5sum | cut -d' ' -f1
}

# the sorted findings of IMG, one "CODE message" per line; an image ghee
# cannot check fails the test (it is neither the old one nor repaired)
sorted_findings()
{
	"$GHEE" check --format json "$1" > "$TEST_TMP/f.json" 2> /dev/null
	python3 - "$TEST_TMP/f.json" <<'PY' || fail "ghee cannot check $1"
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit(1)
if doc.get("result") == "cannot-check":
    sys.exit(1)
out = []
for ph in doc.get("phases", []):
    for m in ph.get("messages", []):
        if m.get("type") == "finding":
            out.append(m["code"] + " " + m["message"])
for line in sorted(out):
    print(line)
PY
}

# repair_fault_run VAR N DAMAGED [CHECK-ARGS...]: a repair by the
# fault-injection build with fault N of VAR (VAR=N) of a copy of DAMAGED
# ($TEST_TMP/try.img; stdout to try.out, stderr to try.err, status in
# FAULT_RC).  No crash or sanitizer report, and what is left is the old
# filesystem (its findings, $TEST_TMP/before, under the same primary
# superblock) or a clean one; a faulted run exits with CHECK_CANNOT.  0
# when no fault was hit (then clean), 1 when one was.
# With FAULT_PARTIAL_OK=1 (faults an action can meet before it changes
# anything, e.g. an allocation: it could not fix that finding, the rest
# of the repair goes on), a third outcome: published with findings left,
# status CHECK_ERRORS without CHECK_CANNOT, the findings left a subset of
# the old ones and the ones the repair's JSON report says are left
# (FAULT_PARTIAL=1 for such a run).
repair_fault_run()
{
	local var=$1 n=$2 damaged=$3 img=$TEST_TMP/try.img

	shift 3
	FAULT_PARTIAL=0
	cp --sparse=always "$damaged" "$img"
	env "$var=$n" "$FGHEE" check --repair "$@" "$img" > "$TEST_TMP/try.out" 2> "$TEST_TMP/try.err"
	FAULT_RC=$?
	if _status_is_crash $FAULT_RC ||
	   grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$TEST_TMP/try.err"; then
		cat "$TEST_TMP/try.err" >&2
		fail "$var=$n: crash or sanitizer report (status $FAULT_RC)"
	fi
	sorted_findings "$img" > "$TEST_TMP/after"
	if [ "${FAULT_PARTIAL_OK:-0}" = 1 ] && grep -q "fault injection" "$TEST_TMP/try.err" &&
	   [ -s "$TEST_TMP/after" ] &&
	   ! cmp -s "$TEST_TMP/before" "$TEST_TMP/after" &&
	   [ $((FAULT_RC & (CHECK_CANNOT | CHECK_ERRORS))) -eq "$CHECK_ERRORS" ]; then
		_expect_partial_repair "$var=$n"
		FAULT_PARTIAL=1
		return 1
	fi
	if [ -s "$TEST_TMP/after" ]; then
		cmp -s "$TEST_TMP/before" "$TEST_TMP/after" ||
			{ diff "$TEST_TMP/before" "$TEST_TMP/after" >&2; fail "$var=$n: the image is neither the old one nor repaired"; }
		[ "$(super_digest "$img")" = "$(super_digest "$damaged")" ] ||
			fail "$var=$n: the old findings under a new primary superblock"
	fi
	if ! grep -q "fault injection" "$TEST_TMP/try.err"; then
		[ -s "$TEST_TMP/after" ] && fail "$var=$n: the repair without faults left findings"
		return 0
	fi
	[ $((FAULT_RC & CHECK_CANNOT)) -ne 0 ] || fail "$var=$n: a fault, yet status $FAULT_RC"
	return 1
}

# a repair published with findings left (repair_fault_run): never worse,
# and it says what is left
_expect_partial_repair()
{
	[ -z "$(comm -13 "$TEST_TMP/before" "$TEST_TMP/after")" ] ||
		{ comm -13 "$TEST_TMP/before" "$TEST_TMP/after" >&2; fail "$1: findings the image did not have"; }
	python3 - "$TEST_TMP/try.out" <<'PY' > "$TEST_TMP/said-left"
import json, sys
doc = json.load(open(sys.argv[1]))
for line in sorted(f["code"] + " " + f["message"] for f in doc["remaining"]):
    print(line)
PY
	cmp -s "$TEST_TMP/said-left" "$TEST_TMP/after" ||
		{ diff "$TEST_TMP/said-left" "$TEST_TMP/after" >&2; fail "$1: the findings left are not the ones the repair reports"; }
}

# fault_runs' run N: the undo file of a failed repair puts back the
# original bytes; one without a fault takes PASSES transactions
# shellcheck disable=SC2317 # called by fault_sweep
_fault_run_undo()
{
	local var=$1 n=$2 damaged=$3 passes=$4 undo=$TEST_TMP/try.undo

	rm -f "$undo"
	if repair_fault_run "$var" "$n" "$damaged" --undo "$undo" --format json; then
		[ "$FAULT_RC" -eq "$CHECK_CORRECTED" ] || fail "$var=$n: no fault, yet status $FAULT_RC"
		grep -q "\"transactions\": *$passes," "$TEST_TMP/try.out" ||
			fail "$var=$n: not $passes transactions"
		return 0
	fi
	if declare -F fault_run_check > /dev/null; then
		fault_run_check "$n" "$FAULT_RC"
	fi
	if [ -e "$undo" ]; then
		"$GHEE" undo --force-incomplete "$undo" "$TEST_TMP/try.img" > /dev/null 2> "$TEST_TMP/undo.err" ||
			{ cat "$TEST_TMP/undo.err" >&2; fail "$var=$n: undo failed"; }
		same_bytes "$TEST_TMP/try.img" "$damaged" || fail "$var=$n: undo did not restore the original bytes"
	fi
	return 1
}

fault_runs()
{
	local damaged=$1 var=$2 passes=${3:-1}

	sorted_findings "$damaged" > "$TEST_TMP/before"
	[ -s "$TEST_TMP/before" ] || fail "the damaged image is clean"
	fault_sweep "$var" 400 _fault_run_undo "$damaged" "$passes"
	echo "$var: $FAULTS faulted runs" >&2
}

# expect_mirror_is_primary IMG: superblock mirror 1 equals the primary
# (all but the checksum and the bytenr, which differ by copy)
expect_mirror_is_primary()
{
	python3 - "$1" <<'PY' || fail "mirror 1 is not a copy of the primary"
import sys
f = open(sys.argv[1], 'rb')
f.seek(65536); p = f.read(4096)
f.seek(67108864); m = f.read(4096)
sys.exit(0 if p[32:48] == m[32:48] and p[56:] == m[56:] else 1)
PY
}
