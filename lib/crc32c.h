/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC32C (Castagnoli polynomial 0x1EDC6F41, bit-reflected 0x82F63B78).
 *
 * Convention: every function here updates a raw CRC register and does no
 * inversion of its own, so a long buffer can be summed in pieces by feeding
 * the result of one call as the seed of the next.  The standard CRC-32C of
 * a buffer (the value of the published check vectors, e.g. 0xE3069283 for
 * "123456789") is
 *
 *	~crc32c(~0U, data, len)		which crc32c_value() returns.
 *
 * btrfs seeds with ~0 and stores the inverted result little-endian, i.e.
 * exactly crc32c_value().
 *
 * crc32c() uses the SSE4.2 crc32 instruction when the CPU has it (detected
 * at run time, the build needs no -msse4.2) and a portable slice-by-8 table
 * otherwise.  crc32c_portable() and crc32c_accel() name one implementation
 * each so that tests can compare them; crc32c_accel() may only be called
 * when crc32c_accel_available() is true.
 */
#ifndef GHEE_LIB_CRC32C_H
#define GHEE_LIB_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint32_t crc32c(uint32_t seed, const void *data, size_t len);
uint32_t crc32c_portable(uint32_t seed, const void *data, size_t len);
uint32_t crc32c_accel(uint32_t seed, const void *data, size_t len);
bool crc32c_accel_available(void);

/* the standard CRC-32C of a whole buffer: seed ~0, result inverted */
static inline uint32_t crc32c_value(const void *data, size_t len)
{
	return ~crc32c(~0U, data, len);
}

#endif
