#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dump-free-space, usage, tree-stats: --help lists every option of the
# man page's OPTIONS section; bad options, values and devices give the
# documented exit codes (2 usage, 1 cannot read), never a crash.
source "$TOP/tests/common.sh"

[ -x "$GHEE" ] || fail "ghee is not built: $GHEE"
for cmd in dump-free-space usage tree-stats; do
	"$GHEE" $cmd --help > "$TEST_TMP/help" || fail "$cmd --help failed"
	opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$TOP/man/ghee-$cmd.8" |
		grep -o '\\-\\-[a-z][a-z-]*' | sed 's/\\//g' | sort -u)
	[ -n "$opts" ] || fail "no options found in ghee-$cmd.8"
	for o in $opts; do
		grep -q -- "$o" "$TEST_TMP/help" || fail "ghee $cmd --help does not list $o"
	done
	run_expect_status 2 "$GHEE" $cmd
	run_expect_status 2 "$GHEE" $cmd --no-such-option x
	run_expect_status 2 "$GHEE" $cmd --format yaml x
	run_expect_status 1 "$GHEE" $cmd "$TEST_TMP/does-not-exist"
	head -c 1M /dev/zero > "$TEST_TMP/zeros"
	run_expect_status 1 "$GHEE" $cmd "$TEST_TMP/zeros"
done
run_expect_status 2 "$GHEE" dump-free-space --source nowhere x
run_expect_status 2 "$GHEE" dump-free-space --compare nowhere x
run_expect_status 2 "$GHEE" dump-free-space --block-group 12x x
run_expect_status 2 "$GHEE" tree-stats -t nosuchtree x
exit 0
