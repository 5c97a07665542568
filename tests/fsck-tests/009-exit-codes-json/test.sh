#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The documented exit codes (fsck(8): 0 clean, 4 errors found, 8 could not check, 16 usage error)
# and the JSON report: valid JSON, the documented top-level fields, every
# finding with a code from the catalog, totals that add up.

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs python3

"$GHEE" check "$TEST_TMP/does-not-exist" >/dev/null 2>&1
[ $? -eq $CHECK_CANNOT ] || fail "a missing device must exit $CHECK_CANNOT"
"$GHEE" check --no-such-option x >/dev/null 2>&1
[ $? -eq $CHECK_USAGE ] || fail "a bad option must exit $CHECK_USAGE"
"$GHEE" check >/dev/null 2>&1
[ $? -eq $CHECK_USAGE ] || fail "no device must exit $CHECK_USAGE"
head -c 1M /dev/zero > "$TEST_TMP/zero.img"
"$GHEE" check "$TEST_TMP/zero.img" > /dev/null 2> "$TEST_TMP/err"
[ $? -eq $CHECK_CANNOT ] || fail "a device without btrfs must exit $CHECK_CANNOT"
grep -q "cannot check" "$TEST_TMP/err" || fail "no 'cannot check' message"
"$GHEE" check --format json "$TEST_TMP/zero.img" > "$TEST_TMP/cannot.json" 2>/dev/null
[ $? -eq $CHECK_CANNOT ] || fail "a device without btrfs must exit $CHECK_CANNOT with --format json too"

img=$(fsck_base_image) || exit
"$GHEE" check --format json "$img" > "$TEST_TMP/clean.json" ||
	fail "the base image must be clean"
python3 "$EDIT" "$img" add-item 3 1 216 1 16 8 1048576 || fail "edit failed"
"$GHEE" check --format json "$img" > "$TEST_TMP/bad.json"
[ $? -eq $CHECK_ERRORS ] || fail "the damaged image must exit $CHECK_ERRORS"

python3 - "$TEST_TMP" "$TOP/cmds/check/problems.def" <<'PY' || fail "JSON report is wrong"
import json, re, sys
tmp, catalog = sys.argv[1], sys.argv[2]
codes = set(re.findall(r'^PROBLEM\((\w+),', open(catalog).read(), re.M))
def load(name):
    return json.load(open(f"{tmp}/{name}.json"))
for name, result, code in (("clean", "clean", 0), ("bad", "errors", 4),
                           ("cannot", "cannot-check", 8)):
    doc = load(name)
    for key in ("ghee_version", "devices", "phases", "result", "exit_code"):
        assert key in doc, f"{name}: no {key}"
    assert doc["result"] == result and doc["exit_code"] == code, (name, doc["result"])
    if name == "cannot":
        assert doc["error"], "no error text"
        continue
    assert [p["index"] for p in doc["phases"]] == list(range(1, 10)), "phases"
    findings = [m for p in doc["phases"] for m in p["messages"] if m["type"] == "finding"]
    assert len(findings) == doc["totals"]["problems"], "totals"
    assert sum(p["problems"] for p in doc["phases"]) == doc["totals"]["problems"]
    for f in findings:
        assert f["code"] in codes, f["code"]
        assert isinstance(f["object"], dict) and f["message"]
bad = load("bad")
f = [m for p in bad["phases"] for m in p["messages"] if m["type"] == "finding"]
assert any(x["code"] == "DEV_BYTES_USED" and x["object"]["devid"] == 1 for x in f), f
PY
