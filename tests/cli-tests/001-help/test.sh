#!/bin/bash
# ghee --help lists every command; an unknown command is a usage error (2).
source "$TOP/tests/common.sh"

[ -x "$GHEE" ] || fail "ghee is not built: $GHEE"

run_check_cmd "$GHEE" --help > help.out
cat help.out
for cmd in dump-super dump-tree; do
	grep -q "^  $cmd " help.out || fail "'ghee --help' does not list $cmd"
done

run_expect_status 2 "$GHEE" nosuchcmd
run_expect_status 2 "$GHEE"
exit 0
