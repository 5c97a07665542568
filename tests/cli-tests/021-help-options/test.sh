#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command (as 'ghee --help' lists them): 'ghee help CMD' prints what
# 'ghee CMD --help' prints; -V and --version print the version; every
# option of its getopt_long() tables (long names and the short option
# string, read from the command's sources) appears in its --help; an
# unknown option is an "ERROR: unknown option" usage error.  Options that
# are accepted only to be refused with a reason are listed below.
source "$TOP/tests/common.sh"

[ -x "$GHEE" ] || fail "ghee is not built: $GHEE"
version=$("$GHEE" --version) || fail "ghee --version failed"

# refused options that --help need not list: CMD:OPTION
declare -A REFUSED=(
	[mkfs:--leafsize]="removed from btrfs-progs too, refused with a pointer to --nodesize"
	[mkfs:-l]="short form of --leafsize"
)
# mkfs lists --rootdir only once it works; until then it must refuse it
if ! "$GHEE" mkfs --help | grep -q -- '--rootdir'; then
	REFUSED[mkfs:--rootdir]="not implemented yet, refused"
	REFUSED[mkfs:-r]="short form of --rootdir"
fi

# sources CMD: the C files of a command: the file defining the function
# the command table of cmds/main.c names for it, and when that file is in
# a folder of its own under cmds/, the other files there
sources()
{
	local fn file dir

	fn=$(sed -n "s/.*{ *\"$1\", *\"[^\"]*\", *\([a-z_0-9]*\) *}.*/\1/p" "$TOP/cmds/main.c")
	[ -n "$fn" ] || return 0
	file=$(grep -lE "^int $fn\(" "$TOP"/cmds/*.c "$TOP"/cmds/*/*.c 2>/dev/null | head -n1)
	[ -n "$file" ] || return 0
	dir=$(dirname "$file")
	if [ "$dir" = "$TOP/cmds" ]; then
		echo "$file"
	else
		ls "$dir"/*.c
	fi
}

# options FILE...: every "--long" of the struct option tables and every
# "-x" of the getopt_long() short option strings in FILE
options()
{
	python3 - "$@" <<'PY'
import re, sys
out = set()
for path in sys.argv[1:]:
    src = open(path).read()
    for table in re.findall(r'struct option\s+\w+\[\]\s*=\s*\{(.*?)\n\s*\};', src, re.S):
        for name in re.findall(r'\{\s*"([^"]+)"\s*,', table):
            out.add('--' + name)
    for shorts in re.findall(r'getopt_long\s*\([^,]+,[^,]+,\s*"([^"]*)"', src):
        for ch in shorts:
            if ch != ':':
                out.add('-' + ch)
print('\n'.join(sorted(out)))
PY
}

mapfile -t cmds < <("$GHEE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ ${#cmds[@]} -ge 4 ] || fail "ghee --help lists ${#cmds[@]} commands"
nr_opts=0
for cmd in "${cmds[@]}"; do
	mapfile -t files < <(sources "$cmd")
	[ ${#files[@]} -gt 0 ] || fail "no sources found for $cmd (the function cmds/main.c names for it)"
	"$GHEE" "$cmd" --help > help.out 2> help.err || fail "ghee $cmd --help failed"
	[ -s help.err ] && fail "ghee $cmd --help printed on stderr"
	"$GHEE" help "$cmd" > help2.out || fail "ghee help $cmd failed"
	cmp -s help.out help2.out || fail "ghee help $cmd differs from ghee $cmd --help"
	for v in -V --version; do
		out=$("$GHEE" "$cmd" $v) || fail "ghee $cmd $v failed"
		[[ $out == *"$version"* ]] || fail "ghee $cmd $v printed '$out', not '$version'"
	done
	mapfile -t opts < <(options "${files[@]}")
	[ ${#opts[@]} -gt 2 ] || fail "found only ${#opts[@]} options of $cmd in ${files[*]}"
	for opt in "${opts[@]}"; do
		nr_opts=$((nr_opts + 1))
		if [ -n "${REFUSED[$cmd:$opt]:-}" ]; then
			grep -qw -- "$opt" help.out && continue
			run_mustfail_cmd "$GHEE" "$cmd" "$opt" x y 2> err.out
			grep -q '^ERROR: ' err.out || fail "$cmd $opt is refused without an ERROR line"
			continue
		fi
		grep -qE -- "(^|[^-a-z])$opt([^-a-z]|$)" help.out ||
			fail "ghee $cmd accepts $opt but its --help does not list it"
	done
	run_mustfail_cmd "$GHEE" "$cmd" --no-such-option x 2> err.out
	grep -q "^ERROR: unknown option '--no-such-option'" err.out ||
		{ cat err.out; fail "ghee $cmd: no ERROR line for an unknown option"; }
done
run_expect_status 2 "$GHEE" help no-such-command 2> err.out
grep -q "^ERROR: unknown command 'no-such-command'" err.out || fail "no ERROR for an unknown command"
echo "${#cmds[@]} commands, $nr_opts options, all in --help"
exit 0
