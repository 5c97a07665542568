// SPDX-License-Identifier: GPL-2.0
/*
 * The extent buffer cache against a model.
 *
 * A random sequence of alloc / find / get / free / evict / mark-uptodate
 * (and standalone dummy buffers) over a small set of block addresses, with
 * a budget of 8 blocks.  The model knows every live buffer, its reference
 * count, whether it is in the cache, and the LRU order of the unreferenced
 * ones; after every step the cache's hash table, LRU list and counters
 * must match it exactly.  Each buffer carries a pattern written when it
 * was created, checked while it lives: a referenced buffer is never
 * freed (ASan in the sanitizer build catches any use after free).  Also:
 * the hash table growing past its initial bucket count with thousands of
 * referenced buffers, and the leak count of extent_buffer_cache_destroy.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "disk-io.h"
#include "extent_io.h"

#define EB_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)


#define NODESIZE	4096U
#define BUDGET_BLOCKS	8
#define BUDGET		(BUDGET_BLOCKS * NODESIZE)
#define NR_ADDRS	24
#define MAX_HANDLES	48
#define INITIAL_BUCKETS	1024

static u32 rnd_below(u64 *state, u32 n)
{
	return (u32)((test_rand(state) >> 11) % n);
}

/* one buffer the cache made, as the model sees it */
struct mobj {
	struct extent_buffer *eb;
	u64 start;
	u32 id;			/* seeds its data pattern */
	int refs;
	bool cached;
	bool uptodate;
};

struct eb_model {
	struct btrfs_fs_info *fs;
	u64 base;			/* address of slot 0 */
	struct mobj *cache[NR_ADDRS];	/* what the hash table should hold */
	struct mobj *lru[NR_ADDRS];	/* unreferenced cached buffers, oldest first */
	int nr_lru;
	int nr_cached;
	struct mobj *handles[MAX_HANDLES];	/* one reference each */
	int nr_handles;
	u32 next_id;
	u64 rand;
	int nr_evicted_by_budget;
};

static u8 pattern_byte(u32 id, u32 i)
{
	u32 x = id * 2654435761U + i * 40503U;

	return (u8)(x >> 13);
}

static void write_pattern(struct extent_buffer *eb, u32 id)
{
	u32 i;

	for (i = 0; i < eb->len; i++)
		eb->data[i] = pattern_byte(id, i);
}

static void check_pattern(const struct mobj *o)
{
	u32 i;

	for (i = 0; i < o->eb->len; i++)
		EB_CHECK(o->eb->data[i] == pattern_byte(o->id, i),
			 "buffer %llu (id %u): byte %u is 0x%02x, expect 0x%02x",
			 (unsigned long long)o->start, o->id, i, o->eb->data[i],
			 pattern_byte(o->id, i));
}

static int slot_of(const struct eb_model *m, u64 start)
{
	return (int)((start - m->base) / NODESIZE);
}

static void lru_remove(struct eb_model *m, struct mobj *o)
{
	int i;

	for (i = 0; i < m->nr_lru; i++) {
		if (m->lru[i] == o) {
			memmove(&m->lru[i], &m->lru[i + 1],
				(m->nr_lru - i - 1) * sizeof(m->lru[0]));
			m->nr_lru--;
			return;
		}
	}
	ck_abort_msg("model: buffer %llu not on the lru", (unsigned long long)o->start);
}

static void uncache(struct eb_model *m, struct mobj *o)
{
	m->cache[slot_of(m, o->start)] = NULL;
	o->cached = false;
	m->nr_cached--;
}

/* the oldest unreferenced buffers go while the cache is over budget */
static void model_shrink(struct eb_model *m)
{
	while ((size_t)m->nr_cached * NODESIZE > BUDGET && m->nr_lru) {
		struct mobj *o = m->lru[0];

		lru_remove(m, o);
		uncache(m, o);
		free(o);
		m->nr_evicted_by_budget++;
	}
}

