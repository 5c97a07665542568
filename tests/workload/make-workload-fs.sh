#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-workload-fs.sh SEED OUTDIR
#
# Build one btrfs filesystem with the real kernel from a randomized recipe
# chosen by SEED: mkfs.btrfs (Debian's 6.2 or 6.19) with a random node
# size, checksum, features and profiles on 1-3 devices; random mount
# options (compression of each kind, compress-force, nodatacow, nodatasum,
# small max_inline, space_cache v1/v2, ssd/nossd); then 3-8 workload steps
# (stress-ng filesystem stressors and fio bounded to seconds, file
# create/append/truncate/punch/fallocate, reflinks, subvolumes, rw/ro
# snapshots and their deletion, quotas with qgroup limits, balance with
# filters, device add/remove, remounts, defrag); and an ending: a plain
# unmount, a log tree left by fsync (the images are copied while mounted),
# a metadata_uuid change (btrfstune -m/-M) or a seed with a sprout on top
# (btrfstune -S 1, device add).
#
# The recipe is a function of SEED (bash's RANDOM seeded with it); what the
# kernel does with it is not, so a seed names a kind of filesystem, not its
# bytes.  Every step is bounded in time; a step that fails (ENOSPC, EDQUOT,
# a profile the device count cannot hold) is recorded and the recipe goes
# on: those are filesystems too.
#
# OUTDIR gets:
#   devN.img   the device files (sparse)
#   devices    the device files to check, one a line, in devid order
#   recipe     the steps, one a line ("# failed" marks a failed command)
#   tags       key=value facts the comparison needs (mkfs=, quota=,
#              snapshot=, logtree=, metadata_uuid=, seed=, ...)
#   build.log  every command and its output
#
# Exit: 0 built, 1 mkfs or the first mount failed (nothing to check),
# 2 usage, 77 cannot run here (not root, no loop devices, missing tools).

set -u

SEED=${1:-}
OUT=${2:-}
if [ -z "$SEED" ] || [ -z "$OUT" ] || [[ ! $SEED =~ ^[0-9]+$ ]]; then
	echo "usage: make-workload-fs.sh SEED OUTDIR" >&2
	exit 2
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
REF_DIR=${BTRFS_REF_DIR:-$TOP/../shared/tools/btrfs-progs-6.19}
STEP_TIMEOUT=${GHEE_WORKLOAD_STEP_TIMEOUT:-30}

