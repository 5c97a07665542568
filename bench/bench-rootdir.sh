#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-rootdir.sh: making a filesystem image from a directory tree:
# `ghee mkfs --rootdir`, `mkfs.btrfs --rootdir` of btrfs-progs 6.2 and 6.19
# and `mke2fs -t ext4 -d` (same image size), timed alternately in one run,
# each into a fresh image file (the previous run's deleted before the clock
# starts) that is fsynced (sync FILE) before the clock
# stops.  The tree comes from tests/tools/gen-tree.py and is cached in
# $BENCH_CACHE (rebuilt when the generator or the parameters change):
#   --big    about 300,000 files / 3.4 GB (log-normal sizes, median 2 KiB,
#            sparse files, 2% hard links, 3% symlinks, xattrs on 3%)
#   --small  20,000 files (default)
#   --files N [--total SIZE]   any other size (for a quick try)
#   --tree DIR   an existing tree instead (e.g. one another checkout made)
# Before timing, the tree is read twice with cat; the second (warm) read
# is printed as the read floor.  Then: wall time, CPU time (user + system,
# all threads) and peak RSS of each command (medians of BENCH_RUNS,
# default 3; 1 for --big, where the untimed warm-up run is also left
# out), the ratios ghee/6.2, ghee/6.19, ghee/mke2fs (wall and CPU) and
# ghee's RSS per file; with --compress zstd, ghee with one compressing
# thread (GHEE_MKFS_THREADS=1) against one per CPU, and progs 6.19 with
# --compress (time and bytes used); after --shrink, ghee against 6.19:
# image size, allocated bytes, bytes used, metadata bytes and the extent
# and csum item counts.  The load average is printed with each part: on
# a shared machine wall times are only as good as it is low.
#
# The ghee runs are skipped with a message while `ghee mkfs` has no
# --rootdir (or --compress, --shrink); the rest still runs.
#
# usage: bench/bench-rootdir.sh [--small|--big|--files N [--total SIZE]|--tree DIR]
#                               [--runs N] [--no-compress] [--no-shrink]
#   GHEE=path/to/ghee (default ./ghee), BENCH_CACHE, BENCH_RUNS, BENCH_WARMUP
#
# Exit: 0 ok (also when ghee is skipped), 1 a command failed, 77 this
# machine cannot run it (not root, tools missing).

source "$(dirname "$0")/lib.sh"

GEN_TREE=$BENCH_TOP/tests/tools/gen-tree.py
PROGS619=${PROGS619:-/work/shared/tools/btrfs-progs-6.19}
FILES=20000
TOTAL=
DO_COMPRESS=1
DO_SHRINK=1
BIG=0
USE_TREE=

while [ $# -gt 0 ]; do
	case "$1" in
	--small) FILES=20000; TOTAL= ;;
	--big)	FILES=300000; TOTAL=3400M; BIG=1 ;;
	--files) FILES=$2; shift ;;
	--total) TOTAL=$2; shift ;;
	--tree)	USE_TREE=$2; shift ;;
	--runs)	BENCH_RUNS=$2; shift ;;
	--no-compress) DO_COMPRESS=0 ;;
	--no-shrink) DO_SHRINK=0 ;;
	-h|--help) sed -n '4,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*)	bench_die "unknown argument '$1'" ;;
	esac
	shift
done
if [ "$BIG" = 1 ]; then
	# heavy: one timed run of each, no warm-up run (the cat warmed the cache)
	BENCH_RUNS=${BENCH_RUNS_BIG:-1}
	BENCH_WARMUP=${BENCH_WARMUP_BIG:-0}
fi

[ "$(id -u)" = 0 ] || bench_skip "the tree has devices and owners: needs root"
for cmd in python3 mkfs.btrfs mke2fs taskset sync; do
	command -v "$cmd" >/dev/null 2>&1 || bench_skip "missing $cmd"
done
MKFS62=$(command -v mkfs.btrfs)
MKFS619=$PROGS619/mkfs.btrfs
[ -x "$MKFS619" ] || MKFS619=
DUMP_TREE=(btrfs inspect-internal dump-tree)

GHEE_BIN=$(bench_ghee)
GHEE_ROOTDIR=0
GHEE_COMPRESS=0
GHEE_SHRINK=0
if [ -n "$GHEE_BIN" ]; then
	help=$("$GHEE_BIN" mkfs --help 2>&1)
	grep -q -- "--rootdir" <<< "$help" && GHEE_ROOTDIR=1
	grep -q -- "--compress" <<< "$help" && GHEE_COMPRESS=1
	grep -q -- "--shrink" <<< "$help" && GHEE_SHRINK=1
	"$GHEE_BIN" dump-tree --help >/dev/null 2>&1 && DUMP_TREE=("$GHEE_BIN" dump-tree)
