# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the mkfs tests; a test.sh starts with
#
#	source "$TOP/tests/common.sh"
#	source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
#
# Images are sparse files in $TEST_TMP; mounts happen there too.

MKFS_LIB_DIR=$TOP/tests/mkfs-tests
MASK_SED=$MKFS_LIB_DIR/mask-dump.sed

need_ghee()
{
	[ -x "$GHEE" ] || fail "ghee is not built: $GHEE"
	"$GHEE" mkfs --help >/dev/null 2>&1 || skip "this ghee has no mkfs command"
}

# new_image PATH SIZE: a fresh sparse file
new_image()
{
	rm -f "$1"
	truncate -s "$2" "$1" || fail "cannot create $1 ($2)"
}

# ghee_mkfs ARGS...: run ghee mkfs quietly; on failure show its output
ghee_mkfs()
{
	local out rc

	out=$("$GHEE" mkfs -q -f "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$out" >&2
		fail "ghee mkfs $* exited with $rc"
	fi
}

# check_image IMG [MORE-DEVICES...]: btrfs check (read only) and ghee
# check must be clean
check_image()
{
	local out rc

	out=$(btrfs check --readonly "$1" 2>&1)
	rc=$?
	# device scanning trips over other loop devices; that is not ours
	if [ $rc -ne 0 ] || ! echo "$out" | grep -q 'no error found' ||
	   echo "$out" | grep -v 'cannot scan /dev/' |
	   grep -qE '^(ERROR|WARNING|error|warning)'; then
		echo "$out" >&2
		fail "btrfs check of $1 is not clean (exit $rc)"
	fi
	out=$("$GHEE" check -q --no-progress "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$out" >&2
		fail "ghee check of $* is not clean (exit $rc)"
	fi
}

# attach_devices IMG...: loop devices for multi-device images, so the
# kernel and btrfs check find every member; the first is LOOP_FIRST.  Not
# in a subshell: they are recorded for detach_devices and for the exit.
attach_devices()
{
	local img dev

	need_loop
	LOOP_FIRST=
	for img in "$@"; do
		dev=$(losetup --find --show "$img") || fail "losetup $img failed"
		at_exit "detach_file '$img'"
		[ -z "$LOOP_FIRST" ] && LOOP_FIRST=$dev
		LOOP_DEVS+=("$dev")
	done
	btrfs device scan "${LOOP_DEVS[@]}" >/dev/null 2>&1
}

# detach_devices: undo attach_devices (before the images are rewritten)
detach_devices()
{
	local dev

	for dev in "${LOOP_DEVS[@]}"; do
		btrfs device scan --forget "$dev" >/dev/null 2>&1
		losetup -d "$dev" 2>/dev/null
	done
	LOOP_DEVS=()
}
LOOP_DEVS=()

# dump_masked DEV: progs' dump-tree with addresses, UUIDs, times masked
dump_masked()
{
	btrfs inspect-internal dump-tree "$1" 2>/dev/null | sed -E -f "$MASK_SED"
}

# tree_shape DEV: "TREE KEY_TYPE itemsize" per item, sorted and counted:
# which trees hold which kinds of items
tree_shape()
{
	btrfs inspect-internal dump-tree "$1" 2>/dev/null | awk '
		/^[a-z][a-z ]* tree( key|$)/ {
			tree = $0
			sub(/ key .*/, "", tree)
			sub(/ tree$/, "", tree)
			gsub(/ /, "_", tree)
		}
		/^\titem [0-9]+ key / {
			t = $5
			for (i = 1; i <= NF; i++)
				if ($i == "itemsize") size = $(i + 1)
			print tree, t, size
		}' | sort | uniq -c
}

# step WHAT CMD...: run one workload step, saying which one failed
step()
{
	local what=$1

	shift
	"$@" || { echo "workload step failed: $what" >&2; return 1; }
}

_write_big()
{
	python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
block = bytes(range(256)) * 4096
for i in range(100):
    os.write(fd, block[i:] + block[:i])
os.fsync(fd)
os.close(fd)
PY
}

_delete_half()
{
	local f i=0

	while IFS= read -r f; do
		i=$((i + 1))
		[ $((i % 2)) -eq 0 ] && { rm -f "$f" || return 1; }
	done < <(find "$1" -type f | sort)
	sync
}

# workload MNT: what a new filesystem must take: copy a tree of files,
# write 100 MB and fsync it, delete half, a subvolume and snapshots, scrub
# and a full balance
workload()
{
	local mnt=$1

	step "mkdir" mkdir -p "$mnt/tree" || return 1
	step "copy a tree" cp -a "$TOP/kernel-shared" "$TOP/cmds" \
		"$TOP/tests/images" "$mnt/tree/" || return 1
	step "write 100 MB" _write_big "$mnt/big" || return 1
	step "delete half" _delete_half "$mnt/tree" || return 1
	step "subvolume create" btrfs subvolume create "$mnt/sub" >/dev/null || return 1
	step "copy into the subvolume" cp -a "$mnt/tree/cmds" "$mnt/sub/" || return 1
	step "snapshot" btrfs subvolume snapshot "$mnt/sub" "$mnt/snap" >/dev/null || return 1
	step "read-only snapshot" btrfs subvolume snapshot -r "$mnt" "$mnt/snap-ro" >/dev/null || return 1
	sync
	step "scrub" btrfs scrub start -B "$mnt" >/dev/null || return 1
	step "balance" btrfs balance start --full-balance "$mnt" >/dev/null || return 1
	step "compare the snapshot" diff -r "$mnt/sub" "$mnt/snap" || return 1
	step "size of the big file" test "$(stat -c %s "$mnt/big")" = 104857600 || return 1
}

# mount_workload_check IMG|DEV [MORE...]: mount read-write, run the
# workload, unmount, check again
mount_workload_check()
{
	local mnt=$TEST_TMP/mnt dev=$1

	need_kernel_btrfs
	mkdir -p "$mnt"
	if [ -b "$dev" ]; then
		mount -t btrfs "$dev" "$mnt" || { dmesg | tail -n 20 >&2; fail "mount $dev failed"; }
	else
		mount -t btrfs -o loop "$dev" "$mnt" || { dmesg | tail -n 20 >&2; fail "mount $dev failed"; }
	fi
	if ! workload "$mnt"; then
		umount "$mnt"
		fail "workload on $dev failed"
	fi
	umount "$mnt" || fail "umount $dev failed"
	check_image "$dev"
}

# compare_dump_tree DEV: ghee's dump-tree must print what progs' prints
# (after the first line, which names the program)
compare_dump_tree()
{
	"$GHEE" dump-tree "$1" 2> "$TEST_TMP/ghee.err" | tail -n +2 > "$TEST_TMP/ghee.dump"
	[ "${PIPESTATUS[0]}" = 0 ] ||
		{ cat "$TEST_TMP/ghee.err" >&2; fail "ghee dump-tree $1 failed"; }
	[ -s "$TEST_TMP/ghee.err" ] && { cat "$TEST_TMP/ghee.err" >&2; fail "ghee dump-tree $1 complained"; }
	# (progs' stderr has device scan noise about unrelated loop devices)
	btrfs inspect-internal dump-tree "$1" 2>/dev/null | tail -n +2 > "$TEST_TMP/progs.dump"
	[ "${PIPESTATUS[0]}" = 0 ] || fail "btrfs dump-tree $1 failed"
	compare_outputs "$TEST_TMP/progs.dump" "$TEST_TMP/ghee.dump" ||
		fail "ghee dump-tree differs from btrfs-progs on $1"
}
