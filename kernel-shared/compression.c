// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed data extents in the kernel's formats.
 *
 * zlib: one zlib stream (RFC 1950 header and adler32 trailer) over the
 * whole extent, as the kernel's deflate writes it.
 *
 * lzo: a 4-byte little-endian total length (header included), then one
 * segment per sector of input, each a 4-byte little-endian length and
 * that many bytes of lzo1x output.  A segment header never crosses a
 * sector boundary (sectors counted from the start of the extent): when
 * fewer than 4 bytes are left in the sector after a segment, they are
 * zeros and the next header starts the next sector.  A segment holds at
 * most lzo1x_worst_compress(sectorsize) bytes.
 *
 * zstd: one frame whose window is at most 128 KiB, the largest the
 * kernel's decompressor allocates for.
 *
 * Decoders stop at the end of the stream or when the output is full, as
 * the kernel does, so the zero padding of the last sector is ignored.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>
#endif
#ifdef HAVE_LZO
#include <lzo/lzo1x.h>
#endif
#include "compression.h"
#include "accessors.h"

#define LZO_LEN 4

/*
 * Per-thread state, each part made on first use: setting up a zlib or
 * zstd stream costs tens of microseconds, more than compressing a small
 * file, so it is made once and reset between extents.
 */
struct btrfs_compress_ws {
	bool deflate_ready, inflate_ready;
	int deflate_level;
	z_stream deflate;
	z_stream inflate;
	u8 *lzo_mem;		/* lzo1x work memory, a segment, a sector */
#ifdef HAVE_ZSTD
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
#endif
};

struct btrfs_compress_ws *btrfs_compress_ws_alloc(void)
{
	return calloc(1, sizeof(struct btrfs_compress_ws));
}

void btrfs_compress_ws_free(struct btrfs_compress_ws *ws)
{
	if (!ws)
		return;
	if (ws->deflate_ready)
		deflateEnd(&ws->deflate);
	if (ws->inflate_ready)
		inflateEnd(&ws->inflate);
	free(ws->lzo_mem);
#ifdef HAVE_ZSTD
	ZSTD_freeCCtx(ws->cctx);
	ZSTD_freeDCtx(ws->dctx);
#endif
	free(ws);
}

const char *btrfs_compress_type_name(u8 type)
{
	switch (type) {
	case BTRFS_COMPRESS_NONE:
		return "none";
	case BTRFS_COMPRESS_ZLIB:
		return "zlib";
	case BTRFS_COMPRESS_LZO:
		return "lzo";
	case BTRFS_COMPRESS_ZSTD:
		return "zstd";
	}
	return NULL;
}

bool btrfs_compress_supported(u8 type)
{
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		return true;
	case BTRFS_COMPRESS_LZO:
#ifdef HAVE_LZO
		return true;
#else
		return false;
#endif
	case BTRFS_COMPRESS_ZSTD:
#ifdef HAVE_ZSTD
		return true;
#else
		return false;
#endif
	}
	return false;
}

int btrfs_compress_default_level(u8 type)
{
	/* the kernel's defaults for compress=zlib / compress=zstd */
	return type == BTRFS_COMPRESS_LZO ? 0 : 3;
}

bool btrfs_compress_level_valid(u8 type, int level)
{
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		return level >= 0 && level <= 9;
	case BTRFS_COMPRESS_LZO:
		return level == 0;
	case BTRFS_COMPRESS_ZSTD:
		return level >= 0 && level <= 15;
	}
	return false;
}

u64 btrfs_compress_incompat_flag(u8 type)
{
	if (type == BTRFS_COMPRESS_LZO)
		return BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO;
	if (type == BTRFS_COMPRESS_ZSTD)
		return BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD;
	return 0;
}

size_t btrfs_lzo_segment_max(u32 sectorsize)
{
	/* lzo1x's own bound for incompressible input */
	return sectorsize + sectorsize / 16 + 64 + 3;
}

static bool sectorsize_valid(u32 sectorsize)
{
	return sectorsize >= 4096 && sectorsize <= 65536 &&
	       !(sectorsize & (sectorsize - 1));
}

static size_t round_up_to(size_t v, u32 align)
{
	return (v + align - 1) / align * align;
}

