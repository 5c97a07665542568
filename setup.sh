#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Set up ghee on Debian 12: install the build and test dependencies that are
# missing (apt-get, needs root), build, then show the main job on the
# example image.
#
# usage: ./setup.sh [--deps-only | --build-only] [--builddir DIR]
#                   [--enable-sanitizers] [--no-demo]
#
#   (no option)          install deps, build in ./build, link ./ghee, run
#                        dump-super and dump-tree on examples/demo.img
#   --deps-only          only install the missing packages
#   --build-only         only build (autoreconf, configure, make ghee and
#                        the unit tests); used by ./run-tests.sh
#   --builddir DIR       build directory (default ./build)
#   --enable-sanitizers  configure with ASan and UBSan
#   --no-demo            skip the example run
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEPS=(autoconf automake libtool pkg-config gcc make libblkid-dev uuid-dev
      zlib1g-dev libxxhash-dev libsodium-dev check libzstd-dev liblzo2-dev libarchive-dev
      libacl1-dev liblz4-dev
      btrfs-progs xz-utils clang libclang-rt-14-dev e2fsprogs attr hyperfine
      python3 util-linux acl libcap2-bin time zstd libarchive-tools bzip2
      python3-btrfs python3-jsonschema librsvg2-bin libxml2-utils xfsprogs
      stress-ng fio)

# the locks apt-get and dpkg take (fcntl locks, listed in /proc/locks)
DPKG_LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock
	    /var/lib/apt/lists/lock /var/cache/apt/archives/lock)

# dpkg_lock_holder LOCKFILE...: print the pid holding a lock on one of the
# files and return 0, or return 1 when none is held.  Reads /proc/locks
# (GHEE_PROC_LOCKS for tests), so it needs no tool and takes no lock.
dpkg_lock_holder()
{
	local f ino inos=""

	for f in "$@"; do
		ino=$(stat -L -c %i "$f" 2>/dev/null) && inos+=" $ino"
	done
	[ -n "$inos" ] || return 1
	awk -v inos="$inos" '
		BEGIN { n = split(inos, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		$2 == "->" { next }	# a waiter, not the holder
		{
			for (i = 3; i <= NF; i++) {
				if ($i !~ /^[0-9a-f]+:[0-9a-f]+:[0-9]+$/)
					continue
				split($i, p, ":")
				if (p[3] in want) { print $(i - 1); found = 1; exit }
			}
		}
		END { exit !found }' "${GHEE_PROC_LOCKS:-/proc/locks}"
}

# wait_for_dpkg_lock SECONDS [LOCKFILE...]: wait while another apt-get,
# dpkg or unattended-upgrades holds the package manager (default: the
# DPKG_LOCKS), polling every GHEE_LOCK_POLL seconds (5).  0 when free,
# 1 after SECONDS.
wait_for_dpkg_lock()
{
	local timeout=$1 waited=0 pid said=0 poll=${GHEE_LOCK_POLL:-5}

	shift
	[ $# -gt 0 ] || set -- "${DPKG_LOCKS[@]}"
	while pid=$(dpkg_lock_holder "$@"); do
		if [ "$waited" -ge "$timeout" ]; then
			echo "setup: the package manager is still locked by pid $pid after ${timeout}s; try again later" >&2
			return 1
		fi
		if [ $said = 0 ]; then
			echo "setup: waiting for the package manager, locked by pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo '?')), up to ${timeout}s" >&2
			said=1
		fi
		sleep "$poll"
		waited=$((waited + poll))
	done
	return 0
}

# tests source the functions above only
[ "${GHEE_SETUP_FUNCTIONS_ONLY:-0}" = 1 ] && return 0

do_deps=1
do_build=1
do_demo=1
builddir=$TOP/build
configure_args=()

usage()
{
	sed -n '/^# usage:/,/^#   --no-demo/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--deps-only)		do_build=0; do_demo=0 ;;
	--build-only)		do_deps=0; do_demo=0 ;;
	--builddir)		builddir=${2:?--builddir needs a directory}; shift ;;
	--builddir=*)		builddir=${1#*=} ;;
	--enable-sanitizers)	configure_args+=(--enable-sanitizers) ;;
	--no-demo)		do_demo=0 ;;
	-h|--help)		usage; exit 0 ;;
	*)			echo "setup.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