fi
[ "$GHEE_ROOTDIR" = 1 ] ||
	echo "note: ${GHEE_BIN:-ghee} mkfs has no --rootdir yet: the ghee runs are skipped"

# ---- the tree (cached) ----

tree_hash()
{
	{
		cat "$GEN_TREE" "$BENCH_TOP/tests/tools/posix_acl.py"
		echo "$FILES $TOTAL"
	} | sha256sum | cut -c1-16
}

mkdir -p "$BENCH_CACHE" || bench_die "cannot create $BENCH_CACHE"
exec 8> "$BENCH_CACHE/.lock-rootdir"
flock 8
TREE=$BENCH_CACHE/rootdir-tree-$FILES-$(tree_hash)
if [ -n "$USE_TREE" ]; then
	[ -d "$USE_TREE" ] || bench_die "--tree $USE_TREE is not a directory"
	TREE=$(cd "$USE_TREE" && pwd)
	FILES=$(basename "$TREE")
	if [ ! -f "$TREE.done" ]; then
		TREE_DONE=$(mktemp "${TMPDIR:-/tmp}"/ghee-bench-tree.XXXXXX)
		{
			echo "paths $(find "$TREE" | wc -l)"
			echo "bytes $(du -s -B1 "$TREE" | cut -f1)"
		} > "$TREE_DONE"
	fi
elif [ ! -f "$TREE.done" ]; then
	rm -rf "$TREE" "$TREE.tmp" "$BENCH_CACHE"/rootdir-tree-"$FILES"-*
	start=$(bench_now_ns)
	python3 "$GEN_TREE" --seed 1 --files "$FILES" ${TOTAL:+--total-size "$TOTAL"} \
		"$TREE.tmp" >&2 || bench_die "gen-tree failed"
	mv "$TREE.tmp" "$TREE" || bench_die "cannot move the tree into place"
	{
		echo "paths $(find "$TREE" | wc -l)"
		echo "bytes $(du -s -B1 "$TREE" | cut -f1)"
	} > "$TREE.done"
	echo "bench: generated $TREE in $(awk -v d=$(($(bench_now_ns) - start)) \
		'BEGIN { printf "%.1f", d / 1e9 }')s" >&2
