/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compressed data extents as the kernel stores them: zlib (one zlib
 * stream), lzo (btrfs framing of per-sector lzo1x segments) and zstd (one
 * frame, window at most 128 KiB).  Types are the BTRFS_COMPRESS_* values
 * of a file extent item.  The same framing serves inline extents.
 */
#ifndef GHEE_COMPRESSION_H
#define GHEE_COMPRESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

/* the kernel's limits of one compressed extent, before and after */
#define BTRFS_MAX_UNCOMPRESSED		(128 * 1024)
#define BTRFS_MAX_COMPRESSED		(128 * 1024)

/* largest zstd window the kernel's decompressor accepts (128 KiB) */
#define BTRFS_ZSTD_MAX_WINDOWLOG	17

/* "zlib", "lzo", "zstd", "none"; NULL for an unknown type */
const char *btrfs_compress_type_name(u8 type);
/* true when this build can compress and decompress @type */
bool btrfs_compress_supported(u8 type);
/*
 * The level used for @level 0, and whether @level is valid for @type
 * (zlib 1-9, zstd 1-15, lzo has none: only 0).
 */
int btrfs_compress_default_level(u8 type);
bool btrfs_compress_level_valid(u8 type, int level);
/*
 * The incompat feature bit a filesystem needs before an extent of @type
 * may be written (0 for zlib, which every kernel reads).
 */
u64 btrfs_compress_incompat_flag(u8 type);

/*
 * Compress @in_len bytes (1 .. BTRFS_MAX_UNCOMPRESSED) into @out, which
 * holds *@out_len bytes (at least @in_len); on success *@out_len is the
 * compressed length.  The result is kept only when it saves space the
 * way the kernel requires: for a sector of input or more, the
 * compressed length rounded up to @sectorsize must be at least a sector
 * smaller than the input rounded up; for less than a sector (only an
 * inline extent can be that short), it must be shorter than the input.
 * Otherwise -E2BIG, and the caller stores the data uncompressed.
 * @level 0 is the default.
 * -EOPNOTSUPP: @type not built in; -EINVAL: bad type, level or length.
 */
int btrfs_compress_extent(u8 type, int level, const void *in, size_t in_len,
			  u32 sectorsize, void *out, size_t *out_len);

/*
 * Decompress the @in_len bytes of an extent (a regular extent's bytes on
 * disk, zero padding to the sector included, or an inline extent's data)
 * into @out, which holds *@out_len bytes (the extent's ram_bytes, at most
 * BTRFS_MAX_UNCOMPRESSED).  Like the kernel, decoding stops when @out is
 * full or the stream ends; *@out_len becomes the bytes produced (the
 * kernel reads the rest as zeros).  -EUCLEAN when the data is not a valid
 * stream of @type or claims more than @in_len; -EOPNOTSUPP, -EINVAL as
 * above.
 */
int btrfs_decompress_extent(u8 type, const void *in, size_t in_len,
			    u32 sectorsize, void *out, size_t *out_len);

/*
 * The same with a workspace that keeps the compressors' state from call
 * to call (setting up a zlib or zstd stream costs more than compressing a
 * small file).  One workspace per thread; made empty, filled on first use.
 */
struct btrfs_compress_ws;
struct btrfs_compress_ws *btrfs_compress_ws_alloc(void);
void btrfs_compress_ws_free(struct btrfs_compress_ws *ws);
int btrfs_compress_extent_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			     const void *in, size_t in_len, u32 sectorsize, void *out,
			     size_t *out_len);
int btrfs_decompress_extent_ws(struct btrfs_compress_ws *ws, u8 type, const void *in,
			       size_t in_len, u32 sectorsize, void *out, size_t *out_len);
/*
 * The same, the result kept whenever it is shorter than the input (what
 * the kernel asks of a whole file of at most a sector before it tries an
 * inline extent: any saving).  -E2BIG otherwise.
 */
int btrfs_compress_shorter_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			      const void *in, size_t in_len, u32 sectorsize, void *out,
			      size_t *out_len);

/* the same, the result kept when it is at most @limit bytes */
int btrfs_compress_limit_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			    const void *in, size_t in_len, u32 sectorsize, void *out,
			    size_t limit, size_t *out_len);

/*
 * The kernel's sampling heuristic (mount -o compress, not compress-force):
 * whether the @len bytes at @in (one range of a file as it is in the page
 * cache: data, then zeros to the end of its last 4 KiB page; only the
 * first 128 KiB count) look worth compressing.  When it says no, the
 * kernel writes the range plain without trying and without marking the
 * inode NOCOMPRESS.
 */
bool btrfs_compress_heuristic(const void *in, size_t len);

/* lzo framing, for tests and checkers: worst compressed size of a segment */
size_t btrfs_lzo_segment_max(u32 sectorsize);

#endif