/* the longest compressed result worth keeping (see compression.h) */
static size_t keep_limit(size_t in_len, u32 sectorsize)
{
	if (in_len < sectorsize)
		return in_len - 1;
	return round_up_to(in_len, sectorsize) - sectorsize;
}

/* ---- zlib ---- */

static int zlib_compress(struct btrfs_compress_ws *ws, int level, const u8 *in,
			 size_t in_len, u8 *out, size_t limit, size_t *out_len)
{
	z_stream *zs = &ws->deflate;
	int zret;

	if (ws->deflate_ready && ws->deflate_level != level) {
		deflateEnd(zs);
		ws->deflate_ready = false;
	}
	if (!ws->deflate_ready) {
		memset(zs, 0, sizeof(*zs));
		if (deflateInit(zs, level) != Z_OK)
			return -ENOMEM;
		ws->deflate_ready = true;
		ws->deflate_level = level;
	} else if (deflateReset(zs) != Z_OK) {
		return -EIO;
	}
	zs->next_in = (Bytef *)in;
	zs->avail_in = in_len;
	zs->next_out = out;
	zs->avail_out = limit;
	zret = deflate(zs, Z_FINISH);
	*out_len = zs->total_out;
	if (zret == Z_STREAM_END)
		return 0;
	return zret == Z_OK || zret == Z_BUF_ERROR ? -E2BIG : -EIO;
}

static int zlib_decompress(struct btrfs_compress_ws *ws, const u8 *in, size_t in_len,
			   u8 *out, size_t *out_len)
{
	z_stream *zs = &ws->inflate;
	int zret;

	if (!ws->inflate_ready) {
		memset(zs, 0, sizeof(*zs));
		if (inflateInit(zs) != Z_OK)
			return -ENOMEM;
		ws->inflate_ready = true;
	} else if (inflateReset(zs) != Z_OK) {
		return -EIO;
	}
	zs->next_in = (Bytef *)in;
	zs->avail_in = in_len;
	zs->next_out = out;
	zs->avail_out = *out_len;
	zret = inflate(zs, Z_FINISH);
	*out_len = zs->total_out;
	if (zret == Z_STREAM_END)
		return 0;
	/* a full output ends the read, as in the kernel */
	if ((zret == Z_OK || zret == Z_BUF_ERROR) && zs->avail_out == 0)
		return 0;
	return -EUCLEAN;
}

/* ---- lzo ---- */

#ifdef HAVE_LZO
/* work memory, room for one compressed segment and one sector (64 KiB max) */
static int lzo_ws(struct btrfs_compress_ws *ws)
{
	if (ws->lzo_mem)
		return 0;
	if (lzo_init() != LZO_E_OK)
		return -EIO;
	ws->lzo_mem = malloc(LZO1X_1_MEM_COMPRESS + btrfs_lzo_segment_max(65536) + 65536);
	return ws->lzo_mem ? 0 : -ENOMEM;
}

static int lzo_compress(struct btrfs_compress_ws *ws, const u8 *in, size_t in_len,
			u32 sectorsize, u8 *out, size_t limit, size_t *out_len)
{
	size_t seg_max = btrfs_lzo_segment_max(sectorsize);
	size_t pos_in = 0, pos_out = LZO_LEN;
	u8 *work, *seg;
	int ret;

	if (limit < LZO_LEN)
		return -E2BIG;
	ret = lzo_ws(ws);
	if (ret)
		return ret;
	work = ws->lzo_mem;
	seg = work + LZO1X_1_MEM_COMPRESS;
	while (pos_in < in_len) {
		size_t chunk = in_len - pos_in < sectorsize ? in_len - pos_in : sectorsize;
		size_t room;
		lzo_uint seg_len = seg_max;

		if (lzo1x_1_compress(in + pos_in, chunk, seg, &seg_len, work) != LZO_E_OK ||
		    seg_len > seg_max) {
			ret = -EIO;
			break;
		}
		if (pos_out + LZO_LEN + seg_len > limit) {
			ret = -E2BIG;
			break;
		}
		put_unaligned_le32(seg_len, out + pos_out);
		memcpy(out + pos_out + LZO_LEN, seg, seg_len);
		pos_out += LZO_LEN + seg_len;
		pos_in += chunk;
		/* no header may straddle a sector: pad the sector's last bytes */
		room = sectorsize - pos_out % sectorsize;
		if (room < LZO_LEN && pos_in < in_len) {
			if (pos_out + room > limit) {
				ret = -E2BIG;
				break;
			}
			memset(out + pos_out, 0, room);
			pos_out += room;
		}
	}
	if (ret)
		return ret;
	put_unaligned_le32(pos_out, out);
	*out_len = pos_out;
	return 0;
}

