#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install-strip and make install into a DESTDIR: the stripped binary
# runs, the man pages (ghee-check(8) with a finding list made from the
# catalog at build time) and the bash completion are where they belong;
# make uninstall removes every file again.
source "$TOP/tests/common.sh"

[ -f "$BUILDDIR/Makefile" ] || skip "no configured build in $BUILDDIR"
need_progs make file
dest=$TEST_TMP/dest

make -C "$BUILDDIR" -s install-strip DESTDIR="$dest" > make.log 2>&1 ||
	{ cat make.log; fail "make install-strip failed"; }
prefix=$(sed -n 's/^prefix = //p' "$BUILDDIR/Makefile")
bcdir=$(make -C "$BUILDDIR" -s --no-print-directory -f Makefile -f - print-bcdir <<'MK'
print-bcdir:
	@echo $(bashcompletiondir)
MK
)
[ -n "$prefix" ] && [ -n "$bcdir" ] || fail "cannot read prefix / bashcompletiondir from the Makefile"
bin=$dest$prefix/bin/ghee
[ -x "$bin" ] || fail "no $bin"
file "$bin" | grep -q ', stripped' || fail "install-strip left symbols: $(file "$bin")"
"$bin" --version | grep -q '^ghee v' || fail "the installed ghee does not run"
for page in ghee ghee-check ghee-mkfs ghee-dump-tree ghee-dump-super; do
	[ -f "$dest$prefix/share/man/man8/$page.8" ] || fail "man page $page.8 not installed"
done
# ghee-check(8) is installed with the FINDINGS section made at build time
while read -r code; do
	grep -q "^\.BR $code " "$dest$prefix/share/man/man8/ghee-check.8" ||
		fail "installed ghee-check(8) does not list $code"
done < <(sed -n 's/^PROBLEM(\([A-Z0-9_]*\),.*/\1/p' "$TOP/cmds/check/problems.def")
[ -f "$dest$bcdir/ghee" ] || fail "bash completion not installed in $bcdir"
cmp -s "$dest$bcdir/ghee" "$TOP/contrib/bash-completion/ghee" || fail "installed completion differs"
bash -n "$dest$bcdir/ghee" || fail "installed completion is not valid bash"

make -C "$BUILDDIR" -s uninstall DESTDIR="$dest" > make.log 2>&1 ||
	{ cat make.log; fail "make uninstall failed"; }
left=$(find "$dest" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"

# plain install keeps the symbols (the build has them unless CFLAGS said otherwise)
make -C "$BUILDDIR" -s install DESTDIR="$dest" > make.log 2>&1 ||
	{ cat make.log; fail "make install failed"; }
[ -x "$bin" ] || fail "make install: no $bin"
"$bin" help check | grep -q '^usage: ghee check' || fail "installed ghee help check"
echo "installed under $dest$prefix, completion in $bcdir"
exit 0
