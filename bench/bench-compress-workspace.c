// SPDX-License-Identifier: GPL-2.0
/*
 * Compression workspaces (kernel-shared/compression.h): one
 * btrfs_compress_ws per thread keeps the zlib and zstd streams between
 * extents, against setting them up for every extent (what the stateless
 * btrfs_compress_extent does).  Workload: the extents of a tree like the
 * mkfs --rootdir benchmark's, most of them small: 4,000 pieces of 512 B -
 * 32 KiB (log-uniform) and 100 of 128 KiB, text-like data, zlib level 3
 * and zstd level 3 in turn.  Both ways must give the same bytes.
 */
#include <errno.h>
#include <string.h>
#include "bench.h"
#include "compression.h"

#define NR_SMALL	4000
#define NR_BIG		100
#define NR_PIECES	(NR_SMALL + NR_BIG)

static u8 *pool;
static size_t lens[NR_PIECES], offs[NR_PIECES];

static void make_workload(void)
{
	static const char *const words[] = { "extent ", "tree ", "leaf ", "node\n",
					      "btrfs ", "rootdir ", "0123 ", "image " };
	uint64_t seed = 42;
	size_t i = 0;

	pool = malloc(4 << 20);
	if (!pool)
		bench_die("bench-compress-workspace", "out of memory");
	while (i < (4 << 20)) {
		const char *w = words[bench_rand_below(&seed, 8)];
		size_t n = strlen(w);

		if (n > (4 << 20) - i)
			n = (4 << 20) - i;
		memcpy(pool + i, w, n);
		i += n;
		if (bench_rand_below(&seed, 16) == 0 && i < (4 << 20))
			pool[i++] = (u8)bench_rand(&seed);
	}
	for (i = 0; i < NR_PIECES; i++) {
		/* 512 B .. 32 KiB, log-uniform; then the big ones */
		lens[i] = i < NR_SMALL ? (size_t)512 << bench_rand_below(&seed, 6) : 131072;
		lens[i] += i < NR_SMALL ? bench_rand_below(&seed, lens[i]) : 0;
		if (lens[i] > BTRFS_MAX_UNCOMPRESSED)
			lens[i] = BTRFS_MAX_UNCOMPRESSED;
		offs[i] = bench_rand_below(&seed, (4 << 20) - lens[i]);
	}
}

static size_t run(struct btrfs_compress_ws *ws, u8 type, u8 *out)
{
	size_t total = 0xcbf29ce484222325ULL;

	for (int i = 0; i < NR_PIECES; i++) {
		size_t clen = BTRFS_MAX_UNCOMPRESSED;
		int ret = ws ? btrfs_compress_extent_ws(ws, type, 3, pool + offs[i], lens[i],
							4096, out, &clen) :
			       btrfs_compress_extent(type, 3, pool + offs[i], lens[i], 4096,
						     out, &clen);

		if (ret == 0) {
			/* FNV-1a of every output: both ways must match byte for byte */
			for (size_t k = 0; k < clen; k++)
				total = (total ^ out[k]) * 0x100000001b3ULL;
			total += clen;
		}
		else if (ret != -E2BIG)
			bench_die("bench-compress-workspace", "compression failed");
	}
	return total;
}

int main(void)
{
	static u8 out[BTRFS_MAX_UNCOMPRESSED];
	struct btrfs_compress_ws *ws = btrfs_compress_ws_alloc();
	double plain = 0, improved = 0;
	size_t a = 0, b = 0;

	if (!ws)
		bench_die("bench-compress-workspace", "out of memory");
	make_workload();
	printf("bench-compress-workspace: %d extents (%d small), zlib:3 and zstd:3\n",
	       NR_PIECES, NR_SMALL);
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		double t0 = bench_now(), t1, t2;

		a = run(NULL, BTRFS_COMPRESS_ZLIB, out);
		if (btrfs_compress_supported(BTRFS_COMPRESS_ZSTD))
			a ^= run(NULL, BTRFS_COMPRESS_ZSTD, out);
		t1 = bench_now();
		b = run(ws, BTRFS_COMPRESS_ZLIB, out);
		if (btrfs_compress_supported(BTRFS_COMPRESS_ZSTD))
			b ^= run(ws, BTRFS_COMPRESS_ZSTD, out);
		t2 = bench_now();
		bench_min(&plain, t1 - t0);
		bench_min(&improved, t2 - t1);
	}
	if (a != b)
		bench_die("bench-compress-workspace", "the two ways compressed differently");
	bench_report("a fresh stream per extent", plain, "a workspace per thread", improved,
		     2.0 * NR_PIECES, "extent");
	btrfs_compress_ws_free(ws);
	free(pool);
	return 0;
}
