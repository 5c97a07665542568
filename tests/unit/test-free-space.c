// SPDX-License-Identifier: GPL-2.0
/*
 * In-memory free space against a bitmap model with one bit per sector of
 * a block group spanning two and a half bitmap windows.  Random adds,
 * removes and allocations; after every step the total, every merged free
 * range and the structure of both trees must match.  Allocations are
 * predicted exactly from the model: the lowest fit at or after the hint
 * inside one entry, else the first fitting entry in size order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "free-space-cache.h"
#include "free-space-read.h"
#include "ranges.h"

#define FS_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

#define SECTOR		4096ULL
#define BG_START	(1ULL << 30)
#define NR_SECTORS	(BTRFS_FREE_SPACE_BITMAP_BITS * 5 / 2)
#define NR_WORDS	(NR_SECTORS / 64)
#define BG_LEN		(NR_SECTORS * SECTOR)

struct fs_model {
	struct btrfs_free_space_ctl ctl;
	u64 free[NR_WORDS];		/* bit set: sector free */
	uint64_t rand;
	int nr_enomem;
	int nr_allocs;
};

static uint64_t rnd(struct fs_model *m)
{
	return test_rand(&m->rand);
}

static u64 rnd_below(struct fs_model *m, u64 n)
{
	return (rnd(m) >> 11) % n;
}

static bool m_free(const struct fs_model *m, u64 s)
{
	return m->free[s / 64] >> (s % 64) & 1;
}

static void m_set(struct fs_model *m, u64 s, u64 n, bool free)
{
	for (; n; s++, n--) {
		if (free)
			m->free[s / 64] |= 1ULL << (s % 64);
		else
			m->free[s / 64] &= ~(1ULL << (s % 64));
	}
}

/* first bit at or after @s equal to @value in a map of @nbits (n * 64), or @nbits */
static u64 words_next(const u64 *map, u64 nbits, u64 s, bool value)
{
	u64 w, word;

	if (s >= nbits)
		return nbits;
	w = s / 64;
	word = (value ? map[w] : ~map[w]) & (~0ULL << (s % 64));
	while (!word) {
		if (++w == nbits / 64)
			return nbits;
		word = value ? map[w] : ~map[w];
	}
	return w * 64 + (u64)__builtin_ctzll(word);
}

/* first sector at or after @s whose state is @free, or NR_SECTORS */
static u64 m_next(const struct fs_model *m, u64 s, bool free)
{
	return words_next(m->free, NR_SECTORS, s, free);
}

static bool m_all(const struct fs_model *m, u64 s, u64 n, bool free)
{
	return m_next(m, s, !free) >= s + n;
}

static u64 m_total(const struct fs_model *m)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < NR_WORDS; i++)
		n += (u64)__builtin_popcountll(m->free[i]);
	return n * SECTOR;
}

static u64 addr(u64 sector)
{
	return BG_START + sector * SECTOR;
}

static u64 sector_of(u64 a)
{
	return (a - BG_START) / SECTOR;
}

/* ---- structure checks --------------------------------------------------- */

static u64 entry_cover_end(const struct btrfs_free_space_ctl *ctl,
			   const struct btrfs_free_space *e)
{
	return e->offset + (e->bitmap ? ctl->bitmap_span : e->bytes);
}

