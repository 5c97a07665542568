#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# list.sh [--all] CACHE_DIR
#
# Print the names of the images built under CACHE_DIR/images/ (by
# make-images.sh), one a line, sorted.  With --all, print every image name
# make-images.sh knows, built or not.  Device files of an image NAME:
# CACHE_DIR/images/NAME.img, or for a multi-device image the files listed
# in CACHE_DIR/images/NAME.devices.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ "${1:-}" = --all ]; then
	sed -n '/^ALL_IMAGES="/,/^"/p' "$IMG_TOOLS_DIR/make-images.sh" | sed '1d;$d'
	exit 0
fi
if [ $# -ne 1 ]; then
	echo "usage: $0 [--all] CACHE_DIR" >&2
	exit 2
fi
[ -d "$1/images" ] || exit 0
img_names "$1/images"
