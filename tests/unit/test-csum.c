// SPDX-License-Identifier: GPL-2.0
/*
 * Checksums: published test vectors for all four btrfs csum types, the
 * byte layout btrfs stores, and agreement of the SSE4.2 and portable
 * CRC32C code on every length and misalignment.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "suites.h"
#include "csum.h"
#include "crc32c.h"

static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t state = seed | 1;
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(test_rand(&state) >> 32);
}

static void hex_to_bytes(const char *hex, uint8_t *out, size_t len)
{
	size_t i;
	unsigned int v;

	for (i = 0; i < len; i++) {
		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64_at(const uint8_t *p)
{
	return (uint64_t)le32_at(p) | (uint64_t)le32_at(p + 4) << 32;
}

/* crc32c_value() with each implementation must give @expect */
static void check_crc_all_impls(const void *data, size_t len, uint32_t expect)
{
	ck_assert_uint_eq(crc32c_value(data, len), expect);
	ck_assert_uint_eq(~crc32c_portable(~0U, data, len), expect);
	if (crc32c_accel_available())
		ck_assert_uint_eq(~crc32c_accel(~0U, data, len), expect);
}

START_TEST(test_crc32c_check_value)
{
	check_crc_all_impls("123456789", 9, 0xE3069283U);
	check_crc_all_impls("", 0, 0);
	/* the raw register form btrfs code calls: seed ~0, no inversion */
	ck_assert_uint_eq(crc32c(~0U, "123456789", 9), ~0xE3069283U);
}
END_TEST

