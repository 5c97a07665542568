# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers of the bench/*.sh harnesses.  Sourced, not run.
#
# Environment:
#   BENCH_CACHE  where built benchmark images are kept (default
#                /var/tmp/ghee-bench); reused while their recipe is unchanged
#   GHEE         the ghee binary (default ./ghee)
#   BENCH_RUNS   timed runs per command (default 3)
#   BENCH_WARMUP 0: bench_compare skips its untimed first run of each
#                command (for commands too heavy to run twice)
#
# Peak RSS and CPU time (user + system, all threads) come from GNU time
# (`/usr/bin/time -f '%M %U %S'`, Debian package `time`: apt-get install
# time).  Without it they are reported as "n/a".

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_TOP=$(cd "$BENCH_DIR/.." && pwd)
: "${BENCH_CACHE:=/var/tmp/ghee-bench}"
: "${GHEE:=./ghee}"
: "${BENCH_RUNS:=3}"
: "${BENCH_WARMUP:=1}"
BENCH_TIME=/usr/bin/time
POPULATE=$BENCH_TOP/tests/images/populate.py

bench_die()
{
	echo "bench: $*" >&2
	exit 1
}

# bench_skip REASON: the benchmark cannot run on this machine
bench_skip()
{
	echo "bench: skipped: $*" >&2
	exit 77
}

bench_require_image_tools()
{
	local cmd

	[ "$(id -u)" = 0 ] || bench_skip "building the image needs root"
	for cmd in mkfs.btrfs btrfs losetup mount python3 sha256sum flock; do
		command -v "$cmd" >/dev/null 2>&1 || bench_skip "missing $cmd"
	done
	grep -qw btrfs /proc/filesystems || modprobe btrfs >/dev/null 2>&1
	grep -qw btrfs /proc/filesystems || bench_skip "kernel has no btrfs"
	losetup --find >/dev/null 2>&1 || bench_skip "no free loop device"
}

# bench_ghee: print the absolute path of ghee, or nothing if absent
bench_ghee()
{
	if [ -x "$GHEE" ]; then
		echo "$(cd "$(dirname "$GHEE")" && pwd)/$(basename "$GHEE")"
	fi
}

bench_now_ns()
{
	date +%s%N
}

# bench_median N...: median of the numbers (middle one, or mean of the two
# middle ones), printed with 4 decimals
bench_median()
{
	printf '%s\n' "$@" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "n/a"; exit }
			if (NR % 2) m = v[(NR + 1) / 2]
			else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.4f\n", m
		}'
}

# bench_ratio A B: A/B with 2 decimals, or n/a
bench_ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"
		else printf "%.2f\n", a / b
	}'
}

# bench_run1 OUT CMD...: run CMD once with stdout to OUT (stderr dropped);
# sets BENCH_WALL (seconds), BENCH_RSS (KiB, or n/a), BENCH_CPU (user +
# system seconds of CMD and its children, or n/a) and BENCH_RC
bench_run1()
{
	local out=$1 start end rssf line

	shift
	rssf=$(mktemp "${TMPDIR:-/tmp}"/ghee-bench-rss.XXXXXX)
	start=$(bench_now_ns)
	if [ -x "$BENCH_TIME" ]; then
		"$BENCH_TIME" -f '%M %U %S' -o "$rssf" "$@" > "$out" 2>/dev/null
		BENCH_RC=$?
	else
		"$@" > "$out" 2>/dev/null
		BENCH_RC=$?
	fi
	end=$(bench_now_ns)
	BENCH_WALL=$(awk -v d=$((end - start)) 'BEGIN { printf "%.4f", d / 1e9 }')
	line=$(tail -n1 "$rssf" 2>/dev/null)
	BENCH_RSS=${line%% *}
	case $BENCH_RSS in
	''|*[!0-9]*) BENCH_RSS=n/a ;;
	esac
	BENCH_CPU=$(awk 'NF == 3 && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ {
		printf "%.2f", $2 + $3; ok = 1 } END { if (!ok) print "n/a" }' <<< "$line")
	rm -f "$rssf"
}

# bench_load: the load average, for the record (the machine may be shared)
bench_load()
{
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
}

# bench_prepare I: BENCH_PREPS[I], if set, untimed before each run of
# command I (e.g. deleting the previous run's output, which costs the
# file system time that is not the command's)
bench_prepare()
{
	[ -z "${BENCH_PREPS[$1]:-}" ] || bash -c "${BENCH_PREPS[$1]}"
}