static void check_bitmap(const struct btrfs_free_space_ctl *ctl,
			 const struct btrfs_free_space *e)
{
	const u64 nbits = BTRFS_FREE_SPACE_BITMAP_BITS;
	u64 set = 0, longest = 0, i, a, b;

	FS_CHECK((e->offset - ctl->start) % ctl->bitmap_span == 0,
		 "bitmap at %llu not on a window start", (unsigned long long)e->offset);
	for (i = 0; i < BTRFS_FREE_SPACE_BITMAP_WORDS; i++)
		set += (u64)__builtin_popcountll(e->bitmap[i]);
	for (a = words_next(e->bitmap, nbits, 0, true); a < nbits;
	     a = words_next(e->bitmap, nbits, b, true)) {
		b = words_next(e->bitmap, nbits, a, false);
		if (b - a > longest)
			longest = b - a;
		FS_CHECK(e->offset + b * SECTOR <= ctl->start + ctl->len,
			 "bitmap bits past the block group");
	}
	FS_CHECK(e->bytes && e->bytes == set * SECTOR, "bitmap bytes %llu, bits %llu",
		 (unsigned long long)e->bytes, (unsigned long long)set);
	FS_CHECK(e->max_extent_size >= longest * SECTOR,
		 "bitmap max_extent_size %llu below longest run %llu",
		 (unsigned long long)e->max_extent_size,
		 (unsigned long long)(longest * SECTOR));
}

static void check_size_tree(const struct btrfs_free_space_ctl *ctl, int nr_entries)
{
	const struct btrfs_free_space *e, *prev = NULL;
	struct rb_node *node;
	int n = 0;

	for (node = rb_first(&ctl->free_space_bytes); node; node = rb_next(node)) {
		e = rb_entry(node, struct btrfs_free_space, bytes_index);
		if (prev)
			FS_CHECK(prev->bytes > e->bytes ||
				 (prev->bytes == e->bytes && prev->offset < e->offset),
				 "size tree out of order at %llu",
				 (unsigned long long)e->offset);
		prev = e;
		n++;
	}
	FS_CHECK(n == nr_entries, "size tree has %d entries, offset tree %d",
		 n, nr_entries);
}

/* both trees, the counters, and the layout rules of the header */
static void check_ctl(const struct btrfs_free_space_ctl *ctl)
{
	const struct btrfs_free_space *e, *prev = NULL;
	int extents = 0, bitmaps = 0;
	u64 total = 0;

	for (e = free_space_first_entry(ctl); e; e = free_space_next_entry(e)) {
		FS_CHECK(e->offset >= ctl->start && e->offset % SECTOR == 0,
			 "entry offset %llu", (unsigned long long)e->offset);
		if (prev) {
			FS_CHECK(e->offset >= entry_cover_end(ctl, prev),
				 "entry %llu overlaps the one before",
				 (unsigned long long)e->offset);
			FS_CHECK(prev->bitmap || e->bitmap ||
				 e->offset > entry_cover_end(ctl, prev),
				 "touching extents not merged at %llu",
				 (unsigned long long)e->offset);
		}
		if (e->bitmap) {
			check_bitmap(ctl, e);
			bitmaps++;
		} else {
			FS_CHECK(e->bytes && e->bytes % SECTOR == 0 &&
				 e->offset + e->bytes <= ctl->start + ctl->len,
				 "extent %llu+%llu", (unsigned long long)e->offset,
				 (unsigned long long)e->bytes);
			extents++;
		}
		total += e->bytes;
		prev = e;
	}
	FS_CHECK(extents == ctl->free_extents && bitmaps == ctl->total_bitmaps,
		 "counts %d/%d, found %d/%d", ctl->free_extents, ctl->total_bitmaps,
		 extents, bitmaps);
	FS_CHECK(total == ctl->free_space, "entries hold %llu, total says %llu",
		 (unsigned long long)total, (unsigned long long)ctl->free_space);
	check_size_tree(ctl, extents + bitmaps);
}

