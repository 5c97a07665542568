#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh CACHE_DIR [NAME...]
#
# Run `btrfs check --readonly` on the built images (all of them, or the
# named ones) and print "ok NAME" or "FAIL NAME" followed by the check
# output.  Multi-device images are checked through read-only loop devices,
# which needs root.  Exit 0 when all are clean, 1 otherwise, 2 on usage.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ $# -lt 1 ]; then
	echo "usage: $0 CACHE_DIR [NAME...]" >&2
	exit 2
fi
dir=$1/images
shift
if [ $# -eq 0 ]; then
	mapfile -t names < <(img_names "$dir")
	set -- "${names[@]}"
fi
log=$(mktemp /tmp/ghee-images-check.XXXXXX)
trap 'rm -f "$log"' EXIT
ret=0
for name in "$@"; do
	if ! [ -f "$dir/$name.img" ]; then
		echo "FAIL $name: no image $dir/$name.img"
		ret=1
	elif img_check "$dir" "$name" "$log"; then
		echo "ok $name"
	else
		echo "FAIL $name: btrfs check --readonly:"
		sed 's/^/    /' "$log"
		ret=1
	fi
done
exit $ret
