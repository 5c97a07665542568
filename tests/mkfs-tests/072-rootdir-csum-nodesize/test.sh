#!/bin/bash
# mkfs --rootdir with every checksum type and the smallest and largest
# node sizes (symlinks and xattrs near the leaf limit of 4 KiB nodes),
# and a DUP data/single metadata mix: three checks clean, equal to the
# source, and after a read-write workload with a full balance.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"

rootdir_setup
make_tree "$src"
# 4 KiB nodes hold no 3000-byte xattr: a tree without it for -n 4096
small=$TEST_TMP/small
cp -a "$src" "$small"
setfattr -x user.big "$small/xattrs"
rm -f "$small/longlink"
ln -s "$(printf 'u%.0s' $(seq 3900))" "$small/longlink"
touch -h -d @1500000000 "$small/longlink"

for c in xxhash sha256 blake2; do
	roundtrip "$src" "$img" "$mnt" --csum "$c"
done
roundtrip "$small" "$img" "$mnt" -n 4096
roundtrip "$src" "$img" "$mnt" -n 65536
workload "$img" "$mnt"
# single metadata and DUP data: the kernel's full balance of the
# workload needs the free bootstrap places mkfs.btrfs leaves (the
# relocated metadata chunk goes there), ghee leaves them too
roundtrip "$src" "$img" "$mnt" -d dup -m single
workload "$img" "$mnt"
exit 0