/* the merged free ranges must be the model's runs */
static void compare_all(struct fs_model *m)
{
	struct free_space_iter it;
	u64 s = 0, start, len, run_end;

	FS_CHECK(free_space_total(&m->ctl) == m_total(m), "total %llu, model %llu",
		 (unsigned long long)free_space_total(&m->ctl),
		 (unsigned long long)m_total(m));
	free_space_iter_init(&it, &m->ctl);
	for (;;) {
		s = m_next(m, s, true);
		if (s == NR_SECTORS)
			break;
		run_end = m_next(m, s, false);
		FS_CHECK(free_space_iter_next(&it, &start, &len),
			 "free range at sector %llu missing", (unsigned long long)s);
		FS_CHECK(start == addr(s) && len == (run_end - s) * SECTOR,
			 "range sector %llu+%llu, model %llu+%llu",
			 (unsigned long long)sector_of(start),
			 (unsigned long long)(len / SECTOR), (unsigned long long)s,
			 (unsigned long long)(run_end - s));
		s = run_end;
	}
	FS_CHECK(!free_space_iter_next(&it, &start, &len), "extra free range at %llu",
		 (unsigned long long)start);
	check_ctl(&m->ctl);
}

/* ---- steps -------------------------------------------------------------- */

/* a random sub-range of the run of @free sectors around a random sector */
static bool pick_in_run(struct fs_model *m, bool free, u64 *s, u64 *n)
{
	u64 p = m_next(m, rnd_below(m, NR_SECTORS), free), a, b, len;

	if (p == NR_SECTORS)
		p = m_next(m, 0, free);
	if (p == NR_SECTORS)
		return false;
	for (a = p; a > 0 && m_free(m, a - 1) == free; a--)
		;
	b = m_next(m, p, !free);
	len = 1 + rnd_below(m, rnd_below(m, 4) ? 64 : b - a);
	if (len > b - a)
		len = b - a;
	*s = a + rnd_below(m, b - a - len + 1);
	*n = len;
	return true;
}

static void arm_failure(struct fs_model *m)
{
	if (!rnd_below(m, 16))
		m->ctl.fail_alloc_in = 1 + (unsigned int)rnd_below(m, 2);
}

/* after a failed add, only a prefix of [s, s + n) may have become free */
static void adopt_partial_add(struct fs_model *m, u64 s, u64 n)
{
	u64 p = s;

	while (p < s + n && free_space_range_is_free(&m->ctl, addr(p), SECTOR))
		p++;
	FS_CHECK(p == s + n || !free_space_range_is_free(&m->ctl, addr(p),
							  (s + n - p) * SECTOR),
		 "partial add left a hole before sector %llu", (unsigned long long)p);
	m_set(m, s, p - s, true);
}

static void step_add(struct fs_model *m)
{
	u64 s, n, f;
	int ret;

	if (!rnd_below(m, 10)) {
		/* overlapping some free space: refused, nothing changes */
		f = m_next(m, rnd_below(m, NR_SECTORS), true);
		if (f == NR_SECTORS)
			return;
		s = f > 3 ? f - 3 : 0;
		n = s + 8 <= NR_SECTORS ? 8 : NR_SECTORS - s;
		ret = add_free_space(&m->ctl, addr(s), n * SECTOR);
		FS_CHECK(ret == -EEXIST, "add over free space returned %d", ret);
		return;
	}
	if (!pick_in_run(m, false, &s, &n))
		return;
	arm_failure(m);
	ret = add_free_space(&m->ctl, addr(s), n * SECTOR);
	m->ctl.fail_alloc_in = 0;
	if (ret == -ENOMEM) {
		m->nr_enomem++;
		adopt_partial_add(m, s, n);
		return;
	}
	FS_CHECK(ret == 0, "add sector %llu+%llu returned %d",
		 (unsigned long long)s, (unsigned long long)n, ret);
	m_set(m, s, n, true);
}