static void take_ref(struct eb_model *m, struct mobj *o)
{
	REQUIRE_INT(m->nr_handles, <, MAX_HANDLES);
	if (o->refs++ == 0 && o->cached)
		lru_remove(m, o);
	m->handles[m->nr_handles++] = o;
}

static void drop_handle(struct eb_model *m, int h)
{
	m->handles[h] = m->handles[--m->nr_handles];
}

/* the cache's own structures must be the model's */
static void compare_cache(struct eb_model *m)
{
	struct extent_buffer_cache *c = &m->fs->eb_cache;
	struct extent_buffer *eb;
	struct list_head *pos;
	size_t b, seen = 0, unref = 0;
	int i;

	EB_CHECK(c->nr_buffers == (size_t)m->nr_cached,
		 "cache holds %zu buffers, model %d", c->nr_buffers, m->nr_cached);
	EB_CHECK(c->bytes == (size_t)m->nr_cached * NODESIZE,
		 "cache bytes %zu, model %zu", c->bytes, (size_t)m->nr_cached * NODESIZE);
	for (b = 0; b < c->nr_buckets; b++) {
		for (eb = c->buckets[b]; eb; eb = eb->hash_next) {
			int s = slot_of(m, eb->start);

			EB_CHECK(s >= 0 && s < NR_ADDRS && m->cache[s] &&
				 m->cache[s]->eb == eb,
				 "cache holds buffer %llu (%p) the model does not",
				 (unsigned long long)eb->start, (void *)eb);
			seen++;
		}
	}
	EB_CHECK(seen == (size_t)m->nr_cached, "hash table holds %zu buffers, model %d",
		 seen, m->nr_cached);
	i = 0;
	for (pos = c->lru.next; pos != &c->lru; pos = pos->next) {
		eb = list_entry(pos, struct extent_buffer, lru);
		EB_CHECK(i < m->nr_lru && m->lru[i]->eb == eb,
			 "lru entry %d is buffer %llu, model %lld", i,
			 (unsigned long long)eb->start,
			 i < m->nr_lru ? (long long)m->lru[i]->start : -1LL);
		EB_CHECK(eb->refs == 0, "buffer %llu on the lru has %d refs",
			 (unsigned long long)eb->start, eb->refs);
		i++;
		unref += eb->len;
	}
	EB_CHECK(i == m->nr_lru, "lru has %d buffers, model %d", i, m->nr_lru);
	EB_CHECK(unref <= BUDGET, "%zu unreferenced bytes kept, budget %u", unref, BUDGET);
	for (i = 0; i < m->nr_handles; i++) {
		struct mobj *o = m->handles[i];

		EB_CHECK(o->eb->refs == o->refs && o->eb->start == o->start,
			 "held buffer %llu has %d refs, model %d",
			 (unsigned long long)o->start, o->eb->refs, o->refs);
		EB_CHECK(!!(o->eb->flags & EXTENT_BUFFER_UPTODATE) == o->uptodate,
			 "held buffer %llu uptodate flag %d, model %d",
			 (unsigned long long)o->start,
			 !!(o->eb->flags & EXTENT_BUFFER_UPTODATE), o->uptodate);
	}
}

static void check_all_patterns(struct eb_model *m)
{
	int i;

	for (i = 0; i < m->nr_handles; i++)
		check_pattern(m->handles[i]);
	for (i = 0; i < m->nr_lru; i++)
		check_pattern(m->lru[i]);
}

