// SPDX-License-Identifier: GPL-2.0
/*
 * Extent buffer cache.  Each tree block is one contiguous allocation
 * (header + nodesize bytes), found through a hash table keyed by logical
 * address.  A buffer with no references goes to the tail of the LRU list;
 * when the cache holds more bytes than its budget, the oldest
 * unreferenced buffers are freed.  Referenced buffers are never freed, so
 * callers may hold any number of them (a path holds at most 8).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extent_io.h"
#include "disk-io.h"

#define EB_CACHE_MIN_BUCKETS	1024
#define EB_CACHE_DEFAULT_BUDGET	(256ULL << 20)

static size_t eb_hash(u64 start, size_t nr_buckets)
{
	/* block addresses are multiples of the sector size: mix high bits in */
	u64 h = start >> 12;

	h ^= h >> 29;
	h *= 0x9E3779B97F4A7C15ULL;
	return (size_t)(h >> 20) & (nr_buckets - 1);
}

int extent_buffer_cache_init(struct extent_buffer_cache *cache, size_t budget)
{
	memset(cache, 0, sizeof(*cache));
	cache->nr_buckets = EB_CACHE_MIN_BUCKETS;
	cache->buckets = calloc(cache->nr_buckets, sizeof(*cache->buckets));
	if (!cache->buckets)
		return -ENOMEM;
	cache->budget = budget ? budget : EB_CACHE_DEFAULT_BUDGET;
	INIT_LIST_HEAD(&cache->lru);
	return 0;
}

static void eb_cache_unlink(struct extent_buffer_cache *cache,
			    struct extent_buffer *eb)
{
	struct extent_buffer **pp = &cache->buckets[eb_hash(eb->start,
							   cache->nr_buckets)];

	while (*pp && *pp != eb)
		pp = &(*pp)->hash_next;
	if (*pp)
		*pp = eb->hash_next;
	eb->hash_next = NULL;
	cache->nr_buffers--;
	cache->bytes -= eb->len;
}

size_t extent_buffer_cache_destroy(struct extent_buffer_cache *cache)
{
	size_t leaked = 0;
	size_t i;

	if (!cache->buckets)
		return 0;
	for (i = 0; i < cache->nr_buckets; i++) {
		struct extent_buffer *eb = cache->buckets[i];

		while (eb) {
			struct extent_buffer *next = eb->hash_next;

			if (eb->refs)
				leaked++;
			free(eb);
			eb = next;
		}
	}
	free(cache->buckets);
	memset(cache, 0, sizeof(*cache));
	return leaked;
}

static void eb_cache_grow(struct extent_buffer_cache *cache)
{
	size_t nr = cache->nr_buckets * 2;
	struct extent_buffer **buckets = calloc(nr, sizeof(*buckets));
	size_t i;

	if (!buckets)
		return;	/* keep the old table: only slower */
	for (i = 0; i < cache->nr_buckets; i++) {
		struct extent_buffer *eb = cache->buckets[i];

		while (eb) {
			struct extent_buffer *next = eb->hash_next;
			size_t h = eb_hash(eb->start, nr);

			eb->hash_next = buckets[h];
			buckets[h] = eb;
			eb = next;
		}
	}
	free(cache->buckets);
	cache->buckets = buckets;
	cache->nr_buckets = nr;
}

static void eb_cache_shrink(struct extent_buffer_cache *cache)
{
	while (cache->bytes > cache->budget && !list_empty(&cache->lru)) {
		struct extent_buffer *eb = list_first_entry(&cache->lru,
						struct extent_buffer, lru);

		list_del_init(&eb->lru);
		eb_cache_unlink(cache, eb);
		free(eb);
	}
}

struct extent_buffer *find_extent_buffer(struct btrfs_fs_info *fs_info, u64 start)
{
	struct extent_buffer_cache *cache = &fs_info->eb_cache;
	struct extent_buffer *eb;