static void step_remove(struct fs_model *m)
{
	u64 s, n, u;
	int ret;

	if (!rnd_below(m, 10)) {
		/* includes a used sector: refused */
		u = m_next(m, rnd_below(m, NR_SECTORS), false);
		if (u == NR_SECTORS)
			return;
		s = u > 2 ? u - 2 : 0;
		n = s + 5 <= NR_SECTORS ? 5 : NR_SECTORS - s;
		ret = remove_free_space(&m->ctl, addr(s), n * SECTOR);
		FS_CHECK(ret == -ENOENT, "remove of used space returned %d", ret);
		return;
	}
	if (!pick_in_run(m, true, &s, &n))
		return;
	arm_failure(m);
	ret = remove_free_space(&m->ctl, addr(s), n * SECTOR);
	m->ctl.fail_alloc_in = 0;
	if (ret == -ENOMEM) {
		m->nr_enomem++;
		return;
	}
	FS_CHECK(ret == 0, "remove sector %llu+%llu returned %d",
		 (unsigned long long)s, (unsigned long long)n, ret);
	m_set(m, s, n, false);
}

/*
 * Take all free space of one window, run by run, so its bitmap (if any)
 * goes away and the window returns to extents later.
 */
static void step_clear_window(struct fs_model *m)
{
	u64 w = rnd_below(m, (NR_SECTORS + BTRFS_FREE_SPACE_BITMAP_BITS - 1) /
			  BTRFS_FREE_SPACE_BITMAP_BITS);
	u64 lo = w * BTRFS_FREE_SPACE_BITMAP_BITS, hi = lo + BTRFS_FREE_SPACE_BITMAP_BITS;
	u64 s, e;
	int ret;

	if (hi > NR_SECTORS)
		hi = NR_SECTORS;
	for (s = m_next(m, lo, true); s < hi; s = m_next(m, e, true)) {
		e = m_next(m, s, false);
		if (e > hi)
			e = hi;
		ret = remove_free_space(&m->ctl, addr(s), (e - s) * SECTOR);
		FS_CHECK(ret == 0, "remove sector %llu+%llu returned %d",
			 (unsigned long long)s, (unsigned long long)(e - s), ret);
		m_set(m, s, e - s, false);
	}
}

/*
 * The lowest sector >= @from, inside [@lo, @hi), whose address is a
 * multiple of @align and that starts @n free sectors ending before @hi.
 */
static bool model_fit(const struct fs_model *m, u64 lo, u64 hi, u64 from,
		      u64 n, u64 align, u64 *found)
{
	u64 s = from > lo ? from : lo, a, e;

	while (s < hi) {
		s = m_next(m, s, true);
		if (s >= hi)
			break;
		e = m_next(m, s, false);
		if (e > hi)
			e = hi;
		a = addr(s) % align ? s + (align - addr(s) % align) / SECTOR : s;
		if (a + n <= e) {
			*found = a;
			return true;
		}
		s = e;
	}
	return false;
}

static u64 cover_hi(const struct btrfs_free_space_ctl *ctl,
		    const struct btrfs_free_space *e)
{
	u64 end = entry_cover_end(ctl, e);

	if (end > ctl->start + ctl->len)
		end = ctl->start + ctl->len;
	return sector_of(end);
}

/* where the allocator must put @n sectors; false if nowhere */
static bool predict_alloc(const struct fs_model *m, u64 hint, u64 n, u64 align,
			  u64 *found)
{
	const struct btrfs_free_space_ctl *ctl = &m->ctl;
	const struct btrfs_free_space *e;
	struct rb_node *node;

	if (hint >= ctl->start && hint < ctl->start + ctl->len) {
		for (e = free_space_first_entry(ctl); e; e = free_space_next_entry(e)) {
			if (entry_cover_end(ctl, e) <= hint)
				continue;
			if (model_fit(m, sector_of(e->offset), cover_hi(ctl, e),
				      sector_of(hint), n, align, found))
				return true;
		}
	}
	for (node = rb_first(&ctl->free_space_bytes); node; node = rb_next(node)) {
		e = rb_entry(node, struct btrfs_free_space, bytes_index);
		if (e->bytes < n * SECTOR)
			break;
		if (model_fit(m, sector_of(e->offset), cover_hi(ctl, e),
			      sector_of(e->offset), n, align, found))
			return true;
	}
	return false;
}

