#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion (contrib/bash-completion/ghee), sourced in bash and
# called as bash calls it: commands, 'help CMD', every option of every
# command's --help, option values spelled a|b in the help, file names for
# devices; and a command or option added later (a fake ghee whose help
# lists more) completes without changing the script.
source "$TOP/tests/common.sh"

[ -x "$GHEE" ] || fail "ghee is not built: $GHEE"
comp=$TOP/contrib/bash-completion/ghee
[ -r "$comp" ] || fail "no $comp"

# complete GHEE WORD...: what _ghee offers for the last word, one a line
complete_words()
{
	bash -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		_ghee
		printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}

# expect WANT... -- GHEE WORD...: each WANT is offered
expect()
{
	local want=() got w

	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	got=$(complete_words "$@") || fail "completion failed for: $*"
	for w in "${want[@]}"; do
		grep -qxF -- "$w" <<< "$got" ||
			fail "completing '$*' does not offer '$w' (offers: $(echo $got))"
	done
}

# refuse UNWANTED... -- GHEE WORD...: none of these is offered
refuse()
{
	local bad=() got w

	while [ "$1" != -- ]; do bad+=("$1"); shift; done
	shift
	got=$(complete_words "$@")
	for w in "${bad[@]}"; do
		grep -qxF -- "$w" <<< "$got" && fail "completing '$*' offers '$w'"
	done
	return 0
}

expect check dump-tree dump-super mkfs help -- "$GHEE" ""
expect check -- "$GHEE" ch
refuse mkfs dump-tree -- "$GHEE" ch
expect dump-super dump-tree -- "$GHEE" help d
expect --no-progress -- "$GHEE" check --no-
expect text json -- "$GHEE" check --format ""
refuse --force -- "$GHEE" check --format ""
expect --follow --csum-items -b -t -- "$GHEE" dump-tree -
expect --metadata --nodesize -- "$GHEE" mkfs --
touch "$TEST_TMP/image-one.img"
expect "$TEST_TMP/image-one.img" -- "$GHEE" check "$TEST_TMP/image-"
expect "$TEST_TMP/image-one.img" -- "$GHEE" dump-tree -t fs "$TEST_TMP/image-"

# every option of every command's --help
nr=0
mapfile -t cmds < <("$GHEE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for cmd in "${cmds[@]}"; do
	got=$(complete_words "$GHEE" "$cmd" -)
	mapfile -t opts < <("$GHEE" "$cmd" --help |
		grep -oE -- '^[[:space:]]+-[^[:space:]]+(, --?[^[:space:]]+)?' |
		grep -oE -- '--?[A-Za-z0-9][-A-Za-z0-9]*')
	[ ${#opts[@]} -gt 2 ] || fail "found only ${#opts[@]} options in ghee $cmd --help"
	for opt in "${opts[@]}"; do
		nr=$((nr + 1))
		grep -qxF -- "$opt" <<< "$got" || fail "completion of 'ghee $cmd -' lacks $opt"
	done
done

# commands and options added later
cat > "$TEST_TMP/ghee-new" <<FAKE
#!/bin/bash
if [ "\$1" = --help ]; then
	"$GHEE" --help | sed 's/^commands:\$/commands:\n  frobnicate         a command added later/'
elif [ "\$1" = frobnicate ]; then
	printf 'usage: ghee frobnicate\n\n  --level N     how much\n  --mode fast|slow  how\n  -x, --extra   more\n'
else
	exec "$GHEE" "\$@"
fi
FAKE
chmod +x "$TEST_TMP/ghee-new"
expect frobnicate check -- "$TEST_TMP/ghee-new" ""
expect --level --mode -x --extra -- "$TEST_TMP/ghee-new" frobnicate -
expect fast slow -- "$TEST_TMP/ghee-new" frobnicate --mode ""
echo "${#cmds[@]} commands, $nr options complete"
exit 0
