// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed extents (kernel-shared/compression.c): for every algorithm
 * built in, round trips of zero, compressible and random data of many
 * lengths (sector edges, the 128 KiB maximum, random lengths), also with
 * the zero padding of the last sector that a read from disk brings; the
 * keep rule (a result is only returned when it saves a sector, or for
 * inline-sized input when it is shorter); random data refused; the lzo
 * framing walked independently (total length, one segment per sector, no
 * segment header across a sector boundary, zero padding, segment bound);
 * the zstd window within the kernel's 128 KiB; damaged and truncated
 * streams rejected without overrunning anything; partial reads; a reused
 * workspace giving exactly what a fresh one gives.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZSTD
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader */
#include <zstd.h>
#endif
#include "suites.h"
#include "compression.h"
#include "accessors.h"

#define MAXLEN BTRFS_MAX_UNCOMPRESSED

enum data_kind { DATA_ZERO, DATA_TEXT, DATA_RANDOM };

struct algo {
	u8 type;
	int level;
};

static const struct algo algos[] = {
	{ BTRFS_COMPRESS_ZLIB, 1 }, { BTRFS_COMPRESS_ZLIB, 0 }, { BTRFS_COMPRESS_ZLIB, 9 },
	{ BTRFS_COMPRESS_LZO, 0 },
	{ BTRFS_COMPRESS_ZSTD, 1 }, { BTRFS_COMPRESS_ZSTD, 0 }, { BTRFS_COMPRESS_ZSTD, 15 },
};
#define NR_ALGOS (sizeof(algos) / sizeof(algos[0]))

static const size_t fixed_lens[] = {
	1, 2, 63, 64, 200, 1000, 2048, 4095, 4096, 4097, 8191, 8192, 8193,
	12288, 20000, 65535, 65536, 65537, 100000, 131071, 131072,
};
#define NR_FIXED (sizeof(fixed_lens) / sizeof(fixed_lens[0]))

static void fill(u8 *buf, size_t len, enum data_kind kind, uint64_t *seed)
{
	static const char *const words[] = {
		"extent ", "tree ", "btrfs ", "leaf ", "node ", "sector ", "csum ",
		"inode ", "\n", "0123 ", "subvolume ", "chunk ",
	};
	size_t i = 0;

	if (kind == DATA_ZERO) {
		memset(buf, 0, len);
		return;
	}
	if (kind == DATA_RANDOM) {
		for (i = 0; i < len; i++)
			buf[i] = (u8)(test_rand(seed) >> 24);
		return;
	}
	while (i < len) {
		const char *w = words[test_rand(seed) % 12];
		size_t n = strlen(w);

		if (n > len - i)
			n = len - i;
		memcpy(buf + i, w, n);
		i += n;
	}
}

static size_t round_up_ss(size_t v, u32 ss)
{
	return (v + ss - 1) / ss * ss;
}

/* the framing rules of compression.c's header comment, checked from scratch */
static void check_lzo_framing(const u8 *c, size_t clen, size_t in_len, u32 ss)
{
	size_t total = get_unaligned_le32(c), pos = 4, segs = 0;

	REQUIRE_UINT(total, ==, clen);
	while (pos < total) {
		size_t room = ss - pos % ss, seg;

		if (room < 4) {
			for (size_t k = 0; k < room; k++)
				REQUIRE_UINT(c[pos + k], ==, 0);
			pos += room;
			continue;
		}
		/* a header fits entirely in its sector */
		REQUIRE_UINT(pos / ss, ==, (pos + 3) / ss);
		seg = get_unaligned_le32(c + pos);
		REQUIRE(seg > 0);
		REQUIRE_UINT(seg, <=, btrfs_lzo_segment_max(ss));
		pos += 4 + seg;
		REQUIRE_UINT(pos, <=, total);
		segs++;
	}
	REQUIRE_UINT(segs, ==, (in_len + ss - 1) / ss);
}