# bench_compare: time the commands in BENCH_CMDS (shell command strings,
# quote arguments with printf %q) labelled by BENCH_LABELS.  Each command
# runs once to warm the page cache (unless BENCH_WARMUP=0), then
# BENCH_RUNS times, alternating
# between the commands so drift hits all of them alike; stdout goes to
# /dev/null.  Sets WALL[i], RSS[i] (medians) and RC[i] (last exit status)
# and prints one line per command.  CPU[i]: median CPU seconds (or n/a).
bench_compare()
{
	local n=${#BENCH_CMDS[@]} i r
	local -a walls rsss cpus

	WALL=()
	RSS=()
	CPU=()
	RC=()
	for ((i = 0; i < n; i++)); do
		[ "$BENCH_WARMUP" = 0 ] || {
			bench_prepare "$i"
			bench_run1 /dev/null bash -c "exec ${BENCH_CMDS[i]}"
		}
		walls[i]=
		rsss[i]=
		cpus[i]=
	done
	for ((r = 0; r < BENCH_RUNS; r++)); do
		for ((i = 0; i < n; i++)); do
			bench_prepare "$i"
			bench_run1 /dev/null bash -c "exec ${BENCH_CMDS[i]}"
			walls[i]+=" $BENCH_WALL"
			rsss[i]+=" $BENCH_RSS"
			cpus[i]+=" $BENCH_CPU"
			RC[i]=$BENCH_RC
		done
	done
	for ((i = 0; i < n; i++)); do
		WALL[i]=$(bench_median ${walls[i]})
		if [[ ${rsss[i]} == *n/a* ]]; then
			RSS[i]=n/a
		else
			RSS[i]=$(bench_median ${rsss[i]} | cut -d. -f1)
		fi
		if [[ ${cpus[i]} == *n/a* ]]; then
			CPU[i]=n/a
		else
			CPU[i]=$(bench_median ${cpus[i]})
		fi
		printf '%-26s median %7ss  cpu %7ss  peak RSS %8s KiB  exit %s  (runs:%s)\n' \
			"${BENCH_LABELS[i]}" "${WALL[i]}" "${CPU[i]}" "${RSS[i]}" "${RC[i]}" \
			"${walls[i]}"
	done
}

# ------------------------------------------------------------------
# the benchmark image: 2 GiB sparse, 100,000 files in 1,000 dirs written
# through the kernel (mostly inline, every 4th 8 KiB, every 10th with an
# xattr), 20 MiB of checksummed data and 50 compressed files

BENCH_NFILES=${BENCH_NFILES:-100000}
BENCH_NDIRS=${BENCH_NDIRS:-1000}

_bench_image_hash()
{
	{
		declare -f bench_build_image _bench_populate
		cat "$POPULATE"
		echo "$BENCH_NFILES $BENCH_NDIRS"
		btrfs --version
	} | sha256sum | cut -d' ' -f1
}

_bench_populate()
{
	local mnt=$1

	# (no hard-link farm like workload-basic's: btrfs-progs 6.2 lowmem
	# check reports a false error on it, and this image must be clean in
	# both check modes)
	python3 "$POPULATE" bench "$mnt/many" "$BENCH_NFILES" "$BENCH_NDIRS" &&
	python3 "$POPULATE" fill "$mnt/data" d 20 1048576 random &&
	mkdir "$mnt/compressed" && chattr +c "$mnt/compressed" &&
	python3 "$POPULATE" fill "$mnt/compressed" z 50 65536 text
}

# bench_build_image: print the image path, building it first if its
# recipe changed; the build time goes to stderr
bench_build_image()
{
	local img=$BENCH_CACHE/many-files.img hash tmpd start ret

	mkdir -p "$BENCH_CACHE" || bench_die "cannot create $BENCH_CACHE"
	exec 8> "$BENCH_CACHE/.lock"
	flock 8
	hash=$(_bench_image_hash)
	if [ -f "$img" ] && [ "$(cat "$img.stamp" 2>/dev/null)" = "$hash" ]; then
		echo "$img"
		return 0
	fi
	bench_require_image_tools
	rm -f "$img" "$img.stamp"
	tmpd=$(mktemp -d /tmp/ghee-bench.XXXXXX)
	mkdir "$tmpd/mnt"
	start=$(bench_now_ns)
	# no set -e: callers run this in $(...) || exit, where it is ignored
	(
		trap 'mountpoint -q "$tmpd/mnt" && umount "$tmpd/mnt"; rm -rf "$tmpd"' EXIT
		truncate -s 2G "$img.tmp" &&
		# the kernel builds the free space tree at the first mount:
		# mkfs.btrfs 6.2's own leaves entries of its temporary chunks
		# behind, which a checker rightly reports (corpus 058, 071)
		mkfs.btrfs -q -f -U 5b0b7a1e-91c3-4c55-8e0b-6e9c0c7e3b17 \
			-R ^free-space-tree "$img.tmp" >/dev/null &&
		mount -o loop,space_cache=v2 "$img.tmp" "$tmpd/mnt" &&
		_bench_populate "$tmpd/mnt" &&
		umount "$tmpd/mnt" || exit 1
		if ! btrfs check --readonly "$img.tmp" > "$tmpd/check.log" 2>&1; then
			cat "$tmpd/check.log" >&2
			exit 1
		fi
	)
	ret=$?
	if [ $ret -ne 0 ]; then
		rm -f "$img.tmp"
		bench_die "building $img failed"
	fi
	mv "$img.tmp" "$img"
	echo "$hash" > "$img.stamp"
	echo "bench: built $img in $(awk -v d=$(($(bench_now_ns) - start)) \
		'BEGIN { printf "%.1f", d / 1e9 }')s" >&2
	echo "$img"
}
