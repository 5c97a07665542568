#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build ghee (configure + make, in ./build) and run the whole test suite.
# The last line printed is "N passed, N failed, N skipped".
#
# usage: ./run-tests.sh [--sanitizers] [--builddir DIR] [--filter GLOB]
#                       [--timeout SEC]
#
#   --sanitizers  build in ./build-asan with --enable-sanitizers and run the
#                 suite with strict ASan/UBSan settings
#   other options go to tests/run-tests.sh
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
builddir=$TOP/build
build_args=()
args=()

while [ $# -gt 0 ]; do
	case "$1" in
	--sanitizers)	builddir=$TOP/build-asan
			build_args+=(--enable-sanitizers)
			args+=(--sanitizers)
			# the images of the normal pass need not be made twice
			export GHEE_SHARE_CACHE=${GHEE_SHARE_CACHE:-$TOP/build/tests/cache} ;;
	--builddir)	custom_builddir=${2:?--builddir needs a directory}; shift ;;
	--builddir=*)	custom_builddir=${1#*=} ;;
	*)		args+=("$1") ;;
	esac
	shift
done
builddir=${custom_builddir:-$builddir}

if ! "$TOP/setup.sh" --build-only --builddir "$builddir" "${build_args[@]}"; then
	echo "build failed in $builddir"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
exec "$TOP/tests/run-tests.sh" --builddir "$builddir" "${args[@]}"