static int lzo_decompress(struct btrfs_compress_ws *ws, const u8 *in, size_t in_len,
			  u32 sectorsize, u8 *out, size_t *out_len)
{
	size_t seg_max = btrfs_lzo_segment_max(sectorsize);
	size_t total, pos_in = LZO_LEN, pos_out = 0, want = *out_len;
	u8 *tail;
	int ret;

	*out_len = 0;
	ret = lzo_ws(ws);
	if (ret)
		return ret;
	tail = ws->lzo_mem + LZO1X_1_MEM_COMPRESS + btrfs_lzo_segment_max(65536);
	if (in_len < LZO_LEN)
		return -EUCLEAN;
	total = get_unaligned_le32(in);
	if (total < LZO_LEN || total > in_len)
		return -EUCLEAN;
	while (pos_out < want && pos_in < total) {
		size_t room = sectorsize - pos_in % sectorsize;
		size_t seg_len, space;
		lzo_uint got;

		if (room < LZO_LEN) {
			pos_in += room;
			if (pos_in >= total)
				break;
		}
		if (pos_in + LZO_LEN > total)
			return -EUCLEAN;
		seg_len = get_unaligned_le32(in + pos_in);
		pos_in += LZO_LEN;
		if (seg_len == 0 || seg_len > seg_max || pos_in + seg_len > total)
			return -EUCLEAN;
		space = want - pos_out < sectorsize ? want - pos_out : sectorsize;
		got = sectorsize;
		if (space == sectorsize) {
			if (lzo1x_decompress_safe(in + pos_in, seg_len, out + pos_out, &got,
						  NULL) != LZO_E_OK)
				return -EUCLEAN;
		} else {
			/* the output ends inside this sector: decode it whole aside */
			int ok = lzo1x_decompress_safe(in + pos_in, seg_len, tail, &got,
						   NULL) == LZO_E_OK;
			if (ok && got > space)
				got = space;
			if (ok)
				memcpy(out + pos_out, tail, got);
			if (!ok)
				return -EUCLEAN;
		}
		pos_out += got;
		pos_in += seg_len;
		*out_len = pos_out;
	}
	return 0;
}
#endif

/* ---- zstd ---- */

#ifdef HAVE_ZSTD
static int zstd_compress(struct btrfs_compress_ws *ws, int level, const u8 *in,
			 size_t in_len, u8 *out, size_t limit, size_t *out_len)
{
	ZSTD_CCtx *cctx;
	size_t r;

	if (!ws->cctx)
		ws->cctx = ZSTD_createCCtx();
	cctx = ws->cctx;
	if (!cctx)
		return -ENOMEM;
	/* a failed call may leave a frame half done */
	r = ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, BTRFS_ZSTD_MAX_WINDOWLOG);
	if (!ZSTD_isError(r))
		r = ZSTD_compress2(cctx, out, limit, in, in_len);
	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? -E2BIG : -EIO;
	*out_len = r;
	return 0;
}

static int zstd_decompress(struct btrfs_compress_ws *ws, const u8 *in, size_t in_len,
			   u8 *out, size_t *out_len)
{
	ZSTD_inBuffer ib = { in, in_len, 0 };
	ZSTD_outBuffer ob = { out, *out_len, 0 };
	ZSTD_DCtx *dctx;
	size_t r;
	int ret = 0;

	if (!ws->dctx)
		ws->dctx = ZSTD_createDCtx();
	dctx = ws->dctx;
	if (!dctx)
		return -ENOMEM;
	r = ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
	if (!ZSTD_isError(r))
		r = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, BTRFS_ZSTD_MAX_WINDOWLOG);
	while (!ZSTD_isError(r) && ob.pos < ob.size) {
		size_t before_in = ib.pos, before_out = ob.pos;

		r = ZSTD_decompressStream(dctx, &ob, &ib);
		if (ZSTD_isError(r) || r == 0)
			break;
		if (ib.pos == before_in && ob.pos == before_out) {
			/* input used up in the middle of the frame */
			ret = -EUCLEAN;
			break;
		}
	}
	if (ZSTD_isError(r))
		ret = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? -ENOMEM : -EUCLEAN;
	*out_len = ob.pos;
	return ret;
}
#endif