static void check_zstd_window(const u8 *c, size_t clen)
{
#ifdef HAVE_ZSTD
	ZSTD_frameHeader fh;

	REQUIRE_UINT(ZSTD_getFrameHeader(&fh, c, clen), ==, 0);
	REQUIRE_UINT(fh.windowSize, <=, 1U << BTRFS_ZSTD_MAX_WINDOWLOG);
	REQUIRE_UINT(ZSTD_findFrameCompressedSize(c, clen), ==, clen);
#else
	(void)c;
	(void)clen;
#endif
}

/* compress, check the keep rule and framing, decompress both ways */
static void round_trip(const struct algo *a, const u8 *in, size_t len, u32 ss,
		       enum data_kind kind, u8 *c, u8 *d)
{
	size_t clen = MAXLEN, dlen;
	int ret = btrfs_compress_extent(a->type, a->level, in, len, ss, c, &clen);

	if (!btrfs_compress_supported(a->type)) {
		REQUIRE_INT(ret, ==, -EOPNOTSUPP);
		return;
	}
	if (kind == DATA_RANDOM && len >= 16) {
		REQUIRE_INT(ret, ==, -E2BIG);
		return;
	}
	/* zeros and text of a sector or more always pay */
	if (kind != DATA_RANDOM && len >= 2 * ss)
		REQUIRE_INT(ret, ==, 0);
	if (ret == -E2BIG)
		return;
	REQUIRE_INT(ret, ==, 0);
	if (len < ss)
		REQUIRE_UINT(clen, <, len);
	else
		REQUIRE_UINT(round_up_ss(clen, ss) + ss, <=, round_up_ss(len, ss));
	if (a->type == BTRFS_COMPRESS_LZO)
		check_lzo_framing(c, clen, len, ss);
	if (a->type == BTRFS_COMPRESS_ZSTD)
		check_zstd_window(c, clen);

	dlen = len;
	memset(d, 0xa5, MAXLEN);
	REQUIRE_INT(btrfs_decompress_extent(a->type, c, clen, ss, d, &dlen), ==, 0);
	REQUIRE_UINT(dlen, ==, len);
	REQUIRE(memcmp(d, in, len) == 0);

	/* as read from disk: padded with zeros to the sector */
	memset(c + clen, 0, round_up_ss(clen, ss) - clen);
	dlen = len;
	memset(d, 0xa5, MAXLEN);
	REQUIRE_INT(btrfs_decompress_extent(a->type, c, round_up_ss(clen, ss), ss, d,
					    &dlen), ==, 0);
	REQUIRE_UINT(dlen, ==, len);
	REQUIRE(memcmp(d, in, len) == 0);

	/* a read of the first part only (a file extent's num_bytes < ram_bytes) */
	if (len > 1) {
		dlen = len / 2;
		memset(d, 0xa5, MAXLEN);
		REQUIRE_INT(btrfs_decompress_extent(a->type, c, clen, ss, d, &dlen), ==, 0);
		REQUIRE_UINT(dlen, ==, len / 2);
		REQUIRE(memcmp(d, in, len / 2) == 0);
		REQUIRE_UINT(d[len / 2], ==, 0xa5);
	}
}

START_TEST(test_round_trips)
{
	const struct algo *a = &algos[_i];
	uint64_t seed = 0x9e3779b97f4a7c15ULL + _i;
	u8 *in = malloc(MAXLEN), *c = malloc(MAXLEN + 65536), *d = malloc(MAXLEN);
	static const u32 sectorsizes[] = { 4096, 16384, 65536 };

	REQUIRE(in && c && d);
	for (int kind = DATA_ZERO; kind <= DATA_RANDOM; kind++) {
		for (size_t i = 0; i < NR_FIXED + 12; i++) {
			size_t len = i < NR_FIXED ? fixed_lens[i] :
				     1 + test_rand(&seed) % MAXLEN;
			u32 ss = i < NR_FIXED ? 4096 : sectorsizes[i % 3];

			fill(in, len, kind, &seed);
			round_trip(a, in, len, ss, kind, c, d);
		}
	}
	free(in);
	free(c);
	free(d);
}
END_TEST

