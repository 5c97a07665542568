#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh TARGET OUT [EXTRA_SOURCES...]: build tests/fuzz/TARGET.c as a
# libFuzzer binary with ASan+UBSan, instrumenting the whole engine and lib
# (every kernel-shared/ and lib/ source) plus the extra command sources.
# Objects are kept next to OUT (the callers keep OUT in a directory of
# this source tree: the cache may be shared by several checkouts,
# GHEE_SHARE_CACHE, whose sources differ), and shared by every fuzz
# target, so each source is compiled once and only again when it (or a
# header) changes.
# Exit 77 without clang.
set -u
target=$1 out=$2
shift 2
cd "$TOP" || exit 1
command -v clang >/dev/null 2>&1 || { echo "SKIP: clang is not installed"; exit 77; }
objdir=$(dirname "$out")/obj
mkdir -p "$objdir"
# one build at a time: the fuzz targets share the objects
exec 9> "$objdir/.lock"
flock 9
# the libraries configure found for this build (with zstd, lzo or not)
build_var()
{
	sed -n "s/^$1 = //p" "$BUILDDIR/Makefile"
}
libs=()
lib_cflags=()
for lib in BLKID UUID ZLIB XXHASH SODIUM ZSTD LZO; do
	read -r -a words <<< "$(build_var ${lib}_LIBS)"
	libs+=("${words[@]}")
	read -r -a words <<< "$(build_var ${lib}_CFLAGS)"
	lib_cflags+=("${words[@]}")
done
cflags=(-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
	-D_GNU_SOURCE -I"$BUILDDIR" -I. -Ikernel-shared -Ilib "${lib_cflags[@]}")

# a missing libFuzzer runtime is a reason to skip; our own link errors fail
probe=$(dirname "$out")/probe
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n > 1 ? 0 : 0; }\n' |
	clang -fsanitize=fuzzer,address,undefined -x c - -o "$probe" 2>/dev/null ||
	{ echo "SKIP: clang cannot link a libFuzzer target (libclang-rt-14-dev missing?)"; exit 77; }
rm -f "$probe"
srcs=(tests/fuzz/"$target".c lib/*.c kernel-shared/*.c "$@")
newest_header=$(ls -t kernel-shared/*.h lib/*.h cmds/*.h cmds/*/*.h 2>/dev/null | head -n 1)

objs=()
todo=()
for s in "${srcs[@]}"; do
	o=$objdir/$(echo "$s" | tr '/' '_').o
	objs+=("$o")
	if [ ! -e "$o" ] || [ "$s" -nt "$o" ] || [ "$newest_header" -nt "$o" ]; then
		todo+=("$s")
	fi
done
export objdir
if [ ${#todo[@]} -gt 0 ]; then
	printf '%s\n' "${todo[@]}" |
		CFLAGS_LIST="${cflags[*]}" xargs -P "$(nproc)" -I{} \
		bash -c 'clang $CFLAGS_LIST -c "$1" -o "$objdir/$(echo "$1" | tr / _).o"' _ {} ||
		{ echo "FAIL: cannot build the fuzzer"; exit 1; }
fi
clang -fsanitize=fuzzer,address,undefined "${objs[@]}" "${libs[@]}" -lpthread -lm -o "$out" ||
	{ echo "FAIL: cannot link the fuzzer"; exit 1; }