static void op_alloc(struct eb_model *m)
{
	int s = rnd_below(&m->rand, NR_ADDRS);
	u64 start = m->base + (u64)s * NODESIZE;
	struct mobj *o = m->cache[s];
	struct extent_buffer *eb;

	if (m->nr_handles >= MAX_HANDLES)
		return;
	eb = alloc_extent_buffer(m->fs, start);
	REQUIRE((eb) != NULL);
	if (o) {
		EB_CHECK(eb == o->eb, "alloc(%llu) made a new buffer, one is cached",
			 (unsigned long long)start);
		take_ref(m, o);
		return;
	}
	/* new: zeroed, not uptodate, one reference */
	EB_CHECK(eb->start == start && eb->len == NODESIZE && eb->refs == 1 &&
		 eb->flags == 0, "new buffer %llu: start %llu len %u refs %d flags 0x%x",
		 (unsigned long long)start, (unsigned long long)eb->start, eb->len,
		 eb->refs, eb->flags);
	for (u32 i = 0; i < NODESIZE; i++)
		EB_CHECK(!eb->data[i], "new buffer %llu not zeroed at %u",
			 (unsigned long long)start, i);
	o = calloc(1, sizeof(*o));
	REQUIRE((o) != NULL);
	o->eb = eb;
	o->start = start;
	o->id = m->next_id++;
	o->cached = true;
	o->refs = 1;
	m->cache[s] = o;
	m->nr_cached++;
	m->handles[m->nr_handles++] = o;
	write_pattern(eb, o->id);
	/* the allocation itself may push old unreferenced buffers out */
	model_shrink(m);
	/* usually the caller reads the block in at once */
	if (rnd_below(&m->rand, 4)) {
		eb->flags |= EXTENT_BUFFER_UPTODATE;
		o->uptodate = true;
	}
}

static void op_find(struct eb_model *m)
{
	int s = rnd_below(&m->rand, NR_ADDRS);
	u64 start = m->base + (u64)s * NODESIZE;
	struct mobj *o = m->cache[s];
	struct extent_buffer *eb;

	if (m->nr_handles >= MAX_HANDLES)
		return;
	eb = find_extent_buffer(m->fs, start);
	if (!o) {
		EB_CHECK(!eb, "find(%llu) found %p, model has nothing",
			 (unsigned long long)start, (void *)eb);
		return;
	}
	EB_CHECK(eb == o->eb, "find(%llu) found %p, model %p",
		 (unsigned long long)start, (void *)eb, (void *)o->eb);
	take_ref(m, o);
	check_pattern(o);
}

static void op_get(struct eb_model *m)
{
	struct mobj *o;

	if (!m->nr_handles || m->nr_handles >= MAX_HANDLES)
		return;
	o = m->handles[rnd_below(&m->rand, m->nr_handles)];
	REQUIRE((void *)(extent_buffer_get(o->eb)) == (void *)(o->eb));
	take_ref(m, o);
}

static void op_free(struct eb_model *m)
{
	int h;
	struct mobj *o;

	if (!m->nr_handles)
		return;
	h = rnd_below(&m->rand, m->nr_handles);
	o = m->handles[h];
	check_pattern(o);
	drop_handle(m, h);
	free_extent_buffer(o->eb);
	if (--o->refs > 0)
		return;
	if (!o->cached) {
		free(o);		/* evicted earlier: gone now */
	} else if (!o->uptodate) {
		uncache(m, o);		/* nothing worth keeping */
		free(o);
	} else {
		m->lru[m->nr_lru++] = o;
		model_shrink(m);
	}
}

static void op_evict(struct eb_model *m)
{
	struct mobj *o;

	if (!m->nr_handles)
		return;
	o = m->handles[rnd_below(&m->rand, m->nr_handles)];
	extent_buffer_evict(o->eb);
	if (o->cached)
		uncache(m, o);
	o->uptodate = false;
	EB_CHECK(!(o->eb->flags & (EXTENT_BUFFER_UPTODATE | EXTENT_BUFFER_VERIFIED)),
		 "evicted buffer %llu keeps flags 0x%x", (unsigned long long)o->start,
		 o->eb->flags);
	/* nobody finds it any more, unless it was cached again meanwhile */
	if (!m->cache[slot_of(m, o->start)])
		REQUIRE((find_extent_buffer(m->fs, o->start)) == NULL);
	check_pattern(o);
}

static void op_uptodate(struct eb_model *m)
{
	struct mobj *o;

	if (!m->nr_handles)
		return;
	o = m->handles[rnd_below(&m->rand, m->nr_handles)];
	o->eb->flags |= EXTENT_BUFFER_UPTODATE | EXTENT_BUFFER_VERIFIED;
	o->uptodate = true;
}

