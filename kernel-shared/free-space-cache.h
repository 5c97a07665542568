/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-memory free space of one block group.
 *
 * Free space is a set of entries, each either an extent (offset, bytes)
 * or a bitmap: one 4 KiB page of bits, one bit per sector, covering a
 * fixed window of BTRFS_FREE_SPACE_BITMAP_BITS sectors.  Windows are laid
 * out from the block group start.  A window either has a bitmap, which
 * then holds all free space inside the window, or none, and then its
 * free space is in extents; extents may span several windows without a
 * bitmap.  Every free byte thus belongs to exactly one entry.
 *
 * Entries sit in two rb-trees: by offset (lookups, hinted first-fit,
 * iteration) and by size, largest first (allocation without a hint).
 * Extents are the cheap form; when a block group has more extents than
 * its memory budget allows (extents_thresh), new isolated free ranges go
 * into bitmaps instead.
 *
 * The struct is public so that the on-disk v1 cache code (a separate
 * file) can walk the entries with free_space_first_entry() and
 * free_space_next_entry(), and rebuild a cache with add_free_space().
 */
#ifndef GHEE_FREE_SPACE_CACHE_H
#define GHEE_FREE_SPACE_CACHE_H

#include <stdbool.h>
#include "format.h"
#include "rbtree.h"

#define BTRFS_FREE_SPACE_BITMAP_BYTES	4096U
#define BTRFS_FREE_SPACE_BITMAP_BITS	(BTRFS_FREE_SPACE_BITMAP_BYTES * 8U)
#define BTRFS_FREE_SPACE_BITMAP_WORDS	(BTRFS_FREE_SPACE_BITMAP_BYTES / 8U)

struct btrfs_free_space {
	struct rb_node offset_index;
	struct rb_node bytes_index;
	u64 offset;		/* extent start, or bitmap window start */
	u64 bytes;		/* free bytes in this entry */
	/* bitmap: upper bound of the longest run of free bytes */
	u64 max_extent_size;
	u64 *bitmap;		/* NULL for an extent; bit n is offset + n * sectorsize */
};

struct btrfs_free_space_ctl {
	struct rb_root free_space_offset;
	struct rb_root free_space_bytes;	/* largest first, then by offset */
	u64 start;			/* block group start */
	u64 len;			/* block group length */
	u64 free_space;			/* total free bytes */
	u64 bitmap_span;		/* bytes one bitmap covers */
	u32 sectorsize;
	int free_extents;
	int total_bitmaps;
	int extents_thresh;		/* above this, isolated ranges go to bitmaps */
	u64 nr_relinks;			/* size-tree repositions (statistics) */

	/*
	 * Knobs for benchmarks and tests only; free_space_ctl_init() clears
	 * them.  relink_always: unlink and relink an entry in both trees on
	 * every change, the plain way.  fixed_thresh: keep extents_thresh as
	 * the caller set it.  fail_alloc_in: the Nth allocation of an entry or
	 * bitmap from now fails (0: never).
	 */
	bool relink_always;
	bool fixed_thresh;
	unsigned int fail_alloc_in;
};

/* @bg_start, @bg_len: multiples of @sectorsize (a power of two) */
int free_space_ctl_init(struct btrfs_free_space_ctl *ctl, u64 bg_start,
			u64 bg_len, u32 sectorsize);
/* free every entry; the ctl is empty and usable afterwards */
void free_space_ctl_release(struct btrfs_free_space_ctl *ctl);

/*
 * Mark [offset, offset + bytes) free.  -EINVAL: unaligned or outside the
 * block group; -EEXIST: part of it is free already (nothing changed);
 * -ENOMEM: only a prefix of the range was added.
 */
int add_free_space(struct btrfs_free_space_ctl *ctl, u64 offset, u64 bytes);

/*
 * Mark [offset, offset + bytes) used.  -EINVAL: unaligned or outside the
 * block group; -ENOENT: part of it is not free; -ENOMEM.  On error
 * nothing changed.
 */
int remove_free_space(struct btrfs_free_space_ctl *ctl, u64 offset, u64 bytes);

/*
 * Find @bytes of free space starting at a multiple of @align (0: the
 * sector size; else a multiple of it), take it out of the free space and
 * return its start in @ret_offset.
 *
 * A @hint inside the block group (its start included) asks for the
 * lowest fit at or after @hint, first-fit in address order.  A hint
 * outside the block group (BTRFS_FREE_SPACE_NO_HINT), or nothing fitting
 * after the hint, takes the space from the largest entry that fits.  A
 * fit must lie inside one entry.  -EINVAL, -ENOSPC or -ENOMEM; on error
 * nothing changed.
 */
#define BTRFS_FREE_SPACE_NO_HINT	((u64)-1)
int btrfs_find_space_for_alloc(struct btrfs_free_space_ctl *ctl, u64 hint,
			       u64 bytes, u64 align, u64 *ret_offset);

static inline u64 free_space_total(const struct btrfs_free_space_ctl *ctl)
{
	return ctl->free_space;
}

/* is every byte of [offset, offset + bytes) free? */
bool free_space_range_is_free(const struct btrfs_free_space_ctl *ctl,
			      u64 offset, u64 bytes);

/*
 * Free ranges in offset order, each maximal: runs that continue across
 * entries (an extent ending where a bitmap's run starts) come out as one.
 *
 *	struct free_space_iter it;
 *	u64 start, len;
 *
 *	free_space_iter_init(&it, ctl);
 *	while (free_space_iter_next(&it, &start, &len))
 *		...
 *
 * The ctl must not change during the walk.
 */
struct free_space_iter {
	const struct btrfs_free_space_ctl *ctl;
	const struct btrfs_free_space *entry;	/* next entry to read from */
	u32 bit;				/* next bit in a bitmap entry */
	bool pending;				/* a run read ahead */
	u64 pending_start;
	u64 pending_end;
};

void free_space_iter_init(struct free_space_iter *it,
			  const struct btrfs_free_space_ctl *ctl);
bool free_space_iter_next(struct free_space_iter *it, u64 *start, u64 *len);

/* entries in offset order, as stored (for the v1 cache writer) */
struct btrfs_free_space *free_space_first_entry(const struct btrfs_free_space_ctl *ctl);
struct btrfs_free_space *free_space_next_entry(const struct btrfs_free_space *entry);

/*
 * The on-disk v1 free space cache (free-space-cache-v1.c), written at
 * commit when the free space tree is off (not while a filesystem is
 * being created: mkfs writes none, like mkfs.btrfs).  Every block group
 * of 100 MiB or more (or with a cache already) gets a fresh cache file;
 * @settle settles the metadata after the cache items changed.  *@valid: every cache describes the free space after
 * this commit, so the superblock's cache_generation may be the
 * transaction's; false: leave it at -1.
 */
struct btrfs_trans_handle;
int btrfs_write_v1_space_caches(struct btrfs_trans_handle *trans,
				int (*settle)(struct btrfs_trans_handle *trans),
				bool *valid);

#endif
