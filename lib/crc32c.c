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

#ifdef __x86_64__
/*
 * The crc32 instruction has a latency of about three cycles but can
 * start one per cycle, so one dependent chain leaves it two thirds idle.
 * Long inputs are cut into rounds of three lanes of CRC32C_LANE bytes
 * whose registers advance side by side, the last two from zero.  The CRC
 * register is linear: feeding n more bytes into register r gives
 * shift_n(r) xor (the same bytes fed into zero), where shift_n(r) is r
 * followed by n zero bytes.  So a round's result is
 * shift_2L(a) ^ shift_L(b) ^ c, and shift_n, itself linear, is four
 * byte-indexed tables built once from the 32 single-bit registers.
 */
#define CRC32C_LANE	1024

struct crc32c_shift {
	uint32_t t[4][256];
};

static struct crc32c_shift crc32c_shift_lane;	/* by CRC32C_LANE bytes */
static struct crc32c_shift crc32c_shift_2lane;	/* by 2 * CRC32C_LANE bytes */
static pthread_once_t crc32c_shift_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2")))
static uint32_t crc32c_zeros(uint32_t crc, size_t len)
{
	uint64_t crc64 = crc;

	for (; len >= 8; len -= 8)
		crc64 = _mm_crc32_u64(crc64, 0);
	return (uint32_t)crc64;
}

/*
 * Entry i of byte table k is the xor of the shifted single bits set in i:
 * built from the entry without i's lowest bit, one xor per entry.
 */
static void crc32c_fill_shift(struct crc32c_shift *sh, const uint32_t bit[32])
{
	int i, k;

	for (k = 0; k < 4; k++) {
		sh->t[k][0] = 0;
		for (i = 1; i < 256; i++)
			sh->t[k][i] = sh->t[k][i & (i - 1)] ^ bit[8 * k + __builtin_ctz(i)];
	}
}

static inline uint32_t crc32c_shift(const struct crc32c_shift *sh, uint32_t crc);

/*
 * Built once per process, cheaply (short commands check a handful of
 * blocks): the single bits are advanced through CRC32C_LANE zero bytes by
 * the instruction, and through twice as many by applying that table twice.
 */
static void crc32c_build_shifts(void)
{
	uint32_t bit[32];
	int i;

	for (i = 0; i < 32; i++)
		bit[i] = crc32c_zeros(1U << i, CRC32C_LANE);
	crc32c_fill_shift(&crc32c_shift_lane, bit);
	for (i = 0; i < 32; i++)
		bit[i] = crc32c_shift(&crc32c_shift_lane, bit[i]);
	crc32c_fill_shift(&crc32c_shift_2lane, bit);
}

static inline uint32_t crc32c_shift(const struct crc32c_shift *sh, uint32_t crc)
{
	return sh->t[0][crc & 0xff] ^ sh->t[1][(crc >> 8) & 0xff] ^
	       sh->t[2][(crc >> 16) & 0xff] ^ sh->t[3][crc >> 24];
}

static inline uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_three_lanes(uint32_t crc, const uint8_t **pp, size_t *lenp)
{
	const uint8_t *p = *pp;
	size_t len = *lenp, i;

	pthread_once(&crc32c_shift_once, crc32c_build_shifts);
	while (len >= 3 * CRC32C_LANE) {
		uint64_t a = crc, b = 0, c = 0;

		for (i = 0; i < CRC32C_LANE; i += 8) {
			a = _mm_crc32_u64(a, load_u64(p + i));
			b = _mm_crc32_u64(b, load_u64(p + CRC32C_LANE + i));
			c = _mm_crc32_u64(c, load_u64(p + 2 * CRC32C_LANE + i));
		}
		crc = crc32c_shift(&crc32c_shift_2lane, (uint32_t)a) ^
		      crc32c_shift(&crc32c_shift_lane, (uint32_t)b) ^ (uint32_t)c;
		p += 3 * CRC32C_LANE;
		len -= 3 * CRC32C_LANE;
	}
	*pp = p;
	*lenp = len;
	return crc;
}
#endif

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
		uint64_t crc64;

		if (len >= 3 * CRC32C_LANE)
			crc = crc32c_three_lanes(crc, &p, &len);
		crc64 = crc;
		while (len >= 8) {
			crc64 = _mm_crc32_u64(crc64, load_u64(p));
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
