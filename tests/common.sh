# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the image tests; every test.sh starts with
#
#	source "$TOP/tests/common.sh"
#
# tests/run-tests.sh exports, and this file derives when a test.sh is run
# by hand (bash tests/cli-tests/001-help/test.sh):
#   TOP       source tree            BUILDDIR  build tree (default TOP)
#   GHEE      the ghee binary        CORPUS    the shared image corpus
#   CACHE     BUILDDIR/tests/cache (or $GHEE_CACHE): kept between runs, for
#             prepared images
#   TEST_TMP  a fresh directory, removed after the test; the current
#             directory when the test starts; mount things only in here
#   TEST_DIR  the test's own folder in the source tree (read only)
#
# GHEE_TEST_JOBS: how many jobs run_parallel runs at once (default: CPUs).
#
# Exit status of a test: 0 pass, 77 skip (after "SKIP: reason"), else fail.
# Register cleanup with at_exit; do not replace the EXIT trap.

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILDDIR:=$TOP}"
: "${GHEE:=$BUILDDIR/ghee}"
: "${CORPUS:=${GHEE_CORPUS:-$TOP/../shared/corpus}}"
: "${CACHE:=${GHEE_CACHE:-$BUILDDIR/tests/cache}}"
: "${TEST_DIR:=$(cd "$(dirname "$0")" && pwd)}"
: "${GHEE_SAN_EXITCODE:=99}"
export TOP BUILDDIR GHEE CORPUS CACHE TEST_DIR

# exit status of ghee check (fsck(8) bits, see ghee-check(8))
CHECK_CLEAN=0
CHECK_CORRECTED=1
CHECK_ERRORS=4
CHECK_CANNOT=8
CHECK_USAGE=16
CHECK_CANCELLED=32

_GHEE_CLEANUPS=()
_GHEE_MOUNTS=()
declare -A _GHEE_MOUNT_LOOP=()

if [ -z "${TEST_TMP:-}" ]; then
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ghee-test.XXXXXX")
	_GHEE_CLEANUPS+=("rm -rf --one-file-system '$TEST_TMP'")
fi
export TEST_TMP