install_deps()
{
	local missing=() pkg

	for pkg in "${DEPS[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "setup: all dependencies are installed"
		return 0
	fi
	echo "setup: installing ${missing[*]}"
	if [ "$(id -u)" != 0 ]; then
		echo "setup: installing packages needs root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# another apt-get or unattended-upgrades may hold the lock for a while:
	# wait for it (apt-get itself waits too, for the dpkg lock)
	wait_for_dpkg_lock 600 || exit 1
	apt-get -o DPkg::Lock::Timeout=600 update -q
	wait_for_dpkg_lock 600 || exit 1
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
}

# "yes" when the build directory was configured with sanitizers
configured_san()
{
	grep -q "^ac_cs_config=.*--enable-sanitizers" "$builddir/config.status" 2>/dev/null &&
		echo yes || echo no
}

build()
{
	local jobs want=no

	jobs=$(nproc 2>/dev/null || echo 2)
	if [ -f "$TOP/config.status" ] && [ "$builddir" != "$TOP" ]; then
		echo "setup: $TOP is configured in-tree; run 'make distclean' there" \
		     "or pass --builddir $TOP" >&2
		exit 1
	fi
	[ -x "$TOP/configure" ] || (cd "$TOP" && autoreconf -fi)
	mkdir -p "$builddir"
	builddir=$(cd "$builddir" && pwd)
	[[ " ${configure_args[*]:-} " == *" --enable-sanitizers "* ]] && want=yes
	if [ ! -f "$builddir/Makefile" ] || [ "$(configured_san)" != "$want" ]; then
		(cd "$builddir" && "$TOP/configure" -q "${configure_args[@]}")
	fi
	make -C "$builddir" -j"$jobs" all
	# the unit tests exist only when Check was found
	if grep -q '^check_PROGRAMS = ' "$builddir/Makefile"; then
		make -C "$builddir" -j"$jobs" tests/unit/unit-tests
	fi
}

link_binary()
{
	[ "$builddir" = "$TOP" ] && return 0
	if [ -e "$TOP/ghee" ] && [ ! -L "$TOP/ghee" ]; then
		echo "setup: $TOP/ghee exists and is not a link; not replacing it"
		return 0
	fi
	ln -sfn "$builddir/ghee" "$TOP/ghee"
}

demo()
{
	local img=$TOP/examples/demo.img xz=$TOP/examples/demo.img.xz
	local made=$TOP/build/mkfs-demo.img
	local rootdir_img=$TOP/build/rootdir-demo.img

	if [ ! -f "$img" ] || [ "$xz" -nt "$img" ]; then
		# shellcheck disable=SC2216 # cp reads the pipe through /dev/stdin
		xz -dc "$xz" | cp --sparse=always /dev/stdin "$img.tmp"
		mv -f "$img.tmp" "$img"
	fi
	cd "$TOP"
	mkdir -p "$(dirname "$made")"
	# the main job: create a filesystem, then check it (ghee and btrfs-progs)
	echo "\$ ./ghee mkfs -f -b 1G $made"
	./ghee mkfs -f -b 1G "$made"
	echo
	echo "\$ ./ghee check $made"
	./ghee check "$made"
	if command -v btrfs >/dev/null 2>&1; then
		echo
		echo "\$ btrfs check --readonly $made"
		btrfs check --readonly "$made"
	fi
	# an image of a directory, cut to what it uses
	echo
	echo "\$ ./ghee mkfs -f --rootdir examples/rootdir --shrink $rootdir_img"
	rm -f "$rootdir_img"
	./ghee mkfs -f --rootdir examples/rootdir --shrink "$rootdir_img"
	echo
	echo "\$ ./ghee check --check-data-csum $rootdir_img"
	./ghee check --check-data-csum "$rootdir_img"
	echo
	echo "\$ ./ghee check examples/demo.img"
	./ghee check examples/demo.img
	echo
	echo "\$ ./ghee dump-super -f examples/demo.img"
	./ghee dump-super -f examples/demo.img
	echo
	echo "\$ ./ghee dump-tree examples/demo.img"
	./ghee dump-tree examples/demo.img
}

# plain if statements: set -e does not apply inside a function called from
# the left of && or ||
if [ $do_deps = 1 ]; then
	install_deps
fi
if [ $do_build = 1 ]; then
	build
	link_binary
fi
if [ $do_demo = 1 ]; then
	demo
fi
exit 0