/* text with random runs mixed in: lzo segments of many sizes hit every
 * position of a header in the sector, padding included */
START_TEST(test_lzo_header_positions)
{
	uint64_t seed = 77;
	u8 *in = malloc(MAXLEN), *c = malloc(MAXLEN), *d = malloc(MAXLEN);
	unsigned int padded = 0;

	REQUIRE(in && c && d);
	if (!btrfs_compress_supported(BTRFS_COMPRESS_LZO)) {
		size_t clen = MAXLEN;

		memset(in, 0, 8192);
		REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_LZO, 0, in, 8192, 4096, c,
						  &clen), ==, -EOPNOTSUPP);
		goto out;
	}
	for (int round = 0; round < 60; round++) {
		size_t len = MAXLEN - (test_rand(&seed) % 4) * 4096 - test_rand(&seed) % 4096;
		size_t clen = MAXLEN, dlen = len, pos, total;

		fill(in, len, DATA_TEXT, &seed);
		/* each sector gets a random stretch of a random size */
		for (size_t s = 0; s < len; s += 4096) {
			size_t n = test_rand(&seed) % 2500, off = s + test_rand(&seed) % 1000;

			for (size_t k = off; k < off + n && k < len; k++)
				in[k] = (u8)(test_rand(&seed) >> 32);
		}
		if (btrfs_compress_extent(BTRFS_COMPRESS_LZO, 0, in, len, 4096, c, &clen))
			continue;
		check_lzo_framing(c, clen, len, 4096);
		REQUIRE_INT(btrfs_decompress_extent(BTRFS_COMPRESS_LZO, c, clen, 4096, d,
						    &dlen), ==, 0);
		REQUIRE_UINT(dlen, ==, len);
		REQUIRE(memcmp(d, in, len) == 0);
		/* count the padded sector ends: the rule was exercised */
		total = clen;
		pos = 4;
		while (pos < total) {
			if (4096 - pos % 4096 < 4) {
				padded++;
				pos += 4096 - pos % 4096;
				continue;
			}
			pos += 4 + get_unaligned_le32(c + pos);
		}
	}
	REQUIRE_UINT(padded, >, 0);
out:
	free(in);
	free(c);
	free(d);
}
END_TEST

/* damaged streams: an error or a short result, never more than asked */
START_TEST(test_damaged_streams)
{
	const struct algo *a = &algos[_i];
	uint64_t seed = 4242 + _i;
	u8 *in = malloc(MAXLEN), *c = malloc(MAXLEN), *d = malloc(MAXLEN + 64);
	size_t len = 50000, clen = MAXLEN, dlen;
	int ret;

	REQUIRE(in && c && d);
	if (!btrfs_compress_supported(a->type))
		goto out;
	fill(in, len, DATA_TEXT, &seed);
	REQUIRE_INT(btrfs_compress_extent(a->type, a->level, in, len, 4096, c, &clen), ==, 0);

	/* truncated: never a silent full result */
	for (size_t cut = 0; cut < clen; cut += 1 + clen / 50) {
		dlen = len;
		ret = btrfs_decompress_extent(a->type, c, cut, 4096, d, &dlen);
		REQUIRE(ret == -EUCLEAN || (ret == 0 && dlen < len));
	}
	/* random byte flips: any answer, within bounds */
	for (int k = 0; k < 200; k++) {
		size_t pos = test_rand(&seed) % clen;
		u8 old = c[pos];

		c[pos] ^= (u8)(1 + test_rand(&seed) % 255);
		dlen = len;
		memset(d + len, 0x5a, 64);
		ret = btrfs_decompress_extent(a->type, c, clen, 4096, d, &dlen);
		REQUIRE(ret == 0 || ret == -EUCLEAN);
		REQUIRE_UINT(dlen, <=, len);
		for (int b = 0; b < 64; b++)
			REQUIRE_UINT(d[len + b], ==, 0x5a);
		c[pos] = old;
	}
	if (a->type == BTRFS_COMPRESS_LZO) {
		/* a total length beyond the extent */
		put_unaligned_le32(clen + 1, c);
		dlen = len;
		REQUIRE_INT(btrfs_decompress_extent(a->type, c, clen, 4096, d, &dlen), ==,
			    -EUCLEAN);
		/* a segment longer than lzo's bound */
		put_unaligned_le32(clen, c);
		put_unaligned_le32(btrfs_lzo_segment_max(4096) + 1, c + 4);
		dlen = len;
		REQUIRE_INT(btrfs_decompress_extent(a->type, c, clen, 4096, d, &dlen), ==,
			    -EUCLEAN);
	}
out:
	free(in);
	free(c);
	free(d);
}
END_TEST

