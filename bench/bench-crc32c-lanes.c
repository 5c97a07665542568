// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32C of tree blocks: crc32c_accel() (lib/crc32c.c), which runs three
 * independent crc32 instruction chains side by side over inputs of 3 KiB
 * and more and joins them with shift tables, vs one dependent chain of
 * crc32 instructions over the whole input (the way the library did it
 * before).  Workload: the checksummed part (16 KiB - 32 bytes) of 2,048
 * random 16 KiB blocks, 8 passes, as check does for every tree block it
 * reads.  Needs an x86-64 CPU with SSE4.2; prints why and exits 0 otherwise.
 */
#include <stdbool.h>
#include <string.h>
#include "bench.h"
#include "crc32c.h"

#define BLOCK		16384
#define CSUM_OFFSET	32
#define BLOCKS		2048
#define PASSES		8

#ifdef __x86_64__
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t one_chain(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t crc64 = crc, word;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&word, p, 8);
		crc64 = _mm_crc32_u64(crc64, word);
	}
	crc = (uint32_t)crc64;
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

static double run(const uint8_t *blocks, bool lanes, uint32_t *sum)
{
	double t = bench_now();
	int pass, i;

	for (pass = 0; pass < PASSES; pass++) {
		for (i = 0; i < BLOCKS; i++) {
			const uint8_t *b = blocks + (size_t)i * BLOCK + CSUM_OFFSET;

			*sum ^= lanes ? crc32c_accel(~0U, b, BLOCK - CSUM_OFFSET) :
					one_chain(~0U, b, BLOCK - CSUM_OFFSET);
		}
	}
	return bench_now() - t;
}

int main(void)
{
	double best_plain = 0, best_lanes = 0;
	uint32_t sum_plain = 0, sum_lanes = 0;
	uint64_t seed = 1;
	uint8_t *blocks;
	size_t i;
	int round;

	if (!crc32c_accel_available()) {
		printf("bench-crc32c-lanes: no SSE4.2 on this CPU, nothing to compare\n");
		return 0;
	}
	blocks = malloc((size_t)BLOCKS * BLOCK);
	if (!blocks)
		bench_die("bench-crc32c-lanes", "out of memory");
	for (i = 0; i < (size_t)BLOCKS * BLOCK; i++)
		blocks[i] = (uint8_t)bench_rand(&seed);
	printf("bench-crc32c-lanes: crc32c of %d x %d bytes, %d passes,\n"
	       "one crc32 chain vs three interleaved lanes\n",
	       BLOCKS, BLOCK - CSUM_OFFSET, PASSES);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		if (round & 1)
			bench_min(&best_lanes, run(blocks, true, &sum_lanes));
		bench_min(&best_plain, run(blocks, false, &sum_plain));
		if (!(round & 1))
			bench_min(&best_lanes, run(blocks, true, &sum_lanes));
	}
	if (sum_plain != sum_lanes)
		bench_die("bench-crc32c-lanes", "the two ways computed different checksums");
	bench_report("plain (one crc32 chain)", best_plain,
		     "improved (three lanes + shift tables)", best_lanes,
		     (double)BLOCKS * PASSES, "block");
	free(blocks);
	return 0;
}
#else
int main(void)
{
	printf("bench-crc32c-lanes: not an x86-64 build, nothing to compare\n");
	return 0;
}
#endif