# run registered cleanups, newest first; then any mount left behind
_ghee_exit_cleanup()
{
	local i dir

	for ((i = ${#_GHEE_MOUNTS[@]} - 1; i >= 0; i--)); do
		dir=${_GHEE_MOUNTS[i]}
		[ -n "$dir" ] && umount_image "$dir" >/dev/null 2>&1
	done
	for ((i = ${#_GHEE_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${_GHEE_CLEANUPS[i]}" || true
	done
}
trap _ghee_exit_cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# at_exit CMD: run the shell command CMD when the test exits
at_exit()
{
	_GHEE_CLEANUPS+=("$*")
}

skip()
{
	echo "SKIP: $*" >&2
	exit 77
}

fail()
{
	echo "FAIL: $*" >&2
	exit 1
}

need_root()
{
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# need_progs [PROG...]: btrfs-progs by default, else the named programs
need_progs()
{
	local p progs=("$@")

	[ ${#progs[@]} -eq 0 ] && progs=(btrfs mkfs.btrfs)
	for p in "${progs[@]}"; do
		command -v "$p" >/dev/null 2>&1 || skip "$p is not installed"
	done
}

need_loop()
{
	need_root
	need_progs losetup
	[ -e /dev/loop-control ] || modprobe loop >/dev/null 2>&1
	losetup -f >/dev/null 2>&1 || skip "no free loop device"
}

need_kernel_btrfs()
{
	grep -qw btrfs /proc/filesystems || modprobe btrfs >/dev/null 2>&1
	grep -qw btrfs /proc/filesystems || skip "the kernel has no btrfs"
}

# true when the installed btrfs-progs is the reference version, v6.2
progs_version_ok()
{
	[ "$(btrfs --version 2>/dev/null | head -n1)" = "btrfs-progs v6.2" ]
}

need_progs_version()
{
	need_progs
	progs_version_ok ||
		skip "reference output needs btrfs-progs v6.2, found '$(btrfs --version 2>&1 | head -n1)'"
}

need_corpus()
{
	[ -r "$CORPUS/MANIFEST.tsv" ] || skip "corpus not found at $CORPUS"
}

# true when status $1 means a crash, a sanitizer report or a timeout rather
# than an orderly exit
_status_is_crash()
{
	[ "$1" -eq "$GHEE_SAN_EXITCODE" ] || [ "$1" -ge 124 ]
}

# run_check_cmd CMD...: CMD must succeed; its stdout is passed through
run_check_cmd()
{
	local rc

	echo "+ $*" >&2
	"$@"
	rc=$?
	[ $rc -eq 0 ] || fail "exit status $rc from: $*"
}

# run_mustfail_cmd CMD...: CMD must fail in an orderly way (no crash)
run_mustfail_cmd()
{
	local rc

	echo "+ (must fail) $*" >&2
	"$@"
	rc=$?
	[ $rc -ne 0 ] || fail "expected failure, got success from: $*"
	_status_is_crash $rc && fail "crash or sanitizer error (status $rc) from: $*"
	return 0
}

# run_expect_status N CMD...: CMD must exit with status N
run_expect_status()
{
	local want=$1 rc

	shift
	echo "+ (expect $want) $*" >&2
	"$@"
	rc=$?
	[ $rc -eq "$want" ] || fail "expected exit status $want, got $rc from: $*"
	return 0
}

# compare_outputs EXPECTED ACTUAL: 0 when equal, else a diff head and 1
compare_outputs()
{
	cmp -s "$1" "$2" && return 0
	echo "outputs differ: $1 vs $2" >&2
	diff -u "$1" "$2" | head -n "${DIFF_LINES:-40}" >&2
	return 1
}

_manifest_field()
{
	awk -F'\t' -v n="$1" -v c="$2" 'NR > 1 && $1 == n { print $c; exit }' \
		"$CORPUS/MANIFEST.tsv"
}

# corpus_names [EXPECTATION]: image names, all or those with that expectation
corpus_names()
{
	need_corpus
	awk -F'\t' -v e="${1:-}" 'NR > 1 && (e == "" || $10 == e) { print $1 }' \
		"$CORPUS/MANIFEST.tsv"
}

# corpus_field NAME COLUMN: one MANIFEST.tsv value, e.g. ref_check_rc
corpus_field()
{
	local col

	need_corpus
	col=$(head -n1 "$CORPUS/MANIFEST.tsv" | tr '\t' '\n' | grep -nx "$2" | cut -d: -f1)
	[ -n "$col" ] || fail "MANIFEST.tsv has no column $2"
	_manifest_field "$1" "$col"
}

# corpus_image NAME: path of the restored (sparse, full size) image in the
# cache, restoring it the first time.  Treat it as read only; use
# corpus_copy for anything that may write.  Use as:
#	img=$(corpus_image NAME) || exit
corpus_image()
{
	local name=$1 xz size img tmp

	need_corpus
	xz=$CORPUS/fsck/$name.raw.xz
	[ -r "$xz" ] || fail "no corpus image $xz"
	size=$(_manifest_field "$name" 4)
	[ -n "$size" ] || fail "$name is not in $CORPUS/MANIFEST.tsv"
	img=$CACHE/corpus/$name.img
	if [ -f "$img" ] && [ "$(stat -c %s "$img")" = "$size" ] &&
	   ! [ "$xz" -nt "$img" ]; then
		echo "$img"
		return 0
	fi
	mkdir -p "$CACHE/corpus" || fail "cannot create $CACHE/corpus"
	tmp=$(mktemp "$CACHE/corpus/.$name.XXXXXX") || fail "mktemp in $CACHE failed"
	# shellcheck disable=SC2216 # cp reads the pipe through /dev/stdin
	if ! xz -dc "$xz" | cp --sparse=always /dev/stdin "$tmp" ||
	   ! truncate -s "$size" "$tmp" || ! mv -f "$tmp" "$img"; then
		rm -f "$tmp"
		fail "cannot restore corpus image $name"
	fi
	echo "$img"
}

# cache_lock DIR: an exclusive lock on DIR/.lock for the rest of the
# (sub)shell, so that tests running side by side (run-tests.sh --jobs)
# build a shared cached thing once: the others wait, then find it built
cache_lock()
{
	local fd

	mkdir -p "$1" || fail "cannot create $1"
	exec {fd}> "$1/.lock" || fail "cannot open $1/.lock"
	flock "$fd" || fail "cannot lock $1/.lock"
}

# cached_base_image DIR RECIPE VERIFY: the path of DIR/base.img, built by
# RECIPE IMG MNT and accepted by VERIFY IMG when missing or when RECIPE's
# code changed (its hash is kept in DIR/base.stamp).  A RECIPE that also
# writes IMG.sums gets it kept as DIR/base.img.sums.  Call in a command
# substitution: the lock lasts as long as the subshell.
cached_base_image()
{
	local dir=$1 recipe=$2 verify=$3 stamp img=$1/base.img tmp

	stamp=$(declare -f "$recipe" | sha256sum | cut -c1-16)
	cache_lock "$dir"
	if ! [ -f "$img" ] || [ "$(cat "$dir/base.stamp" 2>/dev/null)" != "$stamp" ]; then
		need_loop
		need_kernel_btrfs
		tmp=$TEST_TMP/base-build.img
		"$recipe" "$tmp" "$TEST_TMP/base-mnt" >&2 ||
			fail "building the base image of $dir failed"
		"$verify" "$tmp" || fail "the base image of $dir is not clean"
		if [ -f "$tmp.sums" ]; then
			mv -f "$tmp.sums" "$img.sums" || fail "cannot store $img.sums"
		fi
		mv -f "$tmp" "$img" && echo "$stamp" > "$dir/base.stamp" ||
			fail "cannot store the base image in $dir"
	fi
	echo "$img"
}

# run_parallel FUNC ITEM...: FUNC ITEM for every item, one job per CPU at
# a time (GHEE_TEST_JOBS overrides), each in a subshell with its own
# TEST_TMP; what each prints (stdout and stderr) is kept apart and printed
# in item order at the end.  Status 0 when every FUNC returned 0.
run_parallel()
{
	local func=$1 jobs running=0 rc=0 i base=$TEST_TMP/parallel
	local items

	shift
	items=("$@")
	jobs=${GHEE_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
	mkdir -p "$base" || fail "cannot create $base"
	for i in "${!items[@]}"; do
		if [ $running -ge "$jobs" ]; then
			wait -n || rc=1
			running=$((running - 1))
		fi
		(
			TEST_TMP=$base/$i
			mkdir -p "$TEST_TMP" && cd "$TEST_TMP" || exit 1
			"$func" "${items[i]}"
		) > "$base/$i.log" 2>&1 &
		running=$((running + 1))
	done
	while [ $running -gt 0 ]; do
		wait -n || rc=1
		running=$((running - 1))
	done
	for i in "${!items[@]}"; do
		cat "$base/$i.log"
		rm -rf "${base:?}/$i" "$base/$i.log"
	done
	return $rc
}

# corpus_prefetch [NAME...]: restore these images (default all) into the
# cache, one job per CPU, so later corpus_image calls are instant
corpus_prefetch()
{
	local names=("$@")

	[ ${#names[@]} -eq 0 ] && mapfile -t names < <(corpus_names "")
	_corpus_restore() { corpus_image "$1" >/dev/null; }
	run_parallel _corpus_restore "${names[@]}" || fail "restoring corpus images failed"
}

# corpus_copy NAME [DEST]: a private writable copy (default in TEST_TMP)
corpus_copy()
{
	local src dest=${2:-$TEST_TMP/$1.img}

	src=$(corpus_image "$1") || exit
	cp --sparse=always "$src" "$dest" || fail "cannot copy $src to $dest"
	echo "$dest"
}

# source_key: a short key of this source tree ($TOP), for what a cache
# shared by several checkouts (GHEE_SHARE_CACHE) must keep apart
source_key()
{
	printf %s "$TOP" | md5sum | cut -c1-12
}

# fault_injection_build [--sanitizers]: the --enable-fault-injection build
# of this checkout, kept in the cache between runs (the mkfs and the repair
# crash tests share it); its ghee in FGHEE.  --sanitizers: with ASan/UBSan
# when $GHEE has them (the sanitizer pass then judges the error paths the
# faults take)
fault_injection_build()
{
	local fb=$CACHE/mkfs-fault-build conf=(--enable-fault-injection)

	if [ "${1:-}" = --sanitizers ] && grep -q __asan_init "$GHEE" 2>/dev/null; then
		fb=$CACHE/fault-build-asan
		conf+=(--enable-sanitizers)
	fi
	# the cache may be shared with another checkout: never build its sources
	fb=$fb/$(source_key)
	mkdir -p "$fb"
	(
		cache_lock "$fb"
		cd "$fb" || exit 1
		if [ ! -f Makefile ] || [ "$TOP/configure" -nt Makefile ]; then
			[ -x "$TOP/configure" ] || (cd "$TOP" && autoreconf -fi) || exit 1
			"$TOP/configure" -q "${conf[@]}" || exit 1
		fi
		make -j"$(nproc)" ghee >/dev/null || exit 1
	) > "$TEST_TMP/build.log" 2>&1 ||
		{ tail -n 30 "$TEST_TMP/build.log" >&2; fail "the fault-injection build failed"; }
	FGHEE=$fb/ghee
	grep -q 'define GHEE_FAULT_INJECTION 1' "$fb/config.h" || fail "$fb is not a fault-injection build"
}

# fault_sweep VAR MAX TRY [ARGS...]: the crash sweep of a fault-injection
# build.  "TRY VAR N ARGS..." runs it with fault N of VAR (VAR=N: the Nth
# device write, flush or tree block allocation fails) and judges what is
# left (failing the test when that is wrong): status 0 the run went
# through without a fault, 1 a fault was hit.  N = 1, 2, ... (every
# FAULT_STRIDE-th past the 40th) until FAULT_DONE runs in a row (default
# 1) went through; more than MAX steps, or no fault at all, fail the
# test.  FAULTS: how many runs were faulted; FAULT_N: the last N.
fault_sweep()
{
	local var=$1 max=$2 try=$3 n=0 through=0 step

	shift 3
	FAULTS=0
	while [ $through -lt "${FAULT_DONE:-1}" ]; do
		step=1
		[ $n -ge 40 ] && step=${FAULT_STRIDE:-1}
		n=$((n + step))
		[ $n -le "$max" ] || fail "$var: no end after $max steps"
		if "$try" "$var" "$n" "$@"; then
			through=$((through + 1))
		else
			through=0
			FAULTS=$((FAULTS + 1))
		fi
	done
	FAULT_N=$n
	[ "$FAULTS" -gt 0 ] || fail "$var: no fault ever hit: is fault injection working?"
}

# mount_loops DIR OPTS DEV...: mount the btrfs whose devices are the loop
# devices DEV... on DIR.  The members are registered with the kernel first
# (a multi-device mount needs the kernel to know every member, and udev
# registers new loop devices late on a busy machine); a failed mount is
# tried once more after dropping the members' stale registrations.
mount_loops()
{
	local dir=$1 opts=$2

	shift 2
	btrfs device scan "$@" >/dev/null 2>&1
	mount ${opts:+-o "$opts"} "$1" "$dir" 2>/dev/null && return 0
	sleep 1
	# only our own: another test may be mounting its devices meanwhile
	btrfs device scan --forget "$@" >/dev/null 2>&1
	btrfs device scan "$@" >/dev/null 2>&1
	mount ${opts:+-o "$opts"} "$1" "$dir"
}

# detach_file FILE: detach the loop devices backed by FILE (only those: a
# loop device number may be someone else's by the time a test exits)
detach_file()
{
	local dev

	for dev in $(losetup -j "$1" -O NAME -n 2>/dev/null); do
		losetup -d "$dev" 2>/dev/null
	done
}

# mount_image IMG DIR [MOUNT-OPTIONS]: loop-mount IMG on DIR; undone by
# umount_image DIR or at exit
mount_image()
{
	local img=$1 dir=$2 opts=${3:-} dev

	need_loop
	need_kernel_btrfs
	mkdir -p "$dir" || fail "cannot create $dir"
	dev=$(losetup --find --show "$img") || fail "losetup $img failed"
	if ! mount ${opts:+-o "$opts"} "$dev" "$dir"; then
		losetup -d "$dev"
		fail "mount $img on $dir failed"
	fi
	_GHEE_MOUNTS+=("$dir")
	_GHEE_MOUNT_LOOP[$dir]=$dev
}

umount_image()
{
	local dir=$1 dev=${_GHEE_MOUNT_LOOP[$1]:-} i rc=0

	umount "$dir" || { umount -l "$dir"; rc=1; }
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	unset "_GHEE_MOUNT_LOOP[$dir]"
	for i in "${!_GHEE_MOUNTS[@]}"; do
		[ "${_GHEE_MOUNTS[i]}" = "$dir" ] && _GHEE_MOUNTS[i]=
	done
	return $rc
}