/*
 * One workspace through a random mix of algorithms, levels, sizes and
 * refusals (a refused call leaves a stream half done): every result must
 * be byte for byte what a fresh workspace gives, and decode with the
 * shared workspace too.
 */
START_TEST(test_workspace_reuse)
{
	uint64_t seed = 2024;
	u8 *in = malloc(MAXLEN), *c1 = malloc(MAXLEN), *c2 = malloc(MAXLEN), *d = malloc(MAXLEN);
	struct btrfs_compress_ws *ws = btrfs_compress_ws_alloc();

	REQUIRE(in && c1 && c2 && d && ws);
	for (int round = 0; round < 150; round++) {
		const struct algo *a = &algos[test_rand(&seed) % NR_ALGOS];
		enum data_kind kind = test_rand(&seed) % 3;
		size_t len = 1 + test_rand(&seed) % (round % 3 ? 9000 : MAXLEN);
		size_t l1 = MAXLEN, l2 = MAXLEN, dlen = len;
		int r1, r2;

		fill(in, len, kind, &seed);
		r1 = btrfs_compress_extent_ws(ws, a->type, a->level, in, len, 4096, c1, &l1);
		r2 = btrfs_compress_extent(a->type, a->level, in, len, 4096, c2, &l2);
		REQUIRE_INT(r1, ==, r2);
		if (r1)
			continue;
		REQUIRE_UINT(l1, ==, l2);
		REQUIRE(memcmp(c1, c2, l1) == 0);
		REQUIRE_INT(btrfs_decompress_extent_ws(ws, a->type, c1, l1, 4096, d, &dlen), ==, 0);
		REQUIRE_UINT(dlen, ==, len);
		REQUIRE(memcmp(d, in, len) == 0);
		/* a damaged stream in between must not spoil the next decode */
		if (round % 7 == 0) {
			dlen = len;
			c1[l1 / 2] ^= 0x55;
			btrfs_decompress_extent_ws(ws, a->type, c1, l1, 4096, d, &dlen);
		}
	}
	btrfs_compress_ws_free(ws);
	btrfs_compress_ws_free(NULL);
	free(in);
	free(c1);
	free(c2);
	free(d);
}
END_TEST

