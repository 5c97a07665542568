#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh TARGET OUT [EXTRA_SOURCES...]: build tests/fuzz/TARGET.c as a
# libFuzzer binary with ASan+UBSan, instrumenting the whole engine and lib
# (every kernel-shared/ and lib/ source) plus the extra command sources.
# Rebuilds only when a source is newer than OUT.  Exit 77 without clang.
set -u
target=$1 out=$2
shift 2
cd "$TOP" || exit 1
command -v clang >/dev/null 2>&1 || { echo "SKIP: clang is not installed"; exit 77; }
srcs=(tests/fuzz/"$target".c lib/*.c kernel-shared/*.c "$@")
if [ -x "$out" ]; then
	newer=0
	for s in "${srcs[@]}" kernel-shared/*.h lib/*.h cmds/*.h; do
		[ "$s" -nt "$out" ] && newer=1 && break
	done
	[ $newer = 0 ] && exit 0
fi
mkdir -p "$(dirname "$out")"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I"$BUILDDIR" -I. -Ikernel-shared -Ilib "${srcs[@]}" \
	$(pkg-config --cflags --libs libxxhash libsodium blkid uuid zlib) -lpthread \
	-o "$out" || { echo "SKIP: cannot build the fuzzer (libclang-rt-14-dev missing?)"; exit 77; }