fi
TREE_DONE=${TREE_DONE:-$TREE.done}
NPATHS=$(awk '$1 == "paths" { print $2 }' "$TREE_DONE")
NBYTES=$(awk '$1 == "bytes" { print $2 }' "$TREE_DONE")
if [[ $TREE_DONE == /tmp/* ]]; then rm -f "$TREE_DONE"; fi
# room for the data twice over (btrfs metadata, DUP), at least 1 GiB
SIZE=$(( (NBYTES * 2 / 1048576 + 512) ))M
[ "${SIZE%M}" -ge 1024 ] || SIZE=1024M
echo "tree: $TREE"
echo "      $NPATHS paths, $((NBYTES / 1048576)) MiB allocated; images of $SIZE"
bench_load

TMPD=$(mktemp -d /var/tmp/ghee-bench-rootdir.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT
# run-one IMG CMD...: a fresh sparse image, CMD, then fsync the image
cat > "$TMPD/run-one" <<EOF
#!/bin/bash
img=\$1
shift
rm -f "\$img" && truncate -s $SIZE "\$img" && "\$@" && sync "\$img"
EOF
chmod +x "$TMPD/run-one"

# run_cmd NAME CMD...: the command string making image NAME with CMD IMG
run_cmd()
{
	local img=$TMPD/$1

	shift
	printf '%q ' "$TMPD/run-one" "$img" "$@" "$img"
}

# add_run LABEL NAME CMD...: a timed command making image NAME; the
# previous run's image is deleted before the clock starts (deleting a
# large file takes ext4 a few tenths of a second)
add_run()
{
	local label=$1 name=$2

	shift 2
	BENCH_LABELS+=("$label")
	BENCH_CMDS+=("$(run_cmd "$name" "$@")")
	BENCH_PREPS+=("$(printf 'rm -f %q' "$TMPD/$name")")
}

# ---- the read floor ----
floor()
{
	local start

	start=$(bench_now_ns)
	find "$TREE" -type f -print0 | xargs -0 -n 512 cat > /dev/null
	awk -v d=$(($(bench_now_ns) - start)) 'BEGIN { printf "%.4f", d / 1e9 }'
}
floor > /dev/null
FLOOR=$(floor)
echo "read floor (warm cat of every file): ${FLOOR}s"
echo

# ---- the main comparison ----
BENCH_CMDS=()
BENCH_LABELS=()
BENCH_PREPS=()
G=-1 P62=-1 P619=-1 E=-1
if [ "$GHEE_ROOTDIR" = 1 ]; then
	G=${#BENCH_CMDS[@]}
	add_run "ghee mkfs --rootdir" g.img "$GHEE_BIN" mkfs -f -q --rootdir "$TREE"
fi
P62=${#BENCH_CMDS[@]}
add_run "mkfs.btrfs 6.2 --rootdir" p62.img "$MKFS62" -f -q --rootdir "$TREE"
if [ -n "$MKFS619" ]; then
	P619=${#BENCH_CMDS[@]}
	add_run "mkfs.btrfs 6.19 --rootdir" p619.img "$MKFS619" -f -q --rootdir "$TREE"
fi
E=${#BENCH_CMDS[@]}
add_run "mke2fs -t ext4 -d" e.img mke2fs -q -F -t ext4 -N $((NPATHS + NPATHS / 4 + 1024)) -d "$TREE"

echo "== $FILES-file tree: $BENCH_RUNS timed run(s) each, alternating =="
bench_load
bench_compare
bench_load
failed=0
for ((i = 0; i < ${#BENCH_CMDS[@]}; i++)); do
	[ "${RC[i]}" = 0 ] || { echo "bench: ${BENCH_LABELS[i]} failed (exit ${RC[i]})" >&2; failed=1; }
done
rm -f "$TMPD"/*.img
if [ "$G" -ge 0 ]; then
	echo "ratio ghee/6.2:    $(bench_ratio "${WALL[G]}" "${WALL[P62]}")  (target <= 0.25; CPU time $(bench_ratio "${CPU[G]}" "${CPU[P62]}"))"
	[ "$P619" -ge 0 ] &&
		echo "ratio ghee/6.19:   $(bench_ratio "${WALL[G]}" "${WALL[P619]}")  (CPU time $(bench_ratio "${CPU[G]}" "${CPU[P619]}"))"
	echo "ratio ghee/mke2fs: $(bench_ratio "${WALL[G]}" "${WALL[E]}")  (target <= 0.80; CPU time $(bench_ratio "${CPU[G]}" "${CPU[E]}"))"
	echo "ratio ghee/floor:  $(bench_ratio "${WALL[G]}" "$FLOOR")"
	if [ "${RSS[G]}" != n/a ]; then
		echo "ghee peak RSS: ${RSS[G]} KiB, $(awk -v r="${RSS[G]}" -v n="$NPATHS" \
			'BEGIN { printf "%.1f", r * 1024 / n }') bytes per path (target <= 64 MiB)"
	fi
fi
echo "ratio 6.19/6.2:    $([ "$P619" -ge 0 ] && bench_ratio "${WALL[P619]}" "${WALL[P62]}" || echo n/a)"
echo "ratio 6.2/mke2fs:  $(bench_ratio "${WALL[P62]}" "${WALL[E]}")"

# ---- compression: one thread against two, and progs 6.19 ----
# bytes_used IMG: the superblock's bytes_used
bytes_used()
{
	btrfs inspect-internal dump-super "$1" | awk '$1 == "bytes_used" { print $2 }'
}

if [ "$DO_COMPRESS" = 1 ]; then
	echo
	NCPU=$(nproc)
	[ "$NCPU" -ge 2 ] || NCPU=2
	echo "== --compress zstd: GHEE_MKFS_THREADS=1 against $NCPU (on $(nproc) CPUs), and 6.19 =="
	BENCH_CMDS=()
	BENCH_LABELS=()
	BENCH_PREPS=()
	if [ "$GHEE_ROOTDIR" = 1 ] && [ "$GHEE_COMPRESS" = 1 ]; then
		add_run "ghee zstd, 1 thread" gz1.img env GHEE_MKFS_THREADS=1 \
			"$GHEE_BIN" mkfs -f -q --compress zstd --rootdir "$TREE"
		add_run "ghee zstd, $NCPU threads" gz2.img env GHEE_MKFS_THREADS=$NCPU \
			"$GHEE_BIN" mkfs -f -q --compress zstd --rootdir "$TREE"
	else
		echo "note: ghee mkfs has no --rootdir/--compress yet: ghee skipped"
	fi
	if [ -n "$MKFS619" ]; then
		add_run "mkfs.btrfs 6.19 zstd" pz.img "$MKFS619" -f -q --compress zstd --rootdir "$TREE"
	fi
	if [ ${#BENCH_CMDS[@]} -gt 0 ]; then
		bench_load
		bench_compare
		bench_load
		for ((i = 0; i < ${#BENCH_CMDS[@]}; i++)); do
			[ "${RC[i]}" = 0 ] ||
				{ echo "bench: ${BENCH_LABELS[i]} failed (exit ${RC[i]})" >&2; failed=1; }
		done
		if [ "${BENCH_LABELS[0]}" = "ghee zstd, 1 thread" ]; then
			echo "speed-up $NCPU threads / 1 thread: $(bench_ratio "${WALL[0]}" "${WALL[1]}")  (target >= 1.6 on 2 idle CPUs; CPU time of 1 thread / wall of $NCPU: $(bench_ratio "${CPU[0]}" "${WALL[1]}"))"
			if [ ${#BENCH_CMDS[@]} -gt 2 ]; then
				echo "ratio ghee zstd ($NCPU threads)/6.19 zstd: $(bench_ratio "${WALL[1]}" "${WALL[2]}")  (CPU time $(bench_ratio "${CPU[1]}" "${CPU[2]}"))"
				gu=$(bytes_used "$TMPD/gz2.img")
				pu=$(bytes_used "$TMPD/pz.img")
				echo "bytes used: ghee zstd $gu, 6.19 zstd $pu, ratio $(bench_ratio "$gu" "$pu");" \
				     "data allocated $NBYTES: ghee $(bench_ratio "$gu" "$NBYTES") of it"
			fi
		fi
		rm -f "$TMPD"/*.img
	fi
fi

# ---- space after --shrink: ghee against 6.19 ----
# space_report LABEL IMG: one line of numbers of a shrunk image
space_report()
{
	local label=$1 img=$2 nodesize used meta extents csums

	nodesize=$(btrfs inspect-internal dump-super "$img" | awk '$1 == "nodesize" { print $2 }')
	used=$(btrfs inspect-internal dump-super "$img" | awk '$1 == "bytes_used" { print $2 }')
	"${DUMP_TREE[@]}" -t extent "$img" > "$TMPD/extent.txt" 2>/dev/null
	"${DUMP_TREE[@]}" -t csum "$img" > "$TMPD/csum.txt" 2>/dev/null
	# tree blocks: METADATA_ITEMs (skinny) or EXTENT_ITEMs with level info
	meta=$(grep -cE 'key \([0-9]+ METADATA_ITEM ' "$TMPD/extent.txt")
	extents=$(grep -cE 'key \([0-9]+ EXTENT_ITEM ' "$TMPD/extent.txt")
	csums=$(grep -cE 'key \(EXTENT_CSUM EXTENT_CSUM ' "$TMPD/csum.txt")
	printf '%-22s %14s %14s %14s %14s %10s %10s\n' "$label" "$(stat -c %s "$img")" \
		"$(du -B1 "$img" | cut -f1)" "$used" "$((meta * nodesize))" "$extents" "$csums"
}

if [ "$DO_SHRINK" = 1 ]; then
	echo
	echo "== after --shrink (one run each) =="
	printf '%-22s %14s %14s %14s %14s %10s %10s\n' "" "image bytes" "allocated" \
		"bytes_used" "metadata" "extents" "csum items"
	if [ "$GHEE_ROOTDIR" = 1 ] && [ "$GHEE_SHRINK" = 1 ]; then
		if bash -c "$(run_cmd gs.img "$GHEE_BIN" mkfs -f -q --shrink --rootdir "$TREE")" > /dev/null 2>&1; then
			space_report "ghee" "$TMPD/gs.img"
		else
			echo "bench: ghee mkfs --shrink failed" >&2
			failed=1
		fi
		# the inline limit of mkfs.btrfs 6.19 (sector - 1): the same rules
		if bash -c "$(run_cmd gi.img "$GHEE_BIN" mkfs -f -q --max-inline 4095 --shrink --rootdir "$TREE")" > /dev/null 2>&1; then
			space_report "ghee --max-inline 4095" "$TMPD/gi.img"
		else
			echo "bench: ghee mkfs --max-inline 4095 --shrink failed" >&2
			failed=1
		fi
	else
		echo "(ghee: no --rootdir/--shrink yet, skipped)"
	fi
	if [ -n "$MKFS619" ]; then
		if bash -c "$(run_cmd ps.img "$MKFS619" -f -q --shrink --rootdir "$TREE")" > /dev/null 2>&1; then
			space_report "mkfs.btrfs 6.19" "$TMPD/ps.img"
		else
			echo "bench: mkfs.btrfs 6.19 --shrink failed" >&2
			failed=1
		fi
	fi
	rm -f "$TMPD"/*.img
	echo "(metadata = tree blocks in the extent tree x nodesize; extents = EXTENT_ITEMs)"
fi
exit $failed