static void step_alloc(struct fs_model *m)
{
	static const u64 aligns[] = { 0, SECTOR, 2 * SECTOR, 3 * SECTOR,
				      16 * SECTOR, 256 * SECTOR };
	u64 n, align, hint = 0, want = 0, got = 0;
	bool expect;
	int ret;

	switch (rnd_below(m, 10)) {
	case 0:
		n = 1 + rnd_below(m, NR_SECTORS / 2);
		break;
	case 1:
	case 2:
		n = 16 + rnd_below(m, 512);
		break;
	default:
		n = 1 + rnd_below(m, 16);
	}
	align = aligns[rnd_below(m, 6)];
	switch (rnd_below(m, 8)) {
	case 0:
		hint = BTRFS_FREE_SPACE_NO_HINT;
		break;
	case 1:
		hint = BG_START;	/* first fit from the start */
		break;
	case 2:
	case 3:
	case 4:
		hint = addr(rnd_below(m, NR_SECTORS));
		break;
	}
	expect = predict_alloc(m, hint, n, align ? align : SECTOR, &want);
	arm_failure(m);
	ret = btrfs_find_space_for_alloc(&m->ctl, hint, n * SECTOR, align, &got);
	m->ctl.fail_alloc_in = 0;
	if (ret == -ENOMEM) {
		m->nr_enomem++;
		return;
	}
	if (!expect) {
		FS_CHECK(ret == -ENOSPC, "alloc %llu sectors: %d, expected ENOSPC",
			 (unsigned long long)n, ret);
		return;
	}
	FS_CHECK(ret == 0, "alloc %llu sectors align %llu: %d, expected sector %llu",
		 (unsigned long long)n, (unsigned long long)align, ret,
		 (unsigned long long)want);
	FS_CHECK(got == addr(want), "alloc %llu sectors hint %#llx: got sector %llu, expected %llu",
		 (unsigned long long)n, (unsigned long long)hint,
		 (unsigned long long)sector_of(got), (unsigned long long)want);
	FS_CHECK(m_all(m, want, n, true), "allocated space was not free");
	m_set(m, want, n, false);
	m->nr_allocs++;
}

static void step_invalid(struct fs_model *m)
{
	u64 got;

	FS_CHECK(add_free_space(&m->ctl, addr(1) + 512, SECTOR) == -EINVAL, "unaligned add");
	FS_CHECK(add_free_space(&m->ctl, addr(NR_SECTORS - 1), 2 * SECTOR) == -EINVAL,
		 "add past the end");
	FS_CHECK(add_free_space(&m->ctl, BG_START - SECTOR, SECTOR) == -EINVAL,
		 "add before the start");
	FS_CHECK(remove_free_space(&m->ctl, addr(0), 0) == -EINVAL, "empty remove");
	FS_CHECK(btrfs_find_space_for_alloc(&m->ctl, 0, 100, 0, &got) == -EINVAL,
		 "unaligned alloc size");
	FS_CHECK(btrfs_find_space_for_alloc(&m->ctl, 0, SECTOR, 1000, &got) == -EINVAL,
		 "bad alignment");
}

/*
 * @variant: bits 0-1 pick the extent threshold (default, 2, 8, 32),
 * bit 2 relinks on every change.
 */
