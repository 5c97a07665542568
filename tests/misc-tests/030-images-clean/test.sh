#!/bin/bash
# Build (or reuse) the kernel-written test images in $CACHE/images with
# tests/images/make-images.sh, then assert that every image exists and that
# btrfs check --readonly finds each one clean.
source "$TOP/tests/common.sh"

need_root
need_loop
need_kernel_btrfs
need_progs btrfs mkfs.btrfs python3

images=$TOP/tests/images
"$images/make-images.sh" "$CACHE"
rc=$?
[ $rc -eq 77 ] && skip "make-images.sh cannot build images here"
[ $rc -eq 0 ] || fail "make-images.sh failed (exit $rc)"

built=$("$images/list.sh" "$CACHE")
for name in $("$images/list.sh" --all); do
	if ! grep -qx "$name" <<< "$built"; then
		# the only optional image: needs an mkfs.btrfs with block-group-tree
		[ "$name" = mkfs-bgt ] && continue
		fail "image $name was not built"
	fi
done

"$images/check.sh" "$CACHE" || fail "some images are not clean"
echo "$(echo "$built" | wc -l) images clean"
exit 0