/* a standalone buffer: never in the cache, freed by its last reference */
static void op_dummy(struct eb_model *m)
{
	u32 len = rnd_below(&m->rand, 2) ? NODESIZE : 512 * (1 + rnd_below(&m->rand, 32));
	u64 start = m->base + (u64)rnd_below(&m->rand, NR_ADDRS) * NODESIZE;
	struct extent_buffer *eb = alloc_dummy_extent_buffer(m->fs, start, len);

	REQUIRE((eb) != NULL);
	REQUIRE_INT(eb->refs, ==, 1);
	REQUIRE_UINT(eb->len, ==, len);
	memset(eb->data, 0x5A, len);
	eb->flags |= EXTENT_BUFFER_UPTODATE;
	if (rnd_below(&m->rand, 2)) {
		extent_buffer_get(eb);
		free_extent_buffer(eb);
	}
	free_extent_buffer(eb);
}

static void model_init(struct eb_model *m, u64 seed)
{
	memset(m, 0, sizeof(*m));
	m->rand = seed * 0x9E3779B97F4A7C15ULL + 3;
	m->fs = calloc(1, sizeof(*m->fs));
	REQUIRE((m->fs) != NULL);
	m->fs->nodesize = NODESIZE;
	m->fs->sectorsize = NODESIZE;
	REQUIRE_INT(extent_buffer_cache_init(&m->fs->eb_cache, BUDGET), ==, 0);
	/* sometimes near the top of the address space */
	m->base = (seed & 1) ? (UINT64_MAX & ~(u64)(NODESIZE - 1)) - 64 * NODESIZE :
			       (u64)NODESIZE * rnd_below(&m->rand, 1 << 20);
}

/* destroy reports the cached buffers still referenced; drop the rest */
static void model_destroy(struct eb_model *m)
{
	size_t leaked_cached = 0, leaked;
	int i;

	for (i = 0; i < NR_ADDRS; i++) {
		if (m->cache[i] && m->cache[i]->refs)
			leaked_cached++;
	}
	leaked = extent_buffer_cache_destroy(&m->fs->eb_cache);
	EB_CHECK(leaked == leaked_cached, "destroy reports %zu leaked, model %zu",
		 leaked, leaked_cached);
	/* destroy freed the cached ones; evicted ones are still ours */
	for (i = 0; i < m->nr_handles; i++) {
		struct mobj *o = m->handles[i];

		if (!o || o->cached)
			continue;
		check_pattern(o);
		free_extent_buffer(o->eb);
		if (--o->refs == 0)
			free(o);
	}
	for (i = 0; i < NR_ADDRS; i++)
		free(m->cache[i]);
	free(m->fs);
}

START_TEST(test_random_ops)
{
	struct eb_model *m = malloc(sizeof(*m));
	int step;

	REQUIRE((m) != NULL);
	model_init(m, _i + 1);
	for (step = 0; step < 6000; step++) {
		u32 op = rnd_below(&m->rand, 100);

		/* hold more references for a while, then fewer */
		if ((step / 500) % 2 && op < 50)
			op += 50;
		if (op < 28)
			op_alloc(m);
		else if (op < 42)
			op_find(m);
		else if (op < 48)
			op_get(m);
		else if (op < 86)
			op_free(m);
		else if (op < 90)
			op_evict(m);
		else if (op < 95)
			op_uptodate(m);
		else
			op_dummy(m);
		compare_cache(m);
		if (step % 32 == 0)
			check_all_patterns(m);
	}
	check_all_patterns(m);
	REQUIRE_INT(m->nr_evicted_by_budget, >, 0);
	model_destroy(m);
	free(m);
}
END_TEST