static void run_random(uint64_t seed, int variant, int steps)
{
	static const int thresh[] = { -1, 2, 8, 32 };
	struct fs_model *m = calloc(1, sizeof(*m));
	int step;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(free_space_ctl_init(&m->ctl, BG_START, BG_LEN, SECTOR), 0);
	if (thresh[variant & 3] >= 0) {
		m->ctl.fixed_thresh = true;
		m->ctl.extents_thresh = thresh[variant & 3];
	}
	m->ctl.relink_always = variant & 4;
	m->rand = seed * 0x9e3779b97f4a7c15ULL + 7;
	for (step = 0; step < steps; step++) {
		u64 op = rnd_below(m, 100);
		bool low = m_total(m) < BG_LEN / 3;

		if (op < (low ? 50U : 30U))
			step_add(m);
		else if (op < 50)
			step_remove(m);
		else if (op < 98)
			step_alloc(m);
		else if (op < 99)
			step_clear_window(m);
		else
			step_invalid(m);
		compare_all(m);
	}
	/* with few extents allowed, allocations rarely need memory */
	if (thresh[variant & 3] < 0)
		ck_assert_int_gt(m->nr_enomem, 0);
	ck_assert_int_gt(m->nr_allocs, steps / 10);
	free_space_ctl_release(&m->ctl);
	ck_assert_uint_eq(free_space_total(&m->ctl), 0);
	ck_assert_ptr_null(free_space_first_entry(&m->ctl));
	free(m);
}

START_TEST(test_random_model)
{
	/* 8 variants x 2 seeds */
	run_random(500 + _i, _i % 8, 3000);
}
END_TEST

/*
 * Carving from the largest extent again and again must not move it in
 * either tree while it stays the largest; the plain mode relinks every
 * time and must hand out exactly the same addresses.
 */
START_TEST(test_no_relink)
{
	struct btrfs_free_space_ctl ctl[2];
	u64 got[2], i;
	int mode, k;

	for (mode = 0; mode < 2; mode++) {
		ck_assert_int_eq(free_space_ctl_init(&ctl[mode], BG_START, BG_LEN, SECTOR), 0);
		ctl[mode].relink_always = mode;
		/* extents of 1..100 sectors with one-sector gaps, plus a huge one */
		for (i = 0, k = 1; k <= 100; k++) {
			ck_assert_int_eq(add_free_space(&ctl[mode], addr(i), k * SECTOR), 0);
			i += k + 1;
		}
		ck_assert_int_eq(add_free_space(&ctl[mode], addr(i), 20000 * SECTOR), 0);
		ck_assert_int_eq(ctl[mode].total_bitmaps, 0);
	}
	for (k = 0; k < 1000; k++) {
		for (mode = 0; mode < 2; mode++)
			ck_assert_int_eq(btrfs_find_space_for_alloc(&ctl[mode], 0, 19 * SECTOR,
								    0, &got[mode]), 0);
		ck_assert_uint_eq(got[0], got[1]);
	}
	/* 1000 * 19 sectors leaves the big extent the largest throughout */
	ck_assert_uint_eq(ctl[0].nr_relinks, 0);
	ck_assert_uint_eq(ctl[1].nr_relinks, 1000);
	/* now shrink it below the others: it must move, and stay in order */
	for (mode = 0; mode < 2; mode++)
		ck_assert_int_eq(btrfs_find_space_for_alloc(&ctl[mode], 0, 950 * SECTOR,
							    0, &got[mode]), 0);
	ck_assert_uint_eq(got[0], got[1]);
	ck_assert_uint_gt(ctl[0].nr_relinks, 0);
	for (mode = 0; mode < 2; mode++) {
		check_ctl(&ctl[mode]);
		free_space_ctl_release(&ctl[mode]);
	}
}
END_TEST

