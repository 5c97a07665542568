// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32C, two ways: the SSE4.2 crc32 instruction and a portable
 * slice-by-8 table walk.  See crc32c.h for the seed/inversion convention.
 *
 * Setting the environment variable GHEE_CRC32C=portable before the first
 * call makes crc32c() use the table code even on a CPU with SSE4.2, so
 * whole-program tests can exercise the fallback.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "crc32c.h"

#if defined(__x86_64__) || defined(__i386__)
#define CRC32C_HAVE_X86 1
#include <nmmintrin.h>
#endif

/* bit-reflected Castagnoli polynomial */
#define CRC32C_POLY_REFLECTED	0x82F63B78U

/*
 * table[k][b] is the CRC register after feeding byte b followed by k zero
 * bytes into a zero register; slice-by-8 folds eight bytes per step with it.
 */
static uint32_t crc32c_table[8][256];
static pthread_once_t crc32c_table_once = PTHREAD_ONCE_INIT;

static void crc32c_build_table(void)
{
	uint32_t crc;
	int i, bit, k;

	for (i = 0; i < 256; i++) {
		crc = i;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ ((crc & 1) ? CRC32C_POLY_REFLECTED : 0);
		crc32c_table[0][i] = crc;
	}
	for (i = 0; i < 256; i++) {
		crc = crc32c_table[0][i];
		for (k = 1; k < 8; k++) {
			crc = (crc >> 8) ^ crc32c_table[0][crc & 0xff];
			crc32c_table[k][i] = crc;
		}
	}
}

static inline uint32_t crc32c_byte(uint32_t crc, uint8_t b)
{
	return (crc >> 8) ^ crc32c_table[0][(crc ^ b) & 0xff];
}

/* byte loads keep this independent of host endianness and alignment */
static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crc32c_portable(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t lo;

	pthread_once(&crc32c_table_once, crc32c_build_table);
	while (len >= 8) {
		lo = crc ^ load_le32(p);
		crc = crc32c_table[7][lo & 0xff] ^
		      crc32c_table[6][(lo >> 8) & 0xff] ^
		      crc32c_table[5][(lo >> 16) & 0xff] ^
		      crc32c_table[4][lo >> 24] ^
		      crc32c_table[3][p[4]] ^
		      crc32c_table[2][p[5]] ^
		      crc32c_table[1][p[6]] ^
		      crc32c_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc32c_byte(crc, *p++);
	return crc;
}

#ifdef CRC32C_HAVE_X86
bool crc32c_accel_available(void)
{
	return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2")))
uint32_t crc32c_accel(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	/* align the pointer first so the wide loop reads whole words */
	while (len && ((uintptr_t)p & 7)) {
		crc = _mm_crc32_u8(crc, *p++);
		len--;
	}
#ifdef __x86_64__
	{
		uint64_t crc64 = crc, word;

		while (len >= 8) {
			memcpy(&word, p, 8);
			crc64 = _mm_crc32_u64(crc64, word);
			p += 8;
			len -= 8;
		}
		crc = (uint32_t)crc64;
	}
#endif
	while (len >= 4) {
		uint32_t word;

		memcpy(&word, p, 4);
		crc = _mm_crc32_u32(crc, word);
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}
#else
bool crc32c_accel_available(void)
{
	return false;
}

/* no instruction to use on this architecture: same result, table speed */
uint32_t crc32c_accel(uint32_t crc, const void *data, size_t len)
{
	return crc32c_portable(crc, data, len);
}
#endif

/* the implementation crc32c() uses, chosen once per process */
static uint32_t (*crc32c_impl)(uint32_t, const void *, size_t);
static pthread_once_t crc32c_impl_once = PTHREAD_ONCE_INIT;

static void crc32c_choose_impl(void)
{
	const char *force = getenv("GHEE_CRC32C");

	if (crc32c_accel_available() && !(force && !strcmp(force, "portable")))
		crc32c_impl = crc32c_accel;
	else
		crc32c_impl = crc32c_portable;
}

uint32_t crc32c(uint32_t seed, const void *data, size_t len)
{
	pthread_once(&crc32c_impl_once, crc32c_choose_impl);
	return crc32c_impl(seed, data, len);
}
