#!/bin/bash
# The first chunks where mkfs.btrfs 6.2 puts them: logical address,
# length, type and profile, device offsets of every stripe, for several
# profiles and device sizes (the free places its bootstrap chunks leave
# included).  The kernel needs those small holes: a full balance of a
# small DUP-data/single-metadata filesystem with some data relocates its
# metadata chunk into one after the data chunks took the large holes.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

need_ghee
need_progs_version
need_progs mkfs.btrfs python3

img=$TEST_TMP/img
ref=$TEST_TMP/ref

# layout IMG: one line per chunk
layout()
{
	btrfs inspect-internal dump-tree -t chunk "$1" | awk '
		/CHUNK_ITEM/ { sub(/\)/, "", $6); printf "\nL%s", $6 }
		/length/ { printf " %s %s", $2, $8 }
		/stripe [0-9]+ devid/ { printf " %s@%s", $4, $6 }
		END { print "" }'
}

for size in 109M 200M 512M 3G 60G; do
	for opts in "" "-d dup -m single" "-M" "-d dup" "-m single -d single" "-m single"; do
		new_image "$img" "$size"
		new_image "$ref" "$size"
		# shellcheck disable=SC2086
		mkfs.btrfs -q -f $opts "$ref" >/dev/null 2>&1 || continue
		# shellcheck disable=SC2086
		ghee_mkfs $opts "$img"
		a=$(layout "$img")
		b=$(layout "$ref")
		[ "$a" = "$b" ] || fail "chunks of $size [$opts] differ from mkfs.btrfs: ghee:$a
mkfs.btrfs:$b"
	done
done

# the balance that needs a bootstrap hole (without --rootdir)
if [ "$(id -u)" = 0 ] && losetup -f >/dev/null 2>&1 && grep -qw btrfs /proc/filesystems; then
	mnt=$TEST_TMP/mnt
	make_tree "$TEST_TMP/src"
	new_image "$img" 512M
	ghee_mkfs -d dup -m single "$img"
	mount_image "$img" "$mnt"
	{
		cp -a "$TEST_TMP/src/." "$mnt/" &&
		head -c 3M /dev/urandom > "$mnt/new-file" &&
		rm -f "$mnt/f4096" "$mnt/sparse-mid" &&
		btrfs subvolume snapshot "$mnt" "$mnt/snap" >/dev/null && sync &&
		btrfs scrub start -B "$mnt" >/dev/null &&
		btrfs balance start --full-balance "$mnt" >/dev/null 2>&1
	} || { umount_image "$mnt"; fail "the kernel's full balance of -d dup -m single failed"; }
	umount_image "$mnt" || fail "umount failed"
	check_all "$img"
fi
exit 0
