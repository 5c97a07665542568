#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gen-findings.sh [--lenient] [--update] [MANPAGE]
#
# The FINDINGS section of ghee-check(8), made from the catalog
# cmds/check/problems.def (code, repairable, message) and the causes in
# cmds/check/problems-doc.def.  Prints it; with --update, replaces the
# part of MANPAGE (default man/ghee-check.8) between the BEGIN FINDINGS
# and END FINDINGS comment lines.  Exit 1 naming every code without a
# cause (or cause without a code); with --lenient (the build) such a code
# is listed as not documented yet and the exit status is 0.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
update=0
lenient=0
[ "${1:-}" = --lenient ] && { lenient=1; shift; }
[ "${1:-}" = --update ] && { update=1; shift; }
man=${1:-$top/man/ghee-check.8}
defs=$top/cmds/check/problems.def
docs=$top/cmds/check/problems-doc.def

section()
{
	awk '
	# troff: a backslash is \e, a leading dot or quote must not start a request
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		sub(/^[.\047]/, "\\\\\\&&", s)
		return s
	}
	FNR == 1 { file++ }
	file == 1 && /^CAUSE\(/ {
		line = $0
		sub(/^CAUSE\(/, "", line)
		code = line; sub(/,.*/, "", code)
		text = line; sub(/^[A-Z0-9_]+, *"/, "", text); sub(/"\) *$/, "", text)
		gsub(/\\"/, "\"", text)
		cause[code] = text
		next
	}
	file == 2 && /^\/\* phase [0-9]+:/ {
		title = $0
		sub(/^\/\* /, "", title); sub(/ *\*\/ *$/, "", title)
		print ".SS " toupper(substr(title, 1, 1)) esc(substr(title, 2))
		next
	}
	file == 2 && /^PROBLEM\(/ {
		line = $0
		sub(/^PROBLEM\(/, "", line)
		code = line; sub(/,.*/, "", code)
		rep = line; sub(/^[A-Z0-9_]+, */, "", rep); sub(/,.*/, "", rep)
		msg = line; sub(/^[A-Z0-9_]+, *[a-z]+, *"/, "", msg); sub(/"\) *$/, "", msg)
		gsub(/\\"/, "\"", msg)
		seen[code] = 1
		print ".TP"
		print ".BR " code " \" (" (rep == "true" ? "repairable" : "not repairable") ")\""
		print esc(msg)
		print ".br"
		if (code in cause) {
			print "Usually: " esc(cause[code]) "."
		} else {
			print "Usual causes not documented yet."
			missing = missing " " code
		}
		next
	}
	END {
		for (c in cause)
			if (!(c in seen))
				extra = extra " " c
		if (missing != "")
			print "gen-findings.sh: codes without a CAUSE() in problems-doc.def:" missing > "/dev/stderr"
		if (extra != "")
			print "gen-findings.sh: CAUSE() lines of no PROBLEM() code:" extra > "/dev/stderr"
		if ((missing != "" || extra != "") && !lenient)
			exit 1
	}' lenient=$lenient "$docs" "$defs"
}

out=$(section) || exit 1
if [ $update = 0 ]; then
	printf '%s\n' "$out"
	exit 0
fi
grep -q '^\.\\" BEGIN FINDINGS' "$man" && grep -q '^\.\\" END FINDINGS' "$man" ||
	{ echo "gen-findings.sh: no BEGIN/END FINDINGS lines in $man" >&2; exit 1; }
tmp=$(mktemp "$man.XXXXXX") || exit 1
GEN=$out awk '
	/^\.\\" BEGIN FINDINGS/ { print; print ENVIRON["GEN"]; skip = 1; next }
	/^\.\\" END FINDINGS/ { skip = 0 }
	!skip { print }' "$man" > "$tmp" && chmod --reference="$man" "$tmp" &&
	mv "$tmp" "$man"
