#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Crash safety of --init-csum-tree and --init-extent-tree: a
# --enable-fault-injection build fails
# the Nth device write (GHEE_FAIL_WRITE_AT=N) or flush (GHEE_FAIL_FLUSH_AT=N)
# of the rebuild, for every N until it runs through.  Afterwards the image
# checks exactly as before with the same primary superblock byte for byte
# (the old tree: no commit of the repair, the rebuild's nor a later
# phase's, wrote a superblock) or is clean (the new one).

source "$TOP/tests/common.sh"
source "$TOP/tests/fsck-tests/lib/repair-lib.sh"
source "$TOP/tests/fsck-tests/lib/rebuild-lib.sh"
need_progs make gcc python3

fault_injection_build

findings()
{
	"$GHEE" check -q "$1" 2>/dev/null | grep '^ERROR: \[' | sort
}

# faults DAMAGED_IMG VARIABLE [OPTION]
faults()
{
	local damaged=$1 var=$2 opt=${3:---init-csum-tree} n=1 img=$TEST_TMP/try.img rc hit sb

	findings "$damaged" > "$TEST_TMP/before"
	sb=$(super_digest "$damaged")
	while :; do
		cp --sparse=always "$damaged" "$img"
		env "$var=$n" "$FGHEE" check --repair "$opt" -q "$img" > "$TEST_TMP/try.out" 2> "$TEST_TMP/try.err"
		rc=$?
		_status_is_crash $rc && { cat "$TEST_TMP/try.err" >&2; fail "$var=$n: crash (status $rc)"; }
		hit=$(grep -c "fault injection" "$TEST_TMP/try.err")
		findings "$img" > "$TEST_TMP/after"
		if [ -s "$TEST_TMP/after" ] && ! cmp -s "$TEST_TMP/before" "$TEST_TMP/after"; then
			diff "$TEST_TMP/before" "$TEST_TMP/after" >&2
			fail "$var=$n: the image is neither the old one nor rebuilt"
		fi
		if [ -s "$TEST_TMP/after" ] && [ "$(super_digest "$img")" != "$sb" ]; then
			fail "$var=$n: the old findings under a new primary superblock"
		fi
		"$GHEE" check --check-data-csum -q "$img" > /dev/null 2>&1 || [ -s "$TEST_TMP/before" ] ||
			fail "$var=$n: data checksums wrong after the fault"
		if [ "$hit" -eq 0 ]; then
			[ -s "$TEST_TMP/after" ] && fail "$var=$n: the rebuild without faults left findings"
			break
		fi
		[ $((rc & CHECK_CANNOT)) -ne 0 ] || fail "$var=$n: a failed write, yet status $rc"
		n=$((n + 1))
		[ $n -le 400 ] || fail "$var: more than 400 faults, the rebuild never completes"
	done
	echo "$opt $var: $((n - 1)) faulted runs" >&2
	[ $n -gt 1 ] || fail "$var: the first write/flush never failed"
}

base=$(rebuild_base_image) || exit
cp --sparse=always "$base" "$TEST_TMP/clean.img"
faults "$TEST_TMP/clean.img" GHEE_FAIL_WRITE_AT
faults "$TEST_TMP/clean.img" GHEE_FAIL_FLUSH_AT

cp --sparse=always "$base" "$TEST_TMP/moved.img"
read -r obj type off < <(python3 "$EDIT" "$TEST_TMP/moved.img" first 7 128) || fail "no csum item"
python3 "$EDIT" "$TEST_TMP/moved.img" set-key 7 "$obj" "$type" "$off" "$obj" "$type" 0 || fail "edit failed"
faults "$TEST_TMP/moved.img" GHEE_FAIL_WRITE_AT
faults "$TEST_TMP/moved.img" GHEE_FAIL_FLUSH_AT

# the extent tree: undamaged, and with a data extent's ref count wrong
faults "$TEST_TMP/clean.img" GHEE_FAIL_WRITE_AT --init-extent-tree
faults "$TEST_TMP/clean.img" GHEE_FAIL_FLUSH_AT --init-extent-tree
cp --sparse=always "$base" "$TEST_TMP/refs.img"
read -r dobj _ doff < <(python3 "$EDIT" "$TEST_TMP/refs.img" first 2 168) || fail "no data extent item"
python3 "$EDIT" "$TEST_TMP/refs.img" add-item 2 "$dobj" 168 "$doff" 0 8 1 || fail "edit failed"
faults "$TEST_TMP/refs.img" GHEE_FAIL_WRITE_AT --init-extent-tree
faults "$TEST_TMP/refs.img" GHEE_FAIL_FLUSH_AT --init-extent-tree