/* compress, keeping the result only when it is at most @limit bytes */
static int compress_limited(struct btrfs_compress_ws *ws, u8 type, int level,
			    const void *in, size_t in_len, u32 sectorsize, void *out,
			    size_t limit, size_t *out_len)
{
	if (!btrfs_compress_type_name(type) || type == BTRFS_COMPRESS_NONE ||
	    !btrfs_compress_level_valid(type, level) || !sectorsize_valid(sectorsize) ||
	    in_len == 0 || in_len > BTRFS_MAX_UNCOMPRESSED || *out_len < in_len)
		return -EINVAL;
	if (!btrfs_compress_supported(type))
		return -EOPNOTSUPP;
	if (level == 0)
		level = btrfs_compress_default_level(type);
	if (limit == 0)
		return -E2BIG;
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		return zlib_compress(ws, level, in, in_len, out, limit, out_len);
#ifdef HAVE_LZO
	case BTRFS_COMPRESS_LZO:
		return lzo_compress(ws, in, in_len, sectorsize, out, limit, out_len);
#endif
#ifdef HAVE_ZSTD
	case BTRFS_COMPRESS_ZSTD:
		return zstd_compress(ws, level, in, in_len, out, limit, out_len);
#endif
	}
	return -EOPNOTSUPP;
}

int btrfs_compress_extent_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			     const void *in, size_t in_len, u32 sectorsize, void *out,
			     size_t *out_len)
{
	return compress_limited(ws, type, level, in, in_len, sectorsize, out,
				in_len ? keep_limit(in_len, sectorsize) : 0, out_len);
}

int btrfs_compress_shorter_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			      const void *in, size_t in_len, u32 sectorsize, void *out,
			      size_t *out_len)
{
	return compress_limited(ws, type, level, in, in_len, sectorsize, out,
				in_len ? in_len - 1 : 0, out_len);
}

int btrfs_compress_limit_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			    const void *in, size_t in_len, u32 sectorsize, void *out,
			    size_t limit, size_t *out_len)
{
	return compress_limited(ws, type, level, in, in_len, sectorsize, out, limit, out_len);
}

/*
 * The kernel's guess, before it compresses, of whether data compresses
 * (fs/btrfs/compression.c, btrfs_compress_heuristic(); described here
 * from its documented behaviour).  A sample of 16 bytes every 256 bytes
 * of the first 128 KiB; yes when its two halves are equal, when it has
 * fewer than 64 distinct byte values, when 64 values or fewer make up
 * 90% of it, or when its Shannon entropy (in the kernel's integer
 * approximation: log2 of the fourth power, so quarter bits) is below 80%
 * of 8 bits; no when 200 values or more are needed for 90% of it.
 */
#define HEUR_READ		16
#define HEUR_INTERVAL		256
#define HEUR_SET_SMALL		64
#define HEUR_CORE_LOW		64
#define HEUR_CORE_HIGH		200
#define HEUR_ENTROPY_HIGH	80

static u32 log2_of_4th_power(u64 n)
{
	u64 v = n * n * n * n;
	u32 r = 0;

	while (v >>= 1)
		r++;
	return r;
}

/*
 * The 256 byte counts (each at most the sample's 8192) from the largest
 * down: two passes of a radix sort on 8-bit digits, several times
 * cheaper than qsort() here (this runs for every 128 KiB compressed).
 */
static void sort_counts_desc(u32 *count)
{
	u32 tmp[256], start[256];
	int pass, i;

	for (pass = 0; pass < 2; pass++) {
		u32 *src = pass ? tmp : count, *dst = pass ? count : tmp, pos = 0;
		int shift = pass * 8;

		memset(start, 0, sizeof(start));
		for (i = 0; i < 256; i++)
			start[(src[i] >> shift) & 0xff]++;
		for (i = 255; i >= 0; i--) {
			u32 n = start[i];

			start[i] = pos;
			pos += n;
		}
		for (i = 0; i < 256; i++)
			dst[start[(src[i] >> shift) & 0xff]++] = src[i];
	}
}

