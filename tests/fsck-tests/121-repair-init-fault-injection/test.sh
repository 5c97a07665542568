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

# one rebuild with write/flush N failing: the data checksums stay right
try_rebuild()
{
	local var=$1 n=$2 damaged=$3 opt=$4 ret=0

	repair_fault_run "$var" "$n" "$damaged" "$opt" -q || ret=1
	# repaired (nothing left): its data checksums are right
	[ -s "$TEST_TMP/after" ] ||
		"$GHEE" check --check-data-csum -q "$TEST_TMP/try.img" > /dev/null 2>&1 ||
		fail "$var=$n: data checksums wrong after the fault"
	return $ret
}

# faults DAMAGED_IMG VARIABLE [OPTION]
faults()
{
	local damaged=$1 var=$2 opt=${3:---init-csum-tree}

	sorted_findings "$damaged" > "$TEST_TMP/before"
	fault_sweep "$var" 400 try_rebuild "$damaged" "$opt"
	echo "$opt $var: $FAULTS faulted runs" >&2
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