/* release everything in random order: the cache ends within budget */
START_TEST(test_drain)
{
	struct eb_model *m = malloc(sizeof(*m));
	int step;

	REQUIRE((m) != NULL);
	model_init(m, _i + 100);
	for (step = 0; step < 400; step++) {
		if (rnd_below(&m->rand, 3))
			op_alloc(m);
		else
			op_get(m);
		compare_cache(m);
	}
	while (m->nr_handles) {
		op_free(m);
		compare_cache(m);
	}
	REQUIRE_UINT(m->fs->eb_cache.bytes, <=, BUDGET);
	REQUIRE_UINT(extent_buffer_cache_destroy(&m->fs->eb_cache), ==, 0);
	for (step = 0; step < NR_ADDRS; step++)
		free(m->cache[step]);
	free(m->fs);
	free(m);
}
END_TEST

/* more live buffers than twice the initial buckets: the table doubles */
START_TEST(test_hash_growth)
{
	const int nr = 5000;
	struct btrfs_fs_info *fs = calloc(1, sizeof(*fs));
	struct extent_buffer **ebs = calloc(nr, sizeof(*ebs));
	u64 *starts = calloc(nr, sizeof(*starts));
	u64 state = 0x1234567ULL + _i;
	int i;

	REQUIRE((fs) != NULL);
	REQUIRE((ebs) != NULL);
	REQUIRE((starts) != NULL);
	fs->nodesize = NODESIZE;
	REQUIRE_INT(extent_buffer_cache_init(&fs->eb_cache, BUDGET), ==, 0);
	REQUIRE_UINT(fs->eb_cache.nr_buckets, ==, INITIAL_BUCKETS);
	for (i = 0; i < nr; i++) {
		/* dense runs, and addresses spread over the whole u64 space */
		if (_i == 0)
			starts[i] = (u64)NODESIZE * (i + 1);
		else if (_i == 1)
			starts[i] = (test_rand(&state) & ~(u64)(NODESIZE - 1)) | ((u64)i << 12);
		else
			starts[i] = ((u64)i << 32) | (u64)NODESIZE * (i & 7);
		ebs[i] = alloc_extent_buffer(fs, starts[i]);
		REQUIRE((ebs[i]) != NULL);
		REQUIRE_INT(ebs[i]->refs, ==, 1);
		ebs[i]->flags |= EXTENT_BUFFER_UPTODATE;
		memcpy(ebs[i]->data, &starts[i], sizeof(u64));
	}
	REQUIRE_UINT(fs->eb_cache.nr_buffers, ==, nr);
	REQUIRE_UINT(fs->eb_cache.nr_buckets, >=, 4096);
	REQUIRE_UINT(fs->eb_cache.nr_buckets & (fs->eb_cache.nr_buckets - 1), ==, 0);
	/* every one is found again, as itself */
	for (i = 0; i < nr; i++) {
		struct extent_buffer *eb = find_extent_buffer(fs, starts[i]);

		EB_CHECK(eb == ebs[i], "buffer %d (%llu) not found after growth", i,
			 (unsigned long long)starts[i]);
		REQUIRE_INT(eb->refs, ==, 2);
		REQUIRE_INT(memcmp(eb->data, &starts[i], sizeof(u64)), ==, 0);
		free_extent_buffer(eb);
	}
	/* released in order: the cache keeps only the last BUDGET_BLOCKS */
	for (i = 0; i < nr; i++)
		free_extent_buffer(ebs[i]);
	REQUIRE_UINT(fs->eb_cache.nr_buffers, ==, BUDGET_BLOCKS);
	for (i = 0; i < nr; i++) {
		struct extent_buffer *eb = find_extent_buffer(fs, starts[i]);

		if (i < nr - BUDGET_BLOCKS) {
			EB_CHECK(!eb, "buffer %d should have been dropped", i);
		} else {
			REQUIRE((eb) != NULL);
			free_extent_buffer(eb);
		}
	}
	REQUIRE_UINT(extent_buffer_cache_destroy(&fs->eb_cache), ==, 0);
	free(starts);
	free(ebs);
	free(fs);
}
END_TEST