bool btrfs_compress_heuristic(const void *in, size_t len)
{
	static const u32 sample_max = BTRFS_MAX_UNCOMPRESSED / HEUR_INTERVAL * HEUR_READ;
	const u8 *data = in;
	u8 sample[BTRFS_MAX_UNCOMPRESSED / HEUR_INTERVAL * HEUR_READ];
	u32 count[256] = { 0 }, n = 0, distinct = 0, sum = 0, threshold, i;
	u32 size_bits, entropy = 0;
	size_t off;

	if (len > BTRFS_MAX_UNCOMPRESSED)
		len = BTRFS_MAX_UNCOMPRESSED;
	for (off = 0; off + HEUR_READ <= len && n < sample_max; off += HEUR_INTERVAL) {
		memcpy(sample + n, data + off, HEUR_READ);
		n += HEUR_READ;
	}
	if (!memcmp(sample, sample + n / 2, n / 2))
		return true;
	for (i = 0; i < n; i++)
		count[sample[i]]++;
	for (i = 0; i < 256; i++)
		distinct += count[i] > 0;
	if (distinct < HEUR_SET_SMALL)
		return true;
	sort_counts_desc(count);
	threshold = n * 90 / 100;
	for (i = 0; i < HEUR_CORE_LOW; i++)
		sum += count[i];
	if (sum > threshold)
		return true;
	for (; i < HEUR_CORE_HIGH && count[i]; i++) {
		sum += count[i];
		if (sum > threshold)
			break;
	}
	if (i <= HEUR_CORE_LOW)
		return true;
	if (i >= HEUR_CORE_HIGH)
		return false;
	size_bits = log2_of_4th_power(n);
	for (i = 0; i < 256 && count[i]; i++)
		entropy += count[i] * (size_bits - log2_of_4th_power(count[i]));
	entropy /= n;
	/* the maximum: 8 bits of 4 quarter bits */
	return entropy * 100 / 32 < HEUR_ENTROPY_HIGH;
}

int btrfs_decompress_extent_ws(struct btrfs_compress_ws *ws, u8 type, const void *in,
			       size_t in_len, u32 sectorsize, void *out, size_t *out_len)
{
	if (!btrfs_compress_type_name(type) || type == BTRFS_COMPRESS_NONE ||
	    !sectorsize_valid(sectorsize) || *out_len > BTRFS_MAX_UNCOMPRESSED)
		return -EINVAL;
	if (!btrfs_compress_supported(type))
		return -EOPNOTSUPP;
	if (in_len > BTRFS_MAX_COMPRESSED)
		return -EUCLEAN;
	if (*out_len == 0)
		return 0;
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		return zlib_decompress(ws, in, in_len, out, out_len);
#ifdef HAVE_LZO
	case BTRFS_COMPRESS_LZO:
		return lzo_decompress(ws, in, in_len, sectorsize, out, out_len);
#endif
#ifdef HAVE_ZSTD
	case BTRFS_COMPRESS_ZSTD:
		return zstd_decompress(ws, in, in_len, out, out_len);
#endif
	}
	return -EOPNOTSUPP;
}

int btrfs_compress_extent(u8 type, int level, const void *in, size_t in_len,
			  u32 sectorsize, void *out, size_t *out_len)
{
	struct btrfs_compress_ws *ws = btrfs_compress_ws_alloc();
	int ret;

	if (!ws)
		return -ENOMEM;
	ret = btrfs_compress_extent_ws(ws, type, level, in, in_len, sectorsize, out, out_len);
	btrfs_compress_ws_free(ws);
	return ret;
}

int btrfs_decompress_extent(u8 type, const void *in, size_t in_len,
			    u32 sectorsize, void *out, size_t *out_len)
{
	struct btrfs_compress_ws *ws = btrfs_compress_ws_alloc();
	int ret;

	if (!ws)
		return -ENOMEM;
	ret = btrfs_decompress_extent_ws(ws, type, in, in_len, sectorsize, out, out_len);
	btrfs_compress_ws_free(ws);
	return ret;
}
