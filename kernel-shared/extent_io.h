/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extent buffers: one contiguous nodesize buffer per tree block, so that
 * every field access is a plain load at an offset.  Buffers are cached by
 * logical address with reference counts; unreferenced buffers sit on an
 * LRU list and are freed when the cache exceeds its memory budget.
 */
#ifndef GHEE_EXTENT_IO_H
#define GHEE_EXTENT_IO_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "accessors.h"
#include "list.h"

struct btrfs_fs_info;

#define EXTENT_BUFFER_UPTODATE	(1U << 0)
#define EXTENT_BUFFER_DIRTY	(1U << 1)
#define EXTENT_BUFFER_VERIFIED	(1U << 2)

struct extent_buffer {
	u64 start;
	u32 len;
	u32 flags;
	int refs;
	struct extent_buffer *hash_next;
	struct list_head lru;
	struct btrfs_fs_info *fs_info;
	u8 data[] __attribute__((aligned(8)));
};

struct extent_buffer_cache {
	struct extent_buffer **buckets;
	size_t nr_buckets;
	size_t nr_buffers;
	size_t bytes;
	size_t budget;		/* bytes of unreferenced buffers kept */
	struct list_head lru;	/* unreferenced buffers, oldest first */
	u64 hits;
	u64 misses;
};

int extent_buffer_cache_init(struct extent_buffer_cache *cache, size_t budget);
/* frees every buffer; returns how many were still referenced (a caller's leak) */
size_t extent_buffer_cache_destroy(struct extent_buffer_cache *cache);

/* find a cached buffer and take a reference, NULL if absent */
struct extent_buffer *find_extent_buffer(struct btrfs_fs_info *fs_info, u64 start);
/* find or create (zeroed, not uptodate) a buffer and take a reference */
struct extent_buffer *alloc_extent_buffer(struct btrfs_fs_info *fs_info, u64 start);
/* the same, but a new buffer's contents are undefined: the caller reads it whole */
struct extent_buffer *alloc_extent_buffer_for_read(struct btrfs_fs_info *fs_info,
						   u64 start);
/* a standalone buffer outside the cache (refs 1) */
struct extent_buffer *alloc_dummy_extent_buffer(struct btrfs_fs_info *fs_info,
						u64 start, u32 len);
struct extent_buffer *extent_buffer_get(struct extent_buffer *eb);
void free_extent_buffer(struct extent_buffer *eb);
/* drop the buffer from the cache at once (after a failed verification) */
void extent_buffer_evict(struct extent_buffer *eb);

/* header of the block */
static inline struct btrfs_header *eb_header(const struct extent_buffer *eb)
{
	return (struct btrfs_header *)eb->data;
}

static inline u32 btrfs_eb_nritems(const struct extent_buffer *eb)
{
	return btrfs_header_nritems(eb_header(eb));
}

static inline u8 btrfs_eb_level(const struct extent_buffer *eb)
{
	return btrfs_header_level(eb_header(eb));
}

static inline u64 btrfs_eb_generation(const struct extent_buffer *eb)
{
	return btrfs_header_generation(eb_header(eb));
}

static inline u64 btrfs_eb_owner(const struct extent_buffer *eb)
{
	return btrfs_header_owner(eb_header(eb));
}

static inline u64 btrfs_eb_bytenr(const struct extent_buffer *eb)
{
	return btrfs_header_bytenr(eb_header(eb));
}

/* leaf items: only valid on a verified buffer with slot < nritems */
static inline struct btrfs_item *btrfs_item_nr(const struct extent_buffer *eb,
					       int slot)
{
	return (struct btrfs_item *)(eb->data + sizeof(struct btrfs_header) +
				     (size_t)slot * sizeof(struct btrfs_item));
}

static inline u32 btrfs_item_size(const struct extent_buffer *eb, int slot)
{
	return btrfs_raw_item_size(btrfs_item_nr(eb, slot));
}

static inline u32 btrfs_item_offset(const struct extent_buffer *eb, int slot)
{
	return btrfs_raw_item_offset(btrfs_item_nr(eb, slot));
}

static inline void *btrfs_item_ptr_raw(const struct extent_buffer *eb, int slot)
{
	return (void *)(eb->data + sizeof(struct btrfs_header) +
			btrfs_item_offset(eb, slot));
}

#define btrfs_item_ptr(eb, slot, type) ((type *)btrfs_item_ptr_raw(eb, slot))

static inline void btrfs_item_key_to_cpu(const struct extent_buffer *eb,
					 struct btrfs_key *key, int slot)
{
	btrfs_disk_key_to_cpu(key, &btrfs_item_nr(eb, slot)->key);
}

/* node pointers */
static inline struct btrfs_key_ptr *btrfs_key_ptr_nr(const struct extent_buffer *eb,
						     int slot)
{
	return (struct btrfs_key_ptr *)(eb->data + sizeof(struct btrfs_header) +
					(size_t)slot * sizeof(struct btrfs_key_ptr));
}

static inline u64 btrfs_node_blockptr(const struct extent_buffer *eb, int slot)
{
	return btrfs_key_blockptr(btrfs_key_ptr_nr(eb, slot));
}

static inline u64 btrfs_node_ptr_generation(const struct extent_buffer *eb, int slot)
{
	return btrfs_key_generation(btrfs_key_ptr_nr(eb, slot));
}

static inline void btrfs_node_key_to_cpu(const struct extent_buffer *eb,
					 struct btrfs_key *key, int slot)
{
	btrfs_disk_key_to_cpu(key, &btrfs_key_ptr_nr(eb, slot)->key);
}

#endif