/* destroy counts the referenced cached buffers and frees everything */
START_TEST(test_destroy_leaks)
{
	struct btrfs_fs_info *fs = calloc(1, sizeof(*fs));
	struct extent_buffer *held[10], *evicted;
	int i;

	REQUIRE((fs) != NULL);
	fs->nodesize = NODESIZE;
	/* room for all of them: nothing leaves for the budget's sake */
	REQUIRE_INT(extent_buffer_cache_init(&fs->eb_cache, 64 * NODESIZE), ==, 0);
	for (i = 0; i < 10; i++) {
		held[i] = alloc_extent_buffer(fs, (u64)(i + 1) * NODESIZE);
		REQUIRE((held[i]) != NULL);
		held[i]->flags |= EXTENT_BUFFER_UPTODATE;
	}
	/* 4 released (kept on the lru), 6 still held, one of them twice */
	for (i = 0; i < 4; i++)
		free_extent_buffer(held[i]);
	extent_buffer_get(held[5]);
	/* an evicted one is the holder's own business, not a cache leak */
	evicted = alloc_extent_buffer(fs, 100 * NODESIZE);
	extent_buffer_evict(evicted);
	REQUIRE_UINT(fs->eb_cache.nr_buffers, ==, 10);
	REQUIRE_UINT(extent_buffer_cache_destroy(&fs->eb_cache), ==, 6);
	REQUIRE((fs->eb_cache.buckets) == NULL);
	/* the holder of the evicted buffer can still drop it */
	free_extent_buffer(evicted);
	/* destroying twice is harmless */
	REQUIRE_UINT(extent_buffer_cache_destroy(&fs->eb_cache), ==, 0);
	free(fs);
}
END_TEST

/* find after evict is NULL even while the evicted buffer is held */
START_TEST(test_evict_find)
{
	struct btrfs_fs_info *fs = calloc(1, sizeof(*fs));
	struct extent_buffer *a, *b;

	REQUIRE((fs) != NULL);
	fs->nodesize = NODESIZE;
	REQUIRE_INT(extent_buffer_cache_init(&fs->eb_cache, BUDGET), ==, 0);
	a = alloc_extent_buffer(fs, 1ULL << 30);
	a->flags |= EXTENT_BUFFER_UPTODATE | EXTENT_BUFFER_VERIFIED;
	memset(a->data, 0xAA, NODESIZE);
	extent_buffer_evict(a);
	REQUIRE((find_extent_buffer(fs, 1ULL << 30)) == NULL);
	REQUIRE_UINT(fs->eb_cache.nr_buffers, ==, 0);
	REQUIRE_UINT(fs->eb_cache.bytes, ==, 0);
	/* a new buffer at the same address is a different one, zeroed */
	b = alloc_extent_buffer(fs, 1ULL << 30);
	REQUIRE((void *)(a) != (void *)(b));
	REQUIRE_UINT(b->data[0], ==, 0);
	REQUIRE_UINT(a->data[NODESIZE - 1], ==, 0xAA);
	/* evicting twice, or after the address was reused, is harmless */
	extent_buffer_evict(a);
	REQUIRE((void *)(find_extent_buffer(fs, 1ULL << 30)) == (void *)(b));
	free_extent_buffer(b);
	free_extent_buffer(a);
	b->flags |= EXTENT_BUFFER_UPTODATE;
	free_extent_buffer(b);
	REQUIRE_UINT(fs->eb_cache.nr_buffers, ==, 1);
	REQUIRE_UINT(extent_buffer_cache_destroy(&fs->eb_cache), ==, 0);
	free(fs);
}
END_TEST

Suite *eb_cache_suite(void)
{
	Suite *s = suite_create("eb_cache");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_evict_find);
	tcase_add_test(tc, test_destroy_leaks);
	tcase_add_loop_test(tc, test_random_ops, 0, 6);
	tcase_add_loop_test(tc, test_drain, 0, 4);
	tcase_add_loop_test(tc, test_hash_growth, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
