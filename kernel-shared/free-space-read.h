/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only views of a filesystem's block groups and of their free space,
 * for the inspection commands (dump-free-space, usage) and the checker:
 * the block group items, and the free ranges of one block group as each
 * of the three places that record them says:
 *
 *  - the free space tree (FREE_SPACE_INFO, then extents or bitmaps);
 *  - the v1 space cache (a FREE_SPACE header in the root tree naming a
 *    file of 4 KiB pages: a crc32c per page and the generation in page 0,
 *    then entries that never cross a page, then one page per bitmap);
 *  - the gaps between the items of the extent tree.
 *
 * The free space tree and the extent tree gaps count the superblock copies
 * inside a block group as free (the kernel keeps them so in the tree); the
 * v1 cache leaves them out (it is written from the in-memory free space).
 * btrfs_bg_super_ranges() gives those ranges so callers can compare.
 *
 * Nothing here prints: errors are returned, reasons a cache is not usable
 * are written into a caller's buffer.
 */
#ifndef GHEE_FREE_SPACE_READ_H
#define GHEE_FREE_SPACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "disk-io.h"
#include "ranges.h"

/* one block group as its chunk and item describe it */
struct bg_info {
	u64 start;
	u64 length;
	u64 flags;		/* type and profile bits of the chunk */
	u64 used;		/* from the item; 0 when it has none */
	bool has_item;		/* the block group item was found and valid */
	int num_stripes;
	int sub_stripes;
};

/*
 * Every chunk of the chunk map with its block group item, in address
 * order.  A chunk whose item cannot be found or read gets has_item false
 * and counts in *nr_missing.  0 or -ENOMEM; *out is the caller's to free.
 */
int btrfs_read_bg_infos(struct btrfs_fs_info *fs_info, struct bg_info **out,
			size_t *nr, size_t *nr_missing);

/*
 * The ranges of @bg holding superblock copies (never allocated), at most
 * @max; returns how many.
 */
int btrfs_bg_super_ranges(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
			  u64 *starts, u64 *lens, int max);

/* what the FREE_SPACE_INFO item of a block group says */
struct fst_bg_info {
	bool found;
	u32 extent_count;
	u32 flags;
};

/*
 * The free ranges of @bg in the free space tree, appended to @out.
 * 0, -ENOENT when the tree has no FREE_SPACE_INFO for it, -EUCLEAN when an
 * item is malformed (@why says which), -EIO when a block cannot be read
 * (the ranges read so far are kept).
 */
int btrfs_fst_read_bg(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
		      struct fst_bg_info *info, struct range_list *out,
		      char *why, size_t why_len);

/*
 * The gaps between the extent and metadata items inside @bg, appended to
 * @out (superblock copies count as free).  0 or a negative errno.
 */
int btrfs_extent_gaps_read_bg(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
			      struct range_list *out);

/* ---- the v1 space cache ---- */

#define BTRFS_V1_CACHE_PAGE	4096U
#define BTRFS_V1_CACHE_MAX_SIZE	(64ULL << 20)
#define BTRFS_V1_CACHE_MODE	0100600U

struct btrfs_v1_cache_header {
	u64 bg_start;
	u64 ino;
	u64 generation;
	u64 entries;
	u64 bitmaps;
};

/*
 * The set bits of a free space tree bitmap (@nbits bits, little-endian, one
 * per sector from @start) appended to @out as byte ranges; bits past
 * @nbits in the last byte are ignored.
 */
void btrfs_fst_bitmap_ranges(struct range_list *out, const u8 *bm, u64 start,
			     u64 nbits, u32 sectorsize);

/* the FREE_SPACE header item of the group at @bg_start: 0, -ENOENT, <0 */
int btrfs_v1_cache_find_header(struct btrfs_fs_info *fs_info, u64 bg_start,
			       struct btrfs_v1_cache_header *h);
/* the inode item of a cache file; -ENOENT when absent */
int btrfs_v1_cache_read_inode(struct btrfs_fs_info *fs_info, u64 ino,
			      struct btrfs_inode_item *out);
/* the whole cache file of @size bytes, NULL when it cannot be read */
u8 *btrfs_v1_cache_read_file(struct btrfs_fs_info *fs_info, u64 ino, u64 size);
/*
 * Decode a cache file the way the kernel loads it.  Returns 0 with the
 * free ranges appended to @l, 1 when the kernel would ignore the cache
 * (@why says why), -ENOMEM.
 */
int btrfs_v1_cache_decode(const struct btrfs_v1_cache_header *h, const u8 *buf,
			  u64 size, u32 sectorsize, struct range_list *l,
			  char *why, size_t why_len);

/*
 * Everything at once for the group at @bg_start: header, inode, its mode,
 * size and generation, the superblock's cache_generation against its generation, then the pages.
 * 0 with the ranges in @l, 1 when there is a cache but it is stale or
 * invalid (@why), -ENOENT when the group has no cache, <0 other errors.
 */
int btrfs_v1_cache_load(struct btrfs_fs_info *fs_info, u64 bg_start,
			struct btrfs_v1_cache_header *h, struct range_list *l,
			char *why, size_t why_len);

#endif