/* over the threshold, isolated ranges go to bitmaps, absorbing extents */
START_TEST(test_bitmap_conversion)
{
	struct btrfs_free_space_ctl ctl;
	struct free_space_iter it;
	u64 i, start, len, got;

	ck_assert_int_eq(free_space_ctl_init(&ctl, BG_START, BG_LEN, SECTOR), 0);
	ctl.fixed_thresh = true;
	ctl.extents_thresh = 4;
	for (i = 0; i < 64; i++)
		ck_assert_int_eq(add_free_space(&ctl, addr(2 * i), SECTOR), 0);
	ck_assert_int_eq(ctl.total_bitmaps, 1);
	ck_assert_int_eq(ctl.free_extents, 0);
	ck_assert_uint_eq(free_space_total(&ctl), 64 * SECTOR);
	check_ctl(&ctl);
	/* fill the holes: one merged range, though it lives in a bitmap */
	for (i = 0; i < 63; i++)
		ck_assert_int_eq(add_free_space(&ctl, addr(2 * i + 1), SECTOR), 0);
	free_space_iter_init(&it, &ctl);
	ck_assert(free_space_iter_next(&it, &start, &len));
	ck_assert_uint_eq(start, addr(0));
	ck_assert_uint_eq(len, 127 * SECTOR);
	ck_assert(!free_space_iter_next(&it, &start, &len));
	ck_assert_int_eq(btrfs_find_space_for_alloc(&ctl, 0, 127 * SECTOR, 0, &got), 0);
	ck_assert_uint_eq(got, addr(0));
	ck_assert_int_eq(ctl.total_bitmaps, 0);
	ck_assert_uint_eq(free_space_total(&ctl), 0);
	free_space_ctl_release(&ctl);
	ck_assert_int_eq(free_space_ctl_init(&ctl, BG_START, BG_LEN, 3000), -EINVAL);
	ck_assert_int_eq(free_space_ctl_init(&ctl, BG_START + 1, BG_LEN, SECTOR), -EINVAL);
	ck_assert_int_eq(free_space_ctl_init(&ctl, BG_START, 0, SECTOR), -EINVAL);
}
END_TEST

/*
 * The free space tree's bitmap decoder (word at a time) against a bit by
 * bit model: random lengths (not multiples of 8 or 64), runs of ones and
 * zeros of random lengths around the word size and far beyond it, and
 * random garbage in the bits past the end of the last byte.
 */
START_TEST(test_fst_bitmap_decode)
{
	static u8 bm[40000 / 8 + 8];
	u64 seed = 0x243f6a8885a308d3ULL + (u64)_i * 0x9e3779b97f4a7c15ULL;
	struct range_list got, want;
	u64 nbits, bit, first, i;
	int round;

	for (round = 0; round < 40; round++) {
		u64 mean;
		bool ones = false;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nbits = 1 + (seed >> 33) % 40000;
		mean = 1ULL << ((seed >> 20) % 12);
		memset(bm, 0, sizeof(bm));
		for (bit = 0; bit < nbits;) {
			u64 len;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			len = 1 + (seed >> 33) % (2 * mean);
			for (i = bit; i < bit + len && i < nbits; i++)
				if (ones)
					bm[i / 8] |= (u8)(1U << (i % 8));
			bit += len;
			ones = !ones;
		}
		/* garbage past the end: the decoder must not see it */
		if (nbits % 8)
			bm[nbits / 8] |= (u8)(0xffU << (nbits % 8));
		range_list_init(&got);
		range_list_init(&want);
		btrfs_fst_bitmap_ranges(&got, bm, BG_START, nbits, SECTOR);
		for (bit = 0; bit < nbits;) {
			if (!(bm[bit / 8] & (1U << (bit % 8)))) {
				bit++;
				continue;
			}
			first = bit;
			while (bit < nbits && (bm[bit / 8] & (1U << (bit % 8))))
				bit++;
			range_list_add(&want, BG_START + first * SECTOR, (bit - first) * SECTOR);
		}
		range_list_normalize(&got);
		ck_assert_uint_eq(got.nr, want.nr);
		for (i = 0; i < want.nr; i++) {
			ck_assert_uint_eq(got.r[i].start, want.r[i].start);
			ck_assert_uint_eq(got.r[i].end, want.r[i].end);
		}
		range_list_release(&got);
		range_list_release(&want);
	}
}
END_TEST

Suite *free_space_suite(void)
{
	Suite *s = suite_create("free_space");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_no_relink);
	tcase_add_test(tc, test_bitmap_conversion);
	tcase_add_loop_test(tc, test_random_model, 0, 16);
	tcase_add_loop_test(tc, test_fst_bitmap_decode, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}