for cmd in mkfs.btrfs btrfs btrfstune losetup mount umount truncate fallocate chattr; do
	command -v "$cmd" >/dev/null 2>&1 || { echo "SKIP: $cmd is not installed"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
grep -qw btrfs /proc/filesystems || modprobe btrfs >/dev/null 2>&1
grep -qw btrfs /proc/filesystems || { echo "SKIP: the kernel has no btrfs"; exit 77; }
losetup -f >/dev/null 2>&1 || { echo "SKIP: no free loop device"; exit 77; }

mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
MNT=$OUT/mnt
mkdir -p "$MNT"
: > "$OUT/recipe"
: > "$OUT/tags"
: > "$OUT/build.log"
rm -f "$OUT"/dev*.img "$OUT/devices"

# every choice comes from this sequence; never read RANDOM inside $(...),
# a subshell may reseed it
RANDOM=$SEED

DEVS=()		# device files in devid order (removed ones dropped)
declare -A LOOP_OF=()	# device file -> its loop device
MOUNTED=0
SUBVOLS=()	# paths below MNT of subvolumes and rw snapshots
SNAPS=()	# snapshots that may be deleted
FILES_N=0
MOUNT_OPTS=

# ------------------------------------------------------------------
# helpers

# rnd N: R = a number in [0, N)
rnd()
{
	R=$((RANDOM % $1))
}

# pick VAR CHOICE...: VAR = one of the choices
pick()
{
	local var=$1

	shift
	rnd $#
	shift "$R"
	printf -v "$var" '%s' "$1"
}

# chance PERCENT: true with that probability
chance()
{
	rnd 100
	[ "$R" -lt "$1" ]
}

tag()
{
	echo "$1=$2" >> "$OUT/tags"
}

recipe()
{
	echo "$*" >> "$OUT/recipe"
}

# run CMD...: run bounded in time, output to build.log; a failure is noted
# in the recipe and returned
run()
{
	local rc

	echo "+ $*" >> "$OUT/build.log"
	timeout -k 5 "$STEP_TIMEOUT" "$@" >> "$OUT/build.log" 2>&1 </dev/null
	rc=$?
	[ $rc -eq 0 ] || recipe "    # failed (exit $rc): $*"
	return $rc
}

loop_attach()
{
	local f=$1 l

	l=$(losetup --find --show "$f") || return 1
	LOOP_OF[$f]=$l
}

loop_detach_all()
{
	local f l

	for f in "${!LOOP_OF[@]}"; do
		l=${LOOP_OF[$f]}
		btrfs device scan --forget "$l" >/dev/null 2>&1
		losetup -d "$l" 2>/dev/null
	done
	LOOP_OF=()
}

loops_of_devs()
{
	local f

	for f in "${DEVS[@]}"; do
		echo "${LOOP_OF[$f]}"
	done
}

cleanup()
{
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	loop_detach_all
	rmdir "$MNT" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# new_dev SIZE_MIB: a new sparse device file with a loop device; sets NEWDEV
new_dev()
{
	local n=1

	while [ -e "$OUT/dev$n.img" ]; do
		n=$((n + 1))
	done
	NEWDEV=$OUT/dev$n.img
	truncate -s "${1}M" "$NEWDEV" && loop_attach "$NEWDEV"
}

do_mount()
{
	local l

	for l in $(loops_of_devs); do
		btrfs device scan "$l" >/dev/null 2>&1
	done
	echo "+ mount -o $1 ${LOOP_OF[${DEVS[0]}]} $MNT" >> "$OUT/build.log"
	mount -o "$1" "${LOOP_OF[${DEVS[0]}]}" "$MNT" >> "$OUT/build.log" 2>&1 || return 1
	MOUNTED=1
}

do_umount()
{
	sync -f "$MNT" 2>/dev/null
	umount "$MNT" >> "$OUT/build.log" 2>&1 || return 1
	MOUNTED=0
}

# rand_mib MIN MAX: R = MIN..MAX
rand_between()
{
	rnd $(($2 - $1 + 1))
	R=$((R + $1))
}

# a target directory for a step: the top level or a subvolume
pick_dir()
{
	local all=("$MNT" "${SUBVOLS[@]/#/$MNT/}")

	rnd ${#all[@]}
	DIR=${all[R]}
}

# ------------------------------------------------------------------
# mkfs and mount options

choose_mkfs()
{
	local ndev size i prof_d prof_m csum nodesize args=() which

	rand_between 1 3
	ndev=$R
	chance 50 && ndev=1
	pick size 384 512 768 1024
	pick which 6.2 6.19
	[ -x "$REF_DIR/mkfs.btrfs" ] || which=6.2
	if [ "$which" = 6.19 ]; then
		MKFS=$REF_DIR/mkfs.btrfs
	else
		MKFS=mkfs.btrfs
	fi
	tag mkfs "$which"
	pick nodesize 4096 16384 16384 32768 65536
	pick csum crc32c crc32c xxhash sha256 blake2
	args+=(-n "$nodesize" --csum "$csum")

	case $ndev in
	1) pick prof_d single single dup; pick prof_m dup dup single ;;
	2) pick prof_d single raid0 raid1 raid1 raid10 raid5
	   pick prof_m dup raid1 raid1 raid0 single raid10 ;;
	*) pick prof_d single raid0 raid1 raid1c3 raid10 raid5 raid6
	   pick prof_m raid1 raid1 raid1c3 dup raid10 raid6 ;;
	esac
	args+=(-d "$prof_d" -m "$prof_m")
	DATA_PROFILE=$prof_d

	FST=1
	if chance 25; then
		FST=0
		args+=(-R ^free-space-tree)
	fi
	chance 15 && args+=(-O ^no-holes)
	if [ "$which" = 6.19 ]; then
		if [ $FST = 1 ] && chance 40; then
			args+=(-O block-group-tree)
			tag bgt 1
		fi
		if chance 10; then
			args+=(-O squota)
			tag squota 1
			tag quota 1
			QUOTA_ON=1
		fi
	fi
	if [ "$nodesize" = 4096 ] && [ "$prof_d" = "$prof_m" ] && chance 30; then
		args+=(--mixed)
		tag mixed 1
	fi
	tag fst "$FST"
	tag ndev "$ndev"

	for ((i = 0; i < ndev; i++)); do
		new_dev "$size" || return 1
		DEVS+=("$NEWDEV")
	done
	MKFS_ARGS=("${args[@]}")
	recipe "mkfs $which ${args[*]} on $ndev x ${size}M"
	# shellcheck disable=SC2046 # one word per loop device
	if ! run "$MKFS" -f -q "${args[@]}" $(loops_of_devs); then
		# a profile the kernel/progs refuse: fall back to the defaults
		MKFS_ARGS=(-n "$nodesize" --csum "$csum")
		[ $FST = 1 ] || MKFS_ARGS+=(-R ^free-space-tree)
		recipe "mkfs $which ${MKFS_ARGS[*]} (fallback)"
		# shellcheck disable=SC2046
		run "$MKFS" -f -q "${MKFS_ARGS[@]}" $(loops_of_devs) || return 1
		DATA_PROFILE=default
	fi
	tag data "$DATA_PROFILE"
}

