#!/bin/bash
# libFuzzer on tree-block verification and printing (tests/fuzz/fuzz-tree-block.c),
# seeded with real 4 KiB blocks, for a bounded time.  Any crash, leak or
# sanitizer report fails the test and leaves the reproducer in the log.
source "$TOP/tests/common.sh"
need_progs clang mkfs.btrfs

: "${GHEE_FUZZ_SECONDS:=20}"
# the binary of this source tree: the cache may be shared
bin=$CACHE/fuzz/$(source_key)/fuzz-tree-block
bash "$TOP/tests/fuzz/build.sh" fuzz-tree-block "$bin" || exit $?

seeds=$TEST_TMP/seeds
mkdir -p "$seeds"
img=$TEST_TMP/seed.img
mkdir -p "$TEST_TMP/root/dir"
for i in $(seq 1 40); do echo "file $i" > "$TEST_TMP/root/dir/f$i"; done
ln -s dir/f1 "$TEST_TMP/root/link"
truncate -s 256M "$img"
mkfs.btrfs -q -f -n 4096 --rootdir "$TEST_TMP/root" "$img" >/dev/null ||
	fail "mkfs.btrfs failed"
# carve every 4 KiB block carrying the filesystem's fsid in its header
python3 - "$img" "$seeds" <<'PY'
import sys
img, out = sys.argv[1], sys.argv[2]
with open(img, 'rb') as f:
    f.seek(65536 + 32)
    fsid = f.read(16)
    f.seek(0)
    n = 0
    off = 0
    while n < 400:
        blk = f.read(4096)
        if len(blk) < 4096:
            break
        if blk[32:48] == fsid and off != 65536:
            open(f"{out}/blk{n}", 'wb').write(blk)
            n += 1
        off += 4096
PY
[ "$(ls "$seeds" | wc -l)" -gt 5 ] || fail "no seed blocks carved"

cd "$TEST_TMP" || fail "no temp dir"
"$bin" -max_total_time="$GHEE_FUZZ_SECONDS" -rss_limit_mb=2048 -print_final_stats=1 \
	"$seeds" 2>&1 | tail -n 25
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "fuzzer found a problem (exit $rc)"
exit 0