START_TEST(test_arguments)
{
	u8 in[8192] = { 0 }, out[8192];
	size_t len = sizeof(out);

	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 10, in, 8192, 4096, out, &len),
		    ==, -EINVAL);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZSTD, 16, in, 8192, 4096, out, &len),
		    ==, -EINVAL);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_LZO, 1, in, 8192, 4096, out, &len),
		    ==, -EINVAL);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_NONE, 0, in, 8192, 4096, out, &len),
		    ==, -EINVAL);
	REQUIRE_INT(btrfs_compress_extent(7, 0, in, 8192, 4096, out, &len), ==, -EINVAL);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 0, in, 0, 4096, out, &len),
		    ==, -EINVAL);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 0, in, 8192, 3000, out, &len),
		    ==, -EINVAL);
	len = 100;	/* output smaller than the input */
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 0, in, 8192, 4096, out, &len),
		    ==, -EINVAL);
	/* one sector of zeros saves no sector; less than one may go inline */
	len = sizeof(out);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 0, in, 4096, 4096, out, &len),
		    ==, -E2BIG);
	len = sizeof(out);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 0, in, 4095, 4096, out, &len),
		    ==, 0);
	REQUIRE_UINT(len, <, 4095);
	len = sizeof(out);
	REQUIRE_INT(btrfs_compress_extent(BTRFS_COMPRESS_ZLIB, 0, in, 8192, 4096, out, &len),
		    ==, 0);
	len = MAXLEN + 1;
	REQUIRE_INT(btrfs_decompress_extent(BTRFS_COMPRESS_ZLIB, in, 100, 4096, out, &len),
		    ==, -EINVAL);
	REQUIRE_UINT(btrfs_compress_incompat_flag(BTRFS_COMPRESS_ZLIB), ==, 0);
	REQUIRE_UINT(btrfs_compress_incompat_flag(BTRFS_COMPRESS_LZO), ==,
		     BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO);
	REQUIRE_UINT(btrfs_compress_incompat_flag(BTRFS_COMPRESS_ZSTD), ==,
		     BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD);
	REQUIRE(btrfs_compress_supported(BTRFS_COMPRESS_ZLIB));
#ifdef HAVE_LZO
	REQUIRE(btrfs_compress_supported(BTRFS_COMPRESS_LZO));
#else
	REQUIRE(!btrfs_compress_supported(BTRFS_COMPRESS_LZO));
#endif
#ifdef HAVE_ZSTD
	REQUIRE(btrfs_compress_supported(BTRFS_COMPRESS_ZSTD));
#else
	REQUIRE(!btrfs_compress_supported(BTRFS_COMPRESS_ZSTD));
#endif
}
END_TEST

/*
 * The kernel's sampling heuristic: cases whose answers the kernel gave
 * (files written with mount -o compress, flags and extents read back),
 * then random buffers against a plain restatement of its rules.
 */
static void fill_random(u8 *buf, size_t len, uint64_t *seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (u8)(test_rand(seed) >> 24);
}

static u32 model_log2_4(u64 x)
{
	u32 r = 0;

	for (x = x * x * x * x; x > 1; x /= 2)
		r++;
	return r;
}

static bool model_heuristic(const u8 *in, size_t len)
{
	static u8 sample[8192];
	u32 count[256] = { 0 }, n = 0, distinct = 0, thr, sum = 0, core, e = 0;
	size_t pos;

	if (len > 131072)
		len = 131072;
	for (pos = 0; pos + 16 <= len; pos += 256, n += 16)
		memcpy(sample + n, in + pos, 16);
	if (!memcmp(sample, sample + n / 2, n / 2))
		return true;
	for (u32 i = 0; i < n; i++)
		count[sample[i]]++;
	for (u32 i = 0; i < 256; i++)
		distinct += count[i] != 0;
	if (distinct < 64)
		return true;
	/* selection sort, largest first */
	for (u32 i = 0; i < 256; i++) {
		for (u32 j = i + 1; j < 256; j++) {
			if (count[j] > count[i]) {
				u32 t = count[i];

				count[i] = count[j];
				count[j] = t;
			}
		}
	}
	thr = n * 90 / 100;
	for (core = 0; core < 64; core++)
		sum += count[core];
	if (sum <= thr) {
		while (core < 200 && count[core]) {
			sum += count[core];
			if (sum > thr)
				break;
			core++;
		}
	}
	if (core <= 64)
		return true;
	if (core >= 200)
		return false;
	for (u32 i = 0; i < 256 && count[i]; i++)
		e += count[i] * (model_log2_4(n) - model_log2_4(count[i]));
	return e / n * 100 / 32 < 80;
}