choose_mount_opts()
{
	local opts=() c lvl

	if chance 60; then
		pick c zlib lzo zstd zstd
		case $c in
		zlib) chance 50 && { rand_between 1 9; c+=":$R"; } ;;
		zstd) chance 50 && { rand_between 1 15; c+=":$R"; } ;;
		esac
		if chance 25; then
			opts+=("compress-force=$c")
		else
			opts+=("compress=$c")
		fi
	fi
	if chance 12; then
		opts+=(nodatacow)
		tag nodatacow 1
	elif chance 8; then
		opts+=(nodatasum)
	fi
	if chance 35; then
		pick lvl 0 64 128 256 1024 2048
		opts+=("max_inline=$lvl")
	fi
	if [ $FST = 0 ] && ! grep -q '^bgt=1' "$OUT/tags" && chance 60; then
		opts+=(space_cache=v1)
		tag space_cache v1
	else
		opts+=(space_cache=v2)
	fi
	chance 30 && { pick c ssd nossd; opts+=("$c"); }
	chance 10 && opts+=(discard=async)
	chance 10 && opts+=(autodefrag)
	# the log tree ending copies the images while mounted: no commit
	# may run meanwhile
	[ "$ENDING" = logtree ] && opts+=(commit=300)
	MOUNT_OPTS=$(IFS=,; echo "${opts[*]}")
	recipe "mount -o $MOUNT_OPTS"
}

# ------------------------------------------------------------------
# workload steps; each ends in seconds

# write_file PATH KIND SIZE: KIND random or text
write_file()
{
	if [ "$2" = text ]; then
		yes "ghee workload seed $SEED line of compressible text" 2>/dev/null |
			head -c "$3" > "$1"
	else
		head -c "$3" /dev/urandom > "$1"
	fi
}

step_files()
{
	local n i f kind size op

	pick_dir
	mkdir -p "$DIR/files"
	rand_between 3 12
	n=$R
	recipe "files: $n files in ${DIR#$MNT}/files with appends, truncates, holes, prealloc"
	for ((i = 0; i < n; i++)); do
		FILES_N=$((FILES_N + 1))
		f=$DIR/files/f$FILES_N
		pick kind random text
		pick size 0 1 100 2000 3000 4096 5000 65536 131072 1048576 3145728
		write_file "$f" "$kind" "$size"
		pick op none append truncate-down truncate-up punch falloc falloc-keep sparse overwrite fsync
		case $op in
		append)		head -c 70000 /dev/urandom >> "$f" ;;
		truncate-down)	truncate -s $((size / 3)) "$f" ;;
		truncate-up)	truncate -s $((size + 1048576)) "$f" ;;
		punch)		[ "$size" -ge 65536 ] && fallocate -p -o 8192 -l 40960 "$f" ;;
		falloc)		fallocate -o "$size" -l 1M "$f" ;;
		falloc-keep)	fallocate -n -o "$size" -l 512K "$f" ;;
		sparse)		dd if=/dev/urandom of="$f" bs=4096 seek=300 count=3 \
					conv=notrunc status=none ;;
		overwrite)	dd if=/dev/urandom of="$f" bs=1000 seek=3 count=5 \
					conv=notrunc status=none ;;
		fsync)		[ -n "$XFS_IO" ] && "$XFS_IO" -c fsync "$f" ;;
		esac
		recipe "    f$FILES_N $kind $size $op"
	done >> "$OUT/build.log" 2>&1
	if chance 30; then
		recipe "    delete some files"
		find "$DIR/files" -name 'f*[13579]' -delete 2>/dev/null
	fi
}

