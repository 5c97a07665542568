#!/bin/bash
# libFuzzer on superblock validation and the whole dump-super command
# (tests/fuzz/fuzz-super.c), seeded with real superblocks of every csum
# type and feature mix, for a bounded time.
source "$TOP/tests/common.sh"
need_progs mkfs.btrfs

: "${GHEE_FUZZ_SECONDS:=20}"
# the binary of this source tree: the cache may be shared
bin=$CACHE/fuzz/$(source_key)/fuzz-super
bash "$TOP/tests/fuzz/build.sh" fuzz-super "$bin" cmds/dump-super.c cmds/dump-super-print.c cmds/messages.c ||
	exit $?

seeds=$TEST_TMP/seeds
mkdir -p "$seeds"
n=0
for opts in "--csum crc32c" "--csum xxhash" "--csum sha256" "--csum blake2" \
	    "-n 4096 -O ^no-holes" "--mixed" "-R ^free-space-tree -L label"; do
	img=$TEST_TMP/seed$n.img
	truncate -s 256M "$img"
	# shellcheck disable=SC2086
	mkfs.btrfs -q -f $opts "$img" >/dev/null 2>&1 || fail "mkfs.btrfs $opts failed"
	dd if="$img" of="$seeds/sb$n" bs=4096 skip=16 count=1 status=none
	n=$((n + 1))
done

cd "$TEST_TMP" || fail "no temp dir"
"$bin" -max_total_time="$GHEE_FUZZ_SECONDS" -rss_limit_mb=2048 -close_fd_mask=2 \
	"$seeds" 2>&1 | tail -n 5
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "fuzzer found a problem (exit $rc)"
exit 0