/* RFC 3720 appendix B.4 */
START_TEST(test_crc32c_rfc3720)
{
	static const uint8_t read_pdu[48] = {
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
		0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	uint8_t buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	check_crc_all_impls(buf, sizeof(buf), 0x8A9136AAU);
	memset(buf, 0xff, sizeof(buf));
	check_crc_all_impls(buf, sizeof(buf), 0x62A8AB43U);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	check_crc_all_impls(buf, sizeof(buf), 0x46DD794EU);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	check_crc_all_impls(buf, sizeof(buf), 0x113FDB5CU);
	check_crc_all_impls(read_pdu, sizeof(read_pdu), 0xD9963A56U);
}
END_TEST

/* every length 0..1024 at every misalignment 0..15, two seeds */
START_TEST(test_crc32c_impls_agree)
{
	static uint8_t buf[1024 + 16];
	static const uint32_t seeds[] = { ~0U, 0x12345678U };
	size_t len, off, s;
	uint32_t a, b;

	if (!crc32c_accel_available())
		return;
	fill_random(buf, sizeof(buf), 0x9e3779b97f4a7c15ULL);
	for (s = 0; s < 2; s++) {
		for (off = 0; off < 16; off++) {
			for (len = 0; len <= 1024; len++) {
				a = crc32c_portable(seeds[s], buf + off, len);
				b = crc32c_accel(seeds[s], buf + off, len);
				ck_assert_msg(a == b,
					      "len %zu off %zu seed %08x: portable %08x accel %08x",
					      len, off, seeds[s], a, b);
			}
		}
	}
}
END_TEST

/*
 * Long inputs take the interleaved three-lane path: lengths around each
 * multiple of its round (3 KiB), a tree block's checksummed part, and a
 * random sample up to 64 KiB, misaligned and with two seeds.
 */
START_TEST(test_crc32c_impls_agree_long)
{
	static uint8_t buf[65536 + 16];
	static const uint32_t seeds[] = { ~0U, 0x12345678U };
	size_t lens[200], nr = 0, i, off, s;
	uint64_t state = 7;
	size_t round;
	uint32_t a, b;

	if (!crc32c_accel_available())
		return;
	fill_random(buf, sizeof(buf), 0x2545f4914f6cdd1dULL);
	for (round = 3072; round <= 4 * 3072; round += 3072) {
		lens[nr++] = round - 1;
		lens[nr++] = round;
		lens[nr++] = round + 7;
	}
	lens[nr++] = 16384 - 32;
	lens[nr++] = 65536 - 32;
	lens[nr++] = 65536;
	while (nr < sizeof(lens) / sizeof(lens[0]))
		lens[nr++] = test_rand(&state) % 65537;
	for (s = 0; s < 2; s++) {
		for (i = 0; i < nr; i++) {
			for (off = 0; off < 16; off += 5) {
				a = crc32c_portable(seeds[s], buf + off, lens[i]);
				b = crc32c_accel(seeds[s], buf + off, lens[i]);
				ck_assert_msg(a == b,
					      "len %zu off %zu seed %08x: portable %08x accel %08x",
					      lens[i], off, seeds[s], a, b);
			}
		}
	}
}
END_TEST

/* the register form chains: crc(a+b) == crc(b, seed = crc(a)) */
START_TEST(test_crc32c_chaining)
{
	static uint8_t buf[4096];
	uint32_t whole, part;
	size_t split;

	fill_random(buf, sizeof(buf), 42);
	whole = crc32c(~0U, buf, sizeof(buf));
	for (split = 0; split <= sizeof(buf); split += 97) {
		part = crc32c(~0U, buf, split);
		part = crc32c(part, buf + split, sizeof(buf) - split);
		ck_assert_uint_eq(part, whole);
		part = crc32c_portable(~0U, buf, split);
		part = crc32c_portable(part, buf + split, sizeof(buf) - split);
		ck_assert_uint_eq(part, whole);
	}
}
END_TEST

START_TEST(test_csum_crc32c_layout)
{
	uint8_t out[BTRFS_CSUM_SIZE];
	static const uint8_t expect[4] = { 0x83, 0x92, 0x06, 0xe3 };
	int i;

	memset(out, 0xaa, sizeof(out));
	ck_assert_int_eq(btrfs_csum_data(BTRFS_CSUM_TYPE_CRC32, "123456789", 9, out), 0);
	ck_assert_mem_eq(out, expect, 4);
	for (i = 4; i < BTRFS_CSUM_SIZE; i++)
		ck_assert_uint_eq(out[i], 0);
}
END_TEST

START_TEST(test_csum_xxhash64)
{
	uint8_t out[BTRFS_CSUM_SIZE];
	int i;

	memset(out, 0xaa, sizeof(out));
	ck_assert_int_eq(btrfs_csum_data(BTRFS_CSUM_TYPE_XXHASH, "", 0, out), 0);
	ck_assert_uint_eq(le64_at(out), 0xEF46DB3751D8E999ULL);
	for (i = 8; i < BTRFS_CSUM_SIZE; i++)
		ck_assert_uint_eq(out[i], 0);
	ck_assert_int_eq(btrfs_csum_data(BTRFS_CSUM_TYPE_XXHASH, "abc", 3, out), 0);
	ck_assert_uint_eq(le64_at(out), 0x44BC2CF5AD770999ULL);
}
END_TEST

static void check_digest(u16 type, const char *msg, const char *hex)
{
	uint8_t out[BTRFS_CSUM_SIZE], expect[32];

	hex_to_bytes(hex, expect, sizeof(expect));
	memset(out, 0xaa, sizeof(out));
	ck_assert_int_eq(btrfs_csum_data(type, msg, strlen(msg), out), 0);
	ck_assert_mem_eq(out, expect, 32);
}

START_TEST(test_csum_sha256)
{
	check_digest(BTRFS_CSUM_TYPE_SHA256, "abc",
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_digest(BTRFS_CSUM_TYPE_SHA256, "",
		     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(test_csum_blake2b)
{
	check_digest(BTRFS_CSUM_TYPE_BLAKE2, "abc",
		     "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
	check_digest(BTRFS_CSUM_TYPE_BLAKE2, "",
		     "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
}
END_TEST

START_TEST(test_csum_type_info)
{
	uint8_t out[BTRFS_CSUM_SIZE];

	ck_assert(btrfs_csum_type_valid(BTRFS_CSUM_TYPE_CRC32));
	ck_assert(btrfs_csum_type_valid(BTRFS_CSUM_TYPE_BLAKE2));
	ck_assert(!btrfs_csum_type_valid(4));
	ck_assert(!btrfs_csum_type_valid(0xffff));
	ck_assert_uint_eq(btrfs_csum_type_size(BTRFS_CSUM_TYPE_CRC32), 4);
	ck_assert_uint_eq(btrfs_csum_type_size(BTRFS_CSUM_TYPE_XXHASH), 8);
	ck_assert_uint_eq(btrfs_csum_type_size(BTRFS_CSUM_TYPE_SHA256), 32);
	ck_assert_uint_eq(btrfs_csum_type_size(BTRFS_CSUM_TYPE_BLAKE2), 32);
	ck_assert_uint_eq(btrfs_csum_type_size(4), 0);
	ck_assert_str_eq(btrfs_csum_type_name(BTRFS_CSUM_TYPE_CRC32), "crc32c");
	ck_assert_str_eq(btrfs_csum_type_name(BTRFS_CSUM_TYPE_XXHASH), "xxhash64");
	ck_assert_str_eq(btrfs_csum_type_name(BTRFS_CSUM_TYPE_SHA256), "sha256");
	ck_assert_str_eq(btrfs_csum_type_name(BTRFS_CSUM_TYPE_BLAKE2), "blake2");
	ck_assert_str_eq(btrfs_csum_type_name(4), "INVALID");
	ck_assert_int_eq(btrfs_csum_data(4, "abc", 3, out), -EINVAL);
}
END_TEST

/* a btrfs superblock's csum covers bytes 32..4095 of the block */
START_TEST(test_csum_superblock_region)
{
	static uint8_t sb[4096];
	uint8_t out[BTRFS_CSUM_SIZE];

	fill_random(sb, sizeof(sb), 7);
	ck_assert_int_eq(btrfs_csum_data(BTRFS_CSUM_TYPE_CRC32, sb + BTRFS_CSUM_SIZE,
					 sizeof(sb) - BTRFS_CSUM_SIZE, out), 0);
	ck_assert_uint_eq(le32_at(out),
			  ~crc32c_portable(~0U, sb + BTRFS_CSUM_SIZE,
					   sizeof(sb) - BTRFS_CSUM_SIZE));
}
END_TEST

Suite *csum_suite(void)
{
	Suite *s = suite_create("csum");
	TCase *tc;

	tc = tcase_create("crc32c");
	tcase_add_test(tc, test_crc32c_check_value);
	tcase_add_test(tc, test_crc32c_rfc3720);
	tcase_add_test(tc, test_crc32c_impls_agree);
	tcase_add_test(tc, test_crc32c_impls_agree_long);
	tcase_add_test(tc, test_crc32c_chaining);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("btrfs_csum");
	tcase_add_test(tc, test_csum_crc32c_layout);
	tcase_add_test(tc, test_csum_xxhash64);
	tcase_add_test(tc, test_csum_sha256);
	tcase_add_test(tc, test_csum_blake2b);
	tcase_add_test(tc, test_csum_type_info);
	tcase_add_test(tc, test_csum_superblock_region);
	suite_add_tcase(s, tc);
	return s;
}