step_stress()
{
	local s secs extra=()

	pick s dir dentry fallocate fpunch fiemap hdd iomix link symlink \
		rename xattr sync-file copy-file filename dirdeep dirmany fsize \
		inode-flags chattr utime
	rand_between 1 3
	secs=$R
	chance 50 && extra+=(--keep-files)
	case $s in
	hdd)	extra+=(--hdd-bytes 24M) ;;
	fallocate) extra+=(--fallocate-bytes 16M) ;;
	iomix)	extra+=(--iomix-bytes 16M) ;;
	dirdeep) extra+=(--dirdeep-dirs 2 --dirdeep-inodes 2000) ;;
	dirmany) extra+=(--dirmany-bytes 1M) ;;
	esac
	pick_dir
	mkdir -p "$DIR/stress"
	recipe "stress-ng --$s 1 ${extra[*]} --timeout ${secs}s in ${DIR#$MNT}/stress"
	run stress-ng --temp-path "$DIR/stress" "--$s" 1 "${extra[@]}" \
		--timeout "${secs}s" --quiet
}

step_fio()
{
	local rw secs fa comp

	pick rw randwrite randrw write rw trim
	[ "$rw" = trim ] && rw=randwrite
	pick fa none posix keep
	pick comp 0 0 50 90
	rand_between 1 3
	secs=$R
	pick_dir
	mkdir -p "$DIR/fio"
	recipe "fio --rw=$rw --fallocate=$fa --buffer_compress_percentage=$comp --runtime=${secs}s in ${DIR#$MNT}/fio"
	run fio --name=w --directory="$DIR/fio" --size=16M --nrfiles=3 \
		--rw="$rw" --bsrange=4k-128k --ioengine=psync --time_based \
		--runtime="$secs" --fallocate="$fa" --refill_buffers \
		--buffer_compress_percentage="$comp" --fsync=7 --output=/dev/null
}