START_TEST(test_heuristic)
{
	u8 *buf = calloc(1, 262144);
	uint64_t seed = 0x243f6a8885a308d3ULL;

	REQUIRE(buf);
	/* zeros, text, few byte values: yes; random: no */
	REQUIRE(btrfs_compress_heuristic(buf, 131072));
	fill(buf, 131072, DATA_TEXT, &seed);
	REQUIRE(btrfs_compress_heuristic(buf, 131072));
	for (size_t i = 0; i < 131072; i++)
		buf[i] = (u8)(test_rand(&seed) % 32);
	REQUIRE(btrfs_compress_heuristic(buf, 131072));
	fill_random(buf, 131072, &seed);
	REQUIRE(!btrfs_compress_heuristic(buf, 131072));
	/* only the sampled bytes count: 16 of every 256 */
	for (size_t i = 0; i < 131072; i += 256)
		memset(buf + i, 7, 16);
	REQUIRE(btrfs_compress_heuristic(buf, 131072));
	/* only the first 128 KiB count */
	fill_random(buf, 131072, &seed);
	memset(buf + 131072, 0, 131072);
	REQUIRE(!btrfs_compress_heuristic(buf, 262144));
	/* shorter than a sample: yes, as the kernel's empty sample */
	REQUIRE(btrfs_compress_heuristic(buf, 10));
	/*
	 * the kernel: random files of 2000, 3000 and 5000 bytes were tried
	 * (the page's zeros past the end in the sample), of 4095 and 8000
	 * bytes not
	 */
	static const struct { size_t len, page; bool yes; } files[] = {
		{ 2000, 4096, true }, { 3000, 4096, true }, { 5000, 8192, true },
		{ 4095, 4096, false }, { 8000, 8192, false },
	};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		memset(buf, 0, files[f].page);
		fill_random(buf, files[f].len, &seed);
		REQUIRE(btrfs_compress_heuristic(buf, files[f].page) == files[f].yes);
	}
	/* random mixes of random, text and zero stretches, any length */
	for (int round = 0; round < 300; round++) {
		size_t len = 1 + test_rand(&seed) % 140000, pos = 0;

		while (pos < len) {
			size_t n = 1 + test_rand(&seed) % 20000;

			if (n > len - pos)
				n = len - pos;
			switch (test_rand(&seed) % 3) {
			case 0: fill_random(buf + pos, n, &seed); break;
			case 1: fill(buf + pos, n, DATA_TEXT, &seed); break;
			default: memset(buf + pos, 0, n); break;
			}
			pos += n;
		}
		REQUIRE(btrfs_compress_heuristic(buf, len) == model_heuristic(buf, len));
	}
	/*
	 * skewed byte values, 64 to 256 of them: the counts sorted, the core
	 * set near its limits (64, 200) and the entropy test decide
	 */
	for (int round = 0; round < 600; round++) {
		u32 values = 64 + test_rand(&seed) % 193, skew = test_rand(&seed) % 8;

		for (size_t i = 0; i < 131072; i++) {
			u32 v = test_rand(&seed) % values;

			for (u32 k = 0; k < skew; k++)
				v = v * (test_rand(&seed) % values) / values;
			buf[i] = (u8)v;
		}
		REQUIRE(btrfs_compress_heuristic(buf, 131072) == model_heuristic(buf, 131072));
	}
	free(buf);
}
END_TEST

Suite *compression_suite(void)
{
	Suite *s = suite_create("compression");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_round_trips, 0, NR_ALGOS);
	tcase_add_test(tc, test_lzo_header_positions);
	tcase_add_loop_test(tc, test_damaged_streams, 0, NR_ALGOS);
	tcase_add_test(tc, test_workspace_reuse);
	tcase_add_test(tc, test_arguments);
	tcase_add_test(tc, test_heuristic);
	suite_add_tcase(s, tc);
	return s;
}
