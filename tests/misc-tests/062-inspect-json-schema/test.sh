#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The JSON of dump-free-space, usage and tree-stats validates against the
# JSON Schema in each one's man page: on a kernel-written image (every
# option that changes the document: -x, --histogram, --block-group,
# --compare, each source), on a filesystem without free space tree, and
# on a damaged image (error fields).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/extents-lib.sh"
need_progs mkfs.btrfs python3
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c "import jsonschema" 2>/dev/null || skip "python3-jsonschema is not installed"

img=$(fsck_base_image) || exit
# json_of CMD...: run, keep the document (the exit status may be 1)
json_of()
{
	local rc out

	out=$(mktemp "$TEST_TMP/doc.XXXXXX.json")
	"$GHEE" "$@" --format json > "$out" 2>/dev/null
	rc=$?
	[ $rc -le 1 ] || fail "exit status $rc from ghee $*"
	_status_is_crash $rc && fail "crash from ghee $*"
	echo "$out"
}

validate()
{
	local page=$1

	shift
	"$PY" "$TEST_DIR/validate.py" "$TOP/man/ghee-$page.8" "$@" ||
		fail "JSON of ghee $page does not validate against its man page"
}

v1=$TEST_TMP/v1.img
truncate -s 512M "$v1"
mkfs.btrfs -q -f -R ^free-space-tree "$v1" >/dev/null 2>&1 || fail "mkfs.btrfs failed"

bg=$("$GHEE" dump-free-space --format json "$img" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["block_groups"][0]["start"])')
files=()
for f in "$img" "$v1"; do
	files+=("$(json_of dump-free-space "$f")")
	files+=("$(json_of dump-free-space -x --histogram "$f")")
	files+=("$(json_of dump-free-space --source extents --histogram "$f")")
	files+=("$(json_of dump-free-space --source cache "$f")")
	files+=("$(json_of dump-free-space --source extents --compare tree "$f")")
	files+=("$(json_of dump-free-space --source cache --compare extents "$f")")
done
files+=("$(json_of dump-free-space --block-group "$bg" -x "$img")")
validate dump-free-space "${files[@]}"
validate usage "$(json_of usage "$img")" "$(json_of usage "$v1")"
validate tree-stats "$(json_of tree-stats "$img")" "$(json_of tree-stats -t fs -t 256 "$img")" \
	"$(json_of tree-stats "$v1")"

# damaged: one free space extent shortened, then a leaf of that tree unreadable
read -r start type len < <(python3 "$EDIT" "$img" first 10 199) || fail "no free space extent"
python3 "$EDIT" "$img" set-key 10 "$start" 199 "$len" "$start" 199 $((len - 4096)) || fail "edit failed"
validate dump-free-space "$(json_of dump-free-space --compare extents "$img")"
leaf=$(python3 "$EDIT" "$img" leaf-of 10 "$start" 199 $((len - 4096))) || fail "leaf-of failed"
python3 "$EDIT" "$img" break-csum "$leaf" || fail "break-csum failed"
damaged=$(json_of dump-free-space -x "$img")
validate dump-free-space "$damaged" "$(json_of dump-free-space --compare extents "$img")"
validate usage "$(json_of usage "$img")"
validate tree-stats "$(json_of tree-stats "$img")"
grep -q '"error"' "$damaged" || fail "the damaged image's JSON has no error field"
exit 0
