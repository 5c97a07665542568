#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ghee-check(8) and the finding catalog cannot drift apart: every
# PROBLEM() code of cmds/check/problems.def has a CAUSE() line in
# cmds/check/problems-doc.def (the generator names the missing ones), and
# the FINDINGS section of man/ghee-check.8 is exactly what
# man/gen-findings.sh makes of them (run it with --update after adding a
# code).  Every code of the catalog is in the page with its repairable
# flag.
source "$TOP/tests/common.sh"

man=$TOP/man/ghee-check.8
"$TOP/man/gen-findings.sh" > gen.out 2> gen.err
rc=$?
cat gen.err
[ $rc -eq 0 ] || fail "man/gen-findings.sh failed: $(cat gen.err)"
sed -n '/^\.\\" BEGIN FINDINGS/,/^\.\\" END FINDINGS/p' "$man" |
	sed '1d;$d' | grep -v '^\.\\"' > page.out
[ -s page.out ] || fail "no BEGIN/END FINDINGS section in $man"
compare_outputs gen.out page.out ||
	fail "the FINDINGS section of ghee-check(8) is stale: run man/gen-findings.sh --update"

nr=0
while read -r code rep; do
	nr=$((nr + 1))
	want="not repairable"
	[ "$rep" = true ] && want="repairable"
	grep -qxF ".BR $code \" ($want)\"" page.out ||
		fail "ghee-check(8) does not list $code as $want"
done < <(sed -n 's/^PROBLEM(\([A-Z0-9_]*\), *\([a-z]*\),.*/\1 \2/p' "$TOP/cmds/check/problems.def")
[ $nr -gt 50 ] || fail "only $nr codes found in problems.def"
# the page renders without troff warnings
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww -z "$man" 2> groff.err
	[ -s groff.err ] && { cat groff.err; fail "groff warns about ghee-check(8)"; }
fi
echo "$nr codes documented"
exit 0