	eb = cache->buckets[eb_hash(start, cache->nr_buckets)];
	while (eb && eb->start != start)
		eb = eb->hash_next;
	if (!eb) {
		cache->misses++;
		return NULL;
	}
	cache->hits++;
	return extent_buffer_get(eb);
}

static struct extent_buffer *eb_alloc(struct btrfs_fs_info *fs_info, u64 start,
				      u32 len, bool zero)
{
	struct extent_buffer *eb = malloc(sizeof(*eb) + len);

	if (!eb)
		return NULL;
	memset(eb, 0, sizeof(*eb));
	/* a block about to be read is overwritten whole: skip the clearing */
	if (zero)
		memset(eb->data, 0, len);
	eb->start = start;
	eb->len = len;
	eb->refs = 1;
	eb->fs_info = fs_info;
	INIT_LIST_HEAD(&eb->lru);
	return eb;
}

static struct extent_buffer *find_or_alloc(struct btrfs_fs_info *fs_info,
					   u64 start, bool zero)
{
	struct extent_buffer_cache *cache = &fs_info->eb_cache;
	struct extent_buffer *eb;
	size_t h;

	eb = find_extent_buffer(fs_info, start);
	if (eb)
		return eb;
	eb = eb_alloc(fs_info, start, fs_info->nodesize, zero);
	if (!eb)
		return NULL;
	if (cache->nr_buffers >= cache->nr_buckets * 2)
		eb_cache_grow(cache);
	h = eb_hash(start, cache->nr_buckets);
	eb->hash_next = cache->buckets[h];
	cache->buckets[h] = eb;
	cache->nr_buffers++;
	cache->bytes += eb->len;
	eb_cache_shrink(cache);
	return eb;
}

struct extent_buffer *alloc_extent_buffer(struct btrfs_fs_info *fs_info, u64 start)
{
	return find_or_alloc(fs_info, start, true);
}

struct extent_buffer *alloc_extent_buffer_for_read(struct btrfs_fs_info *fs_info,
						   u64 start)
{
	return find_or_alloc(fs_info, start, false);
}

struct extent_buffer *alloc_dummy_extent_buffer(struct btrfs_fs_info *fs_info,
						u64 start, u32 len)
{
	return eb_alloc(fs_info, start, len, true);
}

struct extent_buffer *extent_buffer_get(struct extent_buffer *eb)
{
	if (eb->refs++ == 0)
		list_del_init(&eb->lru);
	return eb;
}

static bool eb_is_cached(struct extent_buffer *eb)
{
	struct extent_buffer_cache *cache;
	struct extent_buffer *cur;

	if (!eb->fs_info)
		return false;
	cache = &eb->fs_info->eb_cache;
	if (!cache->buckets)
		return false;
	cur = cache->buckets[eb_hash(eb->start, cache->nr_buckets)];
	while (cur && cur != eb)
		cur = cur->hash_next;
	return cur == eb;
}

void free_extent_buffer(struct extent_buffer *eb)
{
	if (!eb)
		return;
	if (--eb->refs > 0)
		return;
	if (!eb_is_cached(eb)) {
		free(eb);
		return;
	}
	if (!(eb->flags & EXTENT_BUFFER_UPTODATE) && !(eb->flags & EXTENT_BUFFER_DIRTY)) {
		/* nothing worth keeping */
		eb_cache_unlink(&eb->fs_info->eb_cache, eb);
		free(eb);
		return;
	}
	list_add_tail(&eb->lru, &eb->fs_info->eb_cache.lru);
	if (!(eb->flags & EXTENT_BUFFER_DIRTY))
		eb_cache_shrink(&eb->fs_info->eb_cache);
}

void extent_buffer_evict(struct extent_buffer *eb)
{
	if (eb_is_cached(eb))
		eb_cache_unlink(&eb->fs_info->eb_cache, eb);
	eb->flags &= ~(EXTENT_BUFFER_UPTODATE | EXTENT_BUFFER_VERIFIED);
}