step_reflink()
{
	local src dst cands=()

	pick_dir
	mapfile -t cands < <(find "$DIR" -xdev -type f -size +8k 2>/dev/null | sort | head -n 20)
	src=
	[ ${#cands[@]} -gt 0 ] && pick src "${cands[@]}"
	if [ -z "$src" ]; then
		src=$DIR/reflink-src
		write_file "$src" random 1048576
	fi
	dst=$DIR/reflink-$RANDOM
	recipe "reflink ${src#$MNT} -> ${dst#$MNT}"
	run cp --reflink=always "$src" "$dst"
	if [ -n "$XFS_IO" ] && chance 60; then
		recipe "    partial reflink (xfs_io reflink) into ${dst#$MNT}.part"
		write_file "$dst.part" random 262144
		run "$XFS_IO" -c "reflink $src 0 65536 65536" "$dst.part"
	fi
}

step_subvol()
{
	local name=sv$RANDOM

	pick_dir
	local rel=${DIR#$MNT}

	rel=${rel#/}
	recipe "subvolume create /${rel:+$rel/}$name"
	run btrfs subvolume create "$DIR/$name" || return
	SUBVOLS+=("${rel:+$rel/}$name")
	write_file "$DIR/$name/a" random 300000
	write_file "$DIR/$name/b" text 5000
}

step_snapshot()
{
	local src name=snap$RANDOM ro=

	pick_dir
	src=$DIR
	chance 40 && ro=-r
	recipe "subvolume snapshot${ro:+ $ro} ${src#$MNT}/ /$name"
	run btrfs subvolume snapshot $ro "$src" "$MNT/$name" || return
	tag snapshot 1
	SNAPS+=("$name")
	[ -z "$ro" ] && SUBVOLS+=("$name")
	if chance 60; then
		# write after the snapshot so the two trees diverge
		write_file "$src/after-snap-$RANDOM" random 200000
	fi
}

step_snapdel()
{
	local s i

	[ ${#SNAPS[@]} -gt 0 ] || { step_snapshot; return; }
	rnd ${#SNAPS[@]}
	i=$R
	s=${SNAPS[i]}
	recipe "subvolume delete /$s + subvolume sync"
	if chance 50; then
		run btrfs subvolume delete -c "$MNT/$s" || return
	else
		run btrfs subvolume delete "$MNT/$s" || return
	fi
	unset "SNAPS[$i]"
	SNAPS=("${SNAPS[@]}")
	# forget the snapshot and everything below it
	local keep=() v
	for v in "${SUBVOLS[@]}"; do
		[ "$v" = "$s" ] || [[ $v == "$s"/* ]] || keep+=("$v")
	done
	SUBVOLS=("${keep[@]}")
	chance 70 && run btrfs subvolume sync "$MNT"
}

step_quota()
{
	local v id lim

	if [ "${QUOTA_ON:-0}" = 0 ]; then
		recipe "quota enable"
		run btrfs quota enable "$MNT" || return
		QUOTA_ON=1
		tag quota 1
		return
	fi
	[ ${#SUBVOLS[@]} -gt 0 ] || { step_subvol; return; }
	pick v "${SUBVOLS[@]}"
	id=$(btrfs inspect-internal rootid "$MNT/$v" 2>/dev/null) || return
	pick lim 20M 50M 200M
	if chance 50; then
		recipe "qgroup limit $lim 0/$id (/$v)"
		run btrfs qgroup limit "$lim" "0/$id" "$MNT"
	else
		recipe "qgroup limit -e $lim 0/$id; qgroup 1/100 with 0/$id"
		run btrfs qgroup limit -e "$lim" "0/$id" "$MNT"
		run btrfs qgroup create 1/100 "$MNT" 2>/dev/null
		run btrfs qgroup assign "0/$id" 1/100 "$MNT"
	fi
	write_file "$MNT/$v/quota-fill-$RANDOM" random 2000000
	chance 30 && { recipe "    quota rescan -w"; run btrfs quota rescan -w "$MNT"; }
}

step_balance()
{
	local f

	pick f "-dusage=50" "-musage=30" "-dusage=0" "-d -m" "-dlimit=2" "-mconvert=dup -f" \
		"-dconvert=single" "-ddevid=1"
	[ ${#DEVS[@]} -gt 1 ] && [ "$f" = "-mconvert=dup -f" ] && f="-mconvert=raid1"
	recipe "balance start $f"
	# shellcheck disable=SC2086 # the filters are words
	run btrfs balance start $f "$MNT"
}

step_devadd()
{
	[ ${#DEVS[@]} -lt 4 ] || return
	new_dev 512 || return
	recipe "device add ($(basename "$NEWDEV"))"
	if run btrfs device add -f "${LOOP_OF[$NEWDEV]}" "$MNT"; then
		DEVS+=("$NEWDEV")
		tag devadd 1
	fi
}

step_devremove()
{
	local f keep=() d

	[ ${#DEVS[@]} -gt 1 ] || { step_devadd; return; }
	rnd ${#DEVS[@]}
	f=${DEVS[R]}
	recipe "device remove $(basename "$f")"
	run btrfs device remove "${LOOP_OF[$f]}" "$MNT" || return
	for d in "${DEVS[@]}"; do
		[ "$d" = "$f" ] || keep+=("$d")
	done
	DEVS=("${keep[@]}")
	tag devremove 1
}

step_nocow()
{
	pick_dir
	mkdir -p "$DIR/nocow"
	chattr +C "$DIR/nocow" 2>/dev/null
	recipe "chattr +C ${DIR#$MNT}/nocow, files written and overwritten in place"
	write_file "$DIR/nocow/a" random 1048576
	dd if=/dev/urandom of="$DIR/nocow/a" bs=4096 seek=10 count=4 conv=notrunc status=none
	cp --reflink=never "$DIR/nocow/a" "$DIR/nocow/b" 2>/dev/null
}

step_remount()
{
	local c

	pick c compress=zstd compress=lzo compress=zlib:3 compress-force=zstd:3 \
		compress=no max_inline=0 max_inline=2048 nodatacow datacow,datasum
	recipe "remount -o $c"
	run mount -o "remount,$c" "$MNT"
}

step_defrag()
{
	local c

	pick c zstd lzo zlib none
	recipe "filesystem defrag -r ${c:+-c$c}"
	if [ "$c" = none ]; then
		run btrfs filesystem defrag -r "$MNT"
	else
		run btrfs filesystem defrag -r "-c$c" "$MNT"
	fi
}

step_delete()
{
	pick_dir
	recipe "delete and rename in ${DIR#$MNT}"
	find "$DIR" -xdev -type f -name '*[02468]' 2>/dev/null | head -n 30 | xargs -r rm -f
	find "$DIR" -xdev -maxdepth 2 -type f 2>/dev/null | head -n 5 |
		while read -r f; do mv "$f" "$f.renamed"; done
}

step_resize()
{
	local d

	d=${DEVS[0]}
	if chance 50; then
		recipe "filesystem resize 1:-100M"
		run btrfs filesystem resize 1:-100M "$MNT"
	else
		truncate -s +256M "$d"
		losetup -c "${LOOP_OF[$d]}"
		recipe "grow $(basename "$d") by 256M, filesystem resize 1:max"
		run btrfs filesystem resize 1:max "$MNT"
	fi
}

step_replace()
{
	local f

	[ ${#DEVS[@]} -lt 4 ] || return
	rnd ${#DEVS[@]}
	f=${DEVS[R]}
	new_dev 1024 || return
	recipe "replace $(basename "$f") with $(basename "$NEWDEV")"
	if run btrfs replace start -B -f "${LOOP_OF[$f]}" "${LOOP_OF[$NEWDEV]}" "$MNT"; then
		local keep=() d
		for d in "${DEVS[@]}"; do
			if [ "$d" = "$f" ]; then keep+=("$NEWDEV"); else keep+=("$d"); fi
		done
		DEVS=("${keep[@]}")
		tag replace 1
	fi
}

step_links()
{
	local i n

	pick_dir
	mkdir -p "$DIR/links"
	rand_between 2 40
	n=$R
	recipe "links: a file with $n hard links, symlinks, xattrs in ${DIR#$MNT}/links"
	write_file "$DIR/links/target" text 3000
	for ((i = 0; i < n; i++)); do
		ln "$DIR/links/target" "$DIR/links/hard-$i-$(printf 'x%.0s' $(seq $((i * 4))))"
		setfattr -n "user.k$i" -v "value-$i" "$DIR/links/target" 2>/dev/null
	done
	ln -s target "$DIR/links/sym"
	ln -s "$(printf 'long/%.0s' $(seq 300))" "$DIR/links/sym-long"
	chance 50 && rm -f "$DIR/links/hard-1"*
}

step_prop()
{
	local c

	pick_dir
	pick c zstd lzo zlib
	mkdir -p "$DIR/prop-$c" "$DIR/chattr-c"
	recipe "property compression $c on ${DIR#$MNT}/prop-$c, chattr +c ${DIR#$MNT}/chattr-c"
	run btrfs property set "$DIR/prop-$c" compression "$c"
	chattr +c "$DIR/chattr-c" 2>/dev/null
	write_file "$DIR/prop-$c/t" text 500000
	write_file "$DIR/chattr-c/t" text 300000
	write_file "$DIR/chattr-c/small" text 900
}

step_scrub()
{
	recipe "scrub start -B"
	run btrfs scrub start -B "$MNT"
}

STEPS=(files files files stress stress stress fio fio reflink subvol snapshot
       snapdel quota quota balance devadd devremove nocow remount defrag
       delete resize replace links prop scrub)

run_steps()
{
	local n i s

	rand_between 3 8
	n=$R
	for ((i = 0; i < n; i++)); do
		pick s "${STEPS[@]}"
		"step_$s"
	done
	sync -f "$MNT"
}

# ------------------------------------------------------------------
# endings

end_umount()
{
	recipe "umount"
	do_umount
}

# the generation of each device's primary superblock (offset 72 of the
# superblock at 64 KiB), one a line
super_generations()
{
	local f

	for f in "${DEVS[@]}"; do
		od -A n -t u8 -j $((65536 + 72)) -N 8 "$f" | tr -d ' '
	done
}

# fsync a file, copy the devices while mounted (commit=300: no commit
# runs meanwhile), then put the copies in place of the devices
end_logtree()
{
	local f try before after

	[ -n "$XFS_IO" ] || { end_umount; return; }
	sync -f "$MNT"
	pick_dir
	recipe "log tree: write and fsync ${DIR#$MNT}/logged*, copy the devices while mounted"
	write_file "$DIR/logged" random 300000
	write_file "$DIR/logged-small" text 1500
	run "$XFS_IO" -c fsync "$DIR/logged"
	run "$XFS_IO" -c fsync "$DIR/logged-small"
	# a commit may still run (device add, the cleaner, an fsync that
	# falls back to a commit): copy again until no superblock changed
	# during the copy and all devices have the same generation
	for try in 1 2 3 4 5; do
		[ "$try" = 1 ] || sleep 1
		before=$(super_generations)
		for f in "${DEVS[@]}"; do
			cp --sparse=always "$f" "$f.copy"
		done
		after=$(super_generations)
		[ "$before" = "$after" ] && [ "$(echo "$after" | sort -u | wc -l)" = 1 ] && break
		recipe "    # the devices changed during the copy, copying again"
	done
	do_umount
	for f in "${DEVS[@]}"; do
		mv -f "$f.copy" "$f"
	done
	tag logtree 1
}

end_metadata_uuid()
{
	local l u

	do_umount || return 1
	for l in $(loops_of_devs); do
		btrfs device scan "$l" >/dev/null 2>&1
	done
	if chance 50; then
		recipe "umount; btrfstune -m"
		run btrfstune -f -m "${LOOP_OF[${DEVS[0]}]}"
	else
		u=$(cat /proc/sys/kernel/random/uuid)
		recipe "umount; btrfstune -M (new uuid)"
		run btrfstune -f -M "$u" "${LOOP_OF[${DEVS[0]}]}"
	fi
	tag metadata_uuid 1
	if chance 50; then
		recipe "    mount once more and write"
		do_mount "$MOUNT_OPTS" || return
		write_file "$MNT/after-tune" random 100000
		do_umount
	fi
}

end_seed()
{
	do_umount || return 1
	recipe "umount; btrfstune -S 1; mount the seed, device add a sprout, remount rw, write"
	run btrfstune -S 1 "${LOOP_OF[${DEVS[0]}]}" || return
	tag seed 1
	new_dev 512 || return
	do_mount "${MOUNT_OPTS}" || { recipe "    # failed: mount of the seed"; return; }
	run btrfs device add -f "${LOOP_OF[$NEWDEV]}" "$MNT" || { do_umount; return; }
	DEVS+=("$NEWDEV")
	run mount -o remount,rw "$MNT"
	mkdir -p "$MNT/sprouted"
	write_file "$MNT/sprouted/a" random 400000
	write_file "$MNT/sprouted/b" text 3000
	do_umount
}

main()
{
	XFS_IO=$(command -v xfs_io)
	QUOTA_ON=0
	tag seed_nr "$SEED"
	pick ENDING umount umount umount umount umount logtree logtree metadata_uuid seed
	choose_mkfs || { recipe "# mkfs failed"; exit 1; }
	choose_mount_opts
	# a multi-device mount right after mkfs failed once ("can't read
	# superblock") on a busy machine: scan and try again before giving up
	if ! do_mount "$MOUNT_OPTS" && ! { sleep 2; do_mount "$MOUNT_OPTS"; }; then
		recipe "# the first mount failed"
		exit 1
	fi
	run_steps
	"end_$ENDING"
	[ $MOUNTED = 0 ] || do_umount
	printf '%s\n' "${DEVS[@]}" > "$OUT/devices"
	exit 0
}

main
