// SPDX-License-Identifier: GPL-2.0
/*
 * In-memory free space of one block group: extents and bitmaps in an
 * offset-ordered and a size-ordered rb-tree (see free-space-cache.h for
 * the layout rules).
 *
 * The technique that matters for allocation speed: an entry that shrinks
 * or grows in place is not unlinked and relinked.  Its edges only move
 * inside free space that belonged to it or that no other entry covers, so
 * its place in the offset tree cannot change; in the size tree it only
 * moves when it passes a neighbour, which two comparisons detect.  The
 * common allocation (carve from the largest entry, which stays largest)
 * then touches no tree at all.
 */
#include <errno.h>
#include <stdlib.h>
#include "free-space-cache.h"

/* memory budget for entries and bitmaps, per GiB of block group */
#define FREE_SPACE_BUDGET_PER_GIB	(32U * 1024)
#define SZ_1G				(1ULL << 30)

/* ---- bits -------------------------------------------------------------- */

static inline u64 word_mask(u32 off, u32 cnt)
{
	return (cnt == 64 ? ~0ULL : (1ULL << cnt) - 1) << off;
}

/*
 * Apply @op to bits [bit, bit + n) a word at a time.  The queries
 * (all set? any set?) return their answer, the updates true.
 */
enum bits_op { BITS_CLEAR, BITS_SET, BITS_ALL_SET, BITS_ANY_SET };

static bool bits_range(u64 *map, u32 bit, u32 n, enum bits_op op)
{
	while (n) {
		u32 off = bit % 64, cnt = 64 - off < n ? 64 - off : n;
		u64 mask = word_mask(off, cnt), *w = &map[bit / 64];

		switch (op) {
		case BITS_CLEAR:
			*w &= ~mask;
			break;
		case BITS_SET:
			*w |= mask;
			break;
		case BITS_ALL_SET:
			if ((*w & mask) != mask)
				return false;
			break;
		case BITS_ANY_SET:
			if (*w & mask)
				return true;
			break;
		}
		bit += cnt;
		n -= cnt;
	}
	return op != BITS_ANY_SET;
}

/* the first bit at or after @bit equal to @value, or BITMAP_BITS */
static u32 bits_next(const u64 *map, u32 bit, bool value)
{
	u32 w = bit / 64;
	u64 word;

	if (bit >= BTRFS_FREE_SPACE_BITMAP_BITS)
		return BTRFS_FREE_SPACE_BITMAP_BITS;
	word = (value ? map[w] : ~map[w]) & (~0ULL << (bit % 64));
	while (!word) {
		if (++w == BTRFS_FREE_SPACE_BITMAP_WORDS)
			return BTRFS_FREE_SPACE_BITMAP_BITS;
		word = value ? map[w] : ~map[w];
	}
	return w * 64 + (u32)__builtin_ctzll(word);
}

/* ---- entries and the two trees ---------------------------------------- */

static struct btrfs_free_space *offset_entry(const struct rb_node *node)
{
	return node ? rb_entry(node, struct btrfs_free_space, offset_index) : NULL;
}

static struct btrfs_free_space *bytes_entry(const struct rb_node *node)
{
	return node ? rb_entry(node, struct btrfs_free_space, bytes_index) : NULL;
}

struct btrfs_free_space *free_space_first_entry(const struct btrfs_free_space_ctl *ctl)
{
	return offset_entry(rb_first(&ctl->free_space_offset));
}

struct btrfs_free_space *free_space_next_entry(const struct btrfs_free_space *entry)
{
	return offset_entry(rb_next(&entry->offset_index));
}

/* end of the address span an entry covers */
static u64 entry_end(const struct btrfs_free_space_ctl *ctl,
		     const struct btrfs_free_space *e)
{
	return e->offset + (e->bitmap ? ctl->bitmap_span : e->bytes);
}

static u64 window_start(const struct btrfs_free_space_ctl *ctl, u64 pos)
{
	return ctl->start + (pos - ctl->start) / ctl->bitmap_span * ctl->bitmap_span;
}

static u32 bit_of(const struct btrfs_free_space_ctl *ctl,
		  const struct btrfs_free_space *e, u64 pos)
{
	return (u32)((pos - e->offset) / ctl->sectorsize);
}

/* size-tree order: more bytes first, then lower offset */
static bool size_before(const struct btrfs_free_space *a,
			const struct btrfs_free_space *b)
{
	return a->bytes > b->bytes || (a->bytes == b->bytes && a->offset < b->offset);
}

static void link_offset(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e)
{
	struct rb_node **link = &ctl->free_space_offset.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (e->offset < offset_entry(parent)->offset)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&e->offset_index, parent, link);
	rb_insert_color(&e->offset_index, &ctl->free_space_offset);
}

static void link_bytes(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e)
{
	struct rb_node **link = &ctl->free_space_bytes.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (size_before(e, bytes_entry(parent)))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&e->bytes_index, parent, link);
	rb_insert_color(&e->bytes_index, &ctl->free_space_bytes);
}

static void link_entry(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e)
{
	link_offset(ctl, e);
	link_bytes(ctl, e);
	if (e->bitmap)
		ctl->total_bitmaps++;
	else
		ctl->free_extents++;
}

static void free_entry(struct btrfs_free_space *e)
{
	free(e->bitmap);
	free(e);
}

/*
 * Extents can be counted on while they fit the budget: a fixed number of
 * bytes per GiB of block group, less what the bitmaps (and room for one
 * more) take, and never more than half of it.
 */
static void recalc_thresholds(struct btrfs_free_space_ctl *ctl)
{
	u64 gib = ctl->len / SZ_1G ? ctl->len / SZ_1G : 1;
	u64 budget = FREE_SPACE_BUDGET_PER_GIB * gib;
	u64 bitmap_bytes = (u64)(ctl->total_bitmaps + 1) * BTRFS_FREE_SPACE_BITMAP_BYTES;
	u64 extent_bytes;

	if (ctl->fixed_thresh)
		return;
	extent_bytes = bitmap_bytes < budget ? budget - bitmap_bytes : 0;
	if (extent_bytes > budget / 2)
		extent_bytes = budget / 2;
	ctl->extents_thresh = (int)(extent_bytes / sizeof(struct btrfs_free_space));
}

/* take @e out of both trees and free it */
static void drop_entry(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e)
{
	rb_erase(&e->offset_index, &ctl->free_space_offset);
	rb_erase(&e->bytes_index, &ctl->free_space_bytes);
	if (e->bitmap) {
		ctl->total_bitmaps--;
		recalc_thresholds(ctl);
	} else {
		ctl->free_extents--;
	}
	free_entry(e);
}

/*
 * @e's bytes (and maybe its offset, within its own span) changed.  Put it
 * back in order: in the size tree only if it passed a neighbour; the
 * offset order cannot have changed (see the top of the file).
 */
static void entry_resized(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e)
{
	struct btrfs_free_space *prev, *next;

	if (ctl->relink_always) {
		rb_erase(&e->offset_index, &ctl->free_space_offset);
		rb_erase(&e->bytes_index, &ctl->free_space_bytes);
		link_offset(ctl, e);
		link_bytes(ctl, e);
		ctl->nr_relinks++;
		return;
	}
	/* shrinking (allocation, the hot path) can only pass the next one */
	next = bytes_entry(rb_next(&e->bytes_index));
	if (next && !size_before(e, next))
		goto relink;
	prev = bytes_entry(rb_prev(&e->bytes_index));
	if (prev && !size_before(prev, e))
		goto relink;
	return;
relink:
	rb_erase(&e->bytes_index, &ctl->free_space_bytes);
	link_bytes(ctl, e);
	ctl->nr_relinks++;
}

static struct btrfs_free_space *alloc_entry(struct btrfs_free_space_ctl *ctl,
					    bool bitmap)
{
	struct btrfs_free_space *e;

	if (ctl->fail_alloc_in && --ctl->fail_alloc_in == 0)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e || !bitmap)
		return e;
	e->bitmap = calloc(1, BTRFS_FREE_SPACE_BITMAP_BYTES);
	if (!e->bitmap) {
		free(e);
		return NULL;
	}
	return e;
}

/* the entry with the highest offset <= @pos, NULL if none */
static struct btrfs_free_space *search_offset(const struct btrfs_free_space_ctl *ctl,
					      u64 pos)
{
	struct rb_node *node = ctl->free_space_offset.rb_node;
	struct btrfs_free_space *found = NULL, *e;

	while (node) {
		e = offset_entry(node);
		if (e->offset > pos) {
			node = node->rb_left;
		} else {
			found = e;
			node = node->rb_right;
		}
	}
	return found;
}

/* the bitmap of @pos's window, NULL if that window has none */
static struct btrfs_free_space *find_bitmap(const struct btrfs_free_space_ctl *ctl,
					    u64 pos)
{
	struct btrfs_free_space *e = search_offset(ctl, window_start(ctl, pos));

	if (e && e->bitmap && e->offset == window_start(ctl, pos))
		return e;
	return NULL;
}

int free_space_ctl_init(struct btrfs_free_space_ctl *ctl, u64 bg_start,
			u64 bg_len, u32 sectorsize)
{
	if (!sectorsize || (sectorsize & (sectorsize - 1)) || !bg_len ||
	    bg_start % sectorsize || bg_len % sectorsize ||
	    bg_start + bg_len < bg_start)
		return -EINVAL;
	ctl->free_space_offset = RB_ROOT;
	ctl->free_space_bytes = RB_ROOT;
	ctl->start = bg_start;
	ctl->len = bg_len;
	ctl->free_space = 0;
	ctl->sectorsize = sectorsize;
	ctl->bitmap_span = (u64)sectorsize * BTRFS_FREE_SPACE_BITMAP_BITS;
	ctl->free_extents = 0;
	ctl->total_bitmaps = 0;
	ctl->nr_relinks = 0;
	ctl->relink_always = false;
	ctl->fixed_thresh = false;
	ctl->fail_alloc_in = 0;
	recalc_thresholds(ctl);
	return 0;
}

void free_space_ctl_release(struct btrfs_free_space_ctl *ctl)
{
	struct rb_node *node, *next;

	rb_for_each_postorder_safe(node, next, &ctl->free_space_offset)
		free_entry(offset_entry(node));
	ctl->free_space_offset = RB_ROOT;
	ctl->free_space_bytes = RB_ROOT;
	ctl->free_space = 0;
	ctl->free_extents = 0;
	ctl->total_bitmaps = 0;
	recalc_thresholds(ctl);
}

/* ---- queries ----------------------------------------------------------- */

static bool range_ok(const struct btrfs_free_space_ctl *ctl, u64 offset, u64 bytes)
{
	return bytes && !(offset % ctl->sectorsize) && !(bytes % ctl->sectorsize) &&
	       offset >= ctl->start && offset - ctl->start <= ctl->len &&
	       bytes <= ctl->len - (offset - ctl->start);
}

/* the part of [from, to) inside entry @e's span */
static void clip_to_entry(const struct btrfs_free_space_ctl *ctl,
			  const struct btrfs_free_space *e, u64 *from, u64 *to)
{
	if (*from < e->offset)
		*from = e->offset;
	if (*to > entry_end(ctl, e))
		*to = entry_end(ctl, e);
}

/* does any byte of [offset, end) belong to the free space? */
static bool range_has_free(const struct btrfs_free_space_ctl *ctl, u64 offset, u64 end)
{
	struct btrfs_free_space *e = search_offset(ctl, offset);
	u64 from, to;

	if (!e)
		e = free_space_first_entry(ctl);
	for (; e && e->offset < end; e = free_space_next_entry(e)) {
		from = offset;
		to = end;
		clip_to_entry(ctl, e, &from, &to);
		if (from >= to)
			continue;
		if (!e->bitmap)
			return true;
		if (bits_range(e->bitmap, bit_of(ctl, e, from),
			       (u32)((to - from) / ctl->sectorsize), BITS_ANY_SET))
			return true;
	}
	return false;
}

/* is every byte of [offset, end) free?  @end > @offset */
static bool range_all_free(const struct btrfs_free_space_ctl *ctl, u64 offset, u64 end)
{
	struct btrfs_free_space *e;
	u64 cur = offset, to;

	while (cur < end) {
		e = search_offset(ctl, cur);
		if (!e || entry_end(ctl, e) <= cur)
			return false;
		to = end < entry_end(ctl, e) ? end : entry_end(ctl, e);
		if (e->bitmap &&
		    !bits_range(e->bitmap, bit_of(ctl, e, cur),
				(u32)((to - cur) / ctl->sectorsize), BITS_ALL_SET))
			return false;
		cur = to;
	}
	return true;
}

bool free_space_range_is_free(const struct btrfs_free_space_ctl *ctl,
			      u64 offset, u64 bytes)
{
	return range_ok(ctl, offset, bytes) && range_all_free(ctl, offset, offset + bytes);
}

/* ---- bitmaps ----------------------------------------------------------- */

static void bitmap_add(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e,
		       u64 offset, u64 bytes)
{
	bits_range(e->bitmap, bit_of(ctl, e, offset),
		   (u32)(bytes / ctl->sectorsize), BITS_SET);
	e->bytes += bytes;
	/* runs may have joined: the bound is only known to be the total */
	e->max_extent_size = e->bytes;
	ctl->free_space += bytes;
}

/* clear [offset, offset + bytes) in @e; frees @e when it empties */
static void bitmap_remove(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e,
			  u64 offset, u64 bytes)
{
	bits_range(e->bitmap, bit_of(ctl, e, offset),
		   (u32)(bytes / ctl->sectorsize), BITS_CLEAR);
	e->bytes -= bytes;
	ctl->free_space -= bytes;
	if (!e->bytes) {
		drop_entry(ctl, e);
		return;
	}
	if (e->max_extent_size > e->bytes)
		e->max_extent_size = e->bytes;
	entry_resized(ctl, e);
}

/*
 * Move the part of extent @x inside window [ws, we) into bitmap @bm.
 * @spare is used when @x sticks out on both sides; returns true if so.
 */
static bool absorb_extent(struct btrfs_free_space_ctl *ctl,
			  struct btrfs_free_space *bm, struct btrfs_free_space *x,
			  u64 ws, u64 we, struct btrfs_free_space *spare)
{
	u64 from = x->offset > ws ? x->offset : ws;
	u64 x_end = x->offset + x->bytes, to = x_end < we ? x_end : we;

	ctl->free_space -= to - from;	/* bitmap_add() counts it again */
	bitmap_add(ctl, bm, from, to - from);
	if (x->offset >= ws && x_end <= we) {
		drop_entry(ctl, x);
		return false;
	}
	if (x->offset < ws && x_end > we) {
		spare->offset = we;
		spare->bytes = x_end - we;
		link_entry(ctl, spare);
		x->bytes = ws - x->offset;
		entry_resized(ctl, x);
		return true;
	}
	if (x->offset < ws) {
		x->bytes = ws - x->offset;
	} else {
		x->bytes = x_end - we;
		x->offset = we;
	}
	entry_resized(ctl, x);
	return false;
}

/*
 * Give the window at @ws a bitmap and move the extents inside the window
 * into it.  All memory is taken first, so failure changes nothing.
 */
static struct btrfs_free_space *create_bitmap(struct btrfs_free_space_ctl *ctl, u64 ws)
{
	u64 we = ws + ctl->bitmap_span;
	struct btrfs_free_space *bm, *x, *next, *spare;

	bm = alloc_entry(ctl, true);
	if (!bm)
		return NULL;
	spare = alloc_entry(ctl, false);
	if (!spare) {
		free_entry(bm);
		return NULL;
	}
	bm->offset = ws;
	x = search_offset(ctl, ws);
	if (!x)
		x = free_space_first_entry(ctl);
	for (; x && x->offset < we; x = next) {
		next = free_space_next_entry(x);
		if (entry_end(ctl, x) > ws && absorb_extent(ctl, bm, x, ws, we, spare))
			spare = NULL;
	}
	free(spare);
	link_entry(ctl, bm);
	recalc_thresholds(ctl);
	return bm;
}

/* ---- adding ------------------------------------------------------------ */

/* the extent ending exactly at @pos, if any */
static struct btrfs_free_space *extent_ending_at(const struct btrfs_free_space_ctl *ctl,
						 u64 pos)
{
	struct btrfs_free_space *e;

	if (pos == 0)
		return NULL;
	e = search_offset(ctl, pos - 1);
	if (e && !e->bitmap && e->offset + e->bytes == pos)
		return e;
	return NULL;
}

/* the extent starting exactly at @pos, if any */
static struct btrfs_free_space *extent_starting_at(const struct btrfs_free_space_ctl *ctl,
						   u64 pos)
{
	struct btrfs_free_space *e = search_offset(ctl, pos);

	if (e && !e->bitmap && e->offset == pos)
		return e;
	return NULL;
}

/*
 * Add [offset, offset + bytes), inside one window without a bitmap:
 * grow a touching extent, else a new extent while the budget allows,
 * else a new bitmap for the window.
 */
static int add_outside_bitmaps(struct btrfs_free_space_ctl *ctl, u64 offset, u64 bytes)
{
	struct btrfs_free_space *left = extent_ending_at(ctl, offset);
	struct btrfs_free_space *right = extent_starting_at(ctl, offset + bytes);
	struct btrfs_free_space *e;

	if (left && right) {
		/* right's bytes move to left, so unlinking right keeps the total */
		left->bytes += bytes + right->bytes;
		drop_entry(ctl, right);
		entry_resized(ctl, left);
	} else if (left) {
		left->bytes += bytes;
		entry_resized(ctl, left);
	} else if (right) {
		right->offset = offset;
		right->bytes += bytes;
		entry_resized(ctl, right);
	} else if (ctl->free_extents < ctl->extents_thresh) {
		e = alloc_entry(ctl, false);
		if (!e)
			return -ENOMEM;
		e->offset = offset;
		e->bytes = bytes;
		link_entry(ctl, e);
	} else {
		e = create_bitmap(ctl, window_start(ctl, offset));
		if (!e)
			return -ENOMEM;
		bitmap_add(ctl, e, offset, bytes);
		entry_resized(ctl, e);
		return 0;
	}
	ctl->free_space += bytes;
	return 0;
}

int add_free_space(struct btrfs_free_space_ctl *ctl, u64 offset, u64 bytes)
{
	u64 end = offset + bytes, cur, to;
	struct btrfs_free_space *bm;
	int ret;

	if (!range_ok(ctl, offset, bytes))
		return -EINVAL;
	if (range_has_free(ctl, offset, end))
		return -EEXIST;
	/* one window at a time: each goes to its bitmap or to extents */
	for (cur = offset; cur < end; cur = to) {
		to = window_start(ctl, cur) + ctl->bitmap_span;
		if (to > end)
			to = end;
		bm = find_bitmap(ctl, cur);
		if (bm) {
			bitmap_add(ctl, bm, cur, to - cur);
			entry_resized(ctl, bm);
			continue;
		}
		ret = add_outside_bitmaps(ctl, cur, to - cur);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- removing ---------------------------------------------------------- */

/*
 * Take [from, to) out of extent @e, which holds all of it.  Only a cut
 * from the middle needs memory, and it is taken before any change.
 */
static int extent_remove(struct btrfs_free_space_ctl *ctl, struct btrfs_free_space *e,
			 u64 from, u64 to)
{
	u64 e_end = e->offset + e->bytes;
	struct btrfs_free_space *tail;

	if (from > e->offset && to < e_end) {
		tail = alloc_entry(ctl, false);
		if (!tail)
			return -ENOMEM;
		tail->offset = to;
		tail->bytes = e_end - to;
		link_entry(ctl, tail);
	}
	ctl->free_space -= to - from;
	if (from == e->offset && to == e_end) {
		drop_entry(ctl, e);
		return 0;
	}
	if (from == e->offset) {
		e->offset = to;
		e->bytes = e_end - to;
	} else {
		e->bytes = from - e->offset;
	}
	entry_resized(ctl, e);
	return 0;
}

int remove_free_space(struct btrfs_free_space_ctl *ctl, u64 offset, u64 bytes)
{
	u64 end = offset + bytes, cur, to;
	struct btrfs_free_space *e;
	int ret;

	if (!range_ok(ctl, offset, bytes))
		return -EINVAL;
	if (!range_all_free(ctl, offset, end))
		return -ENOENT;
	/*
	 * Only an extent holding the whole range can need memory (to keep
	 * both its ends); then it is the only entry touched, so a failure
	 * leaves everything as it was.
	 */
	for (cur = offset; cur < end; cur = to) {
		e = search_offset(ctl, cur);
		to = entry_end(ctl, e) < end ? entry_end(ctl, e) : end;
		if (e->bitmap) {
			bitmap_remove(ctl, e, cur, to - cur);
			continue;
		}
		ret = extent_remove(ctl, e, cur, to);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- allocation -------------------------------------------------------- */

static u64 round_up_to(u64 x, u64 align)
{
	u64 rem = x % align;

	return rem ? x + (align - rem) : x;
}

/*
 * The lowest start >= @from, a multiple of @align, of @bytes free bytes
 * inside bitmap @e.  A complete scan that finds nothing records the
 * longest run, so the next request for more can skip the bitmap.
 */
static bool bitmap_fit(const struct btrfs_free_space_ctl *ctl,
		       struct btrfs_free_space *e, u64 from, u64 bytes,
		       u64 align, u64 *pos)
{
	u32 bit = from > e->offset ? bit_of(ctl, e, from) : 0;
	u64 run_start, run_end, start, longest = 0;
	u32 set, clear;

	if (e->max_extent_size < bytes)
		return false;
	while (bit < BTRFS_FREE_SPACE_BITMAP_BITS) {
		set = bits_next(e->bitmap, bit, true);
		if (set >= BTRFS_FREE_SPACE_BITMAP_BITS)
			break;
		clear = bits_next(e->bitmap, set, false);
		run_start = e->offset + (u64)set * ctl->sectorsize;
		run_end = e->offset + (u64)clear * ctl->sectorsize;
		if (run_end - run_start > longest)
			longest = run_end - run_start;
		start = round_up_to(run_start > from ? run_start : from, align);
		if (start < run_end && run_end - start >= bytes) {
			*pos = start;
			return true;
		}
		bit = clear;
	}
	if (from <= e->offset)
		e->max_extent_size = longest;
	return false;
}

/* can entry @e give @bytes at a multiple of @align at or after @from? */
static bool entry_fit(const struct btrfs_free_space_ctl *ctl,
		      struct btrfs_free_space *e, u64 from, u64 bytes,
		      u64 align, u64 *pos)
{
	u64 start, end;

	if (e->bitmap)
		return bitmap_fit(ctl, e, from, bytes, align, pos);
	end = e->offset + e->bytes;
	start = round_up_to(from > e->offset ? from : e->offset, align);
	if (start >= end || end - start < bytes)
		return false;
	*pos = start;
	return true;
}

/* first fit in offset order, starting with the entry holding @hint */
static struct btrfs_free_space *search_from_hint(struct btrfs_free_space_ctl *ctl,
						 u64 hint, u64 bytes, u64 align,
						 u64 *pos)
{
	struct btrfs_free_space *e = search_offset(ctl, hint);

	if (!e)
		e = free_space_first_entry(ctl);
	for (; e; e = free_space_next_entry(e)) {
		if (entry_fit(ctl, e, hint, bytes, align, pos))
			return e;
	}
	return NULL;
}

/* largest first: stop as soon as the entries get too small */
static struct btrfs_free_space *search_by_size(struct btrfs_free_space_ctl *ctl,
					       u64 bytes, u64 align, u64 *pos)
{
	struct rb_node *node;
	struct btrfs_free_space *e;

	for (node = rb_first(&ctl->free_space_bytes); node; node = rb_next(node)) {
		e = bytes_entry(node);
		if (e->bytes < bytes)
			break;
		if (entry_fit(ctl, e, 0, bytes, align, pos))
			return e;
	}
	return NULL;
}

int btrfs_find_space_for_alloc(struct btrfs_free_space_ctl *ctl, u64 hint,
			       u64 bytes, u64 align, u64 *ret_offset)
{
	struct btrfs_free_space *e = NULL, *largest;
	u64 pos = 0;
	int ret;

	if (!align)
		align = ctl->sectorsize;
	if (!bytes || bytes % ctl->sectorsize || align % ctl->sectorsize)
		return -EINVAL;
	largest = bytes_entry(rb_first(&ctl->free_space_bytes));
	if (!largest || largest->bytes < bytes)
		return -ENOSPC;
	if (hint >= ctl->start && hint - ctl->start < ctl->len)
		e = search_from_hint(ctl, hint, bytes, align, &pos);
	if (!e)
		e = search_by_size(ctl, bytes, align, &pos);
	if (!e)
		return -ENOSPC;
	if (e->bitmap) {
		bitmap_remove(ctl, e, pos, bytes);
		ret = 0;
	} else {
		ret = extent_remove(ctl, e, pos, pos + bytes);
	}
	if (!ret)
		*ret_offset = pos;
	return ret;
}

/* ---- iteration --------------------------------------------------------- */

void free_space_iter_init(struct free_space_iter *it,
			  const struct btrfs_free_space_ctl *ctl)
{
	it->ctl = ctl;
	it->entry = free_space_first_entry(ctl);
	it->bit = 0;
	it->pending = false;
}

/* the next run of free bytes as stored: one extent, or one bitmap run */
static bool iter_raw_next(struct free_space_iter *it, u64 *start, u64 *end)
{
	const struct btrfs_free_space *e;
	u32 set, clear;

	while ((e = it->entry)) {
		if (!e->bitmap) {
			*start = e->offset;
			*end = e->offset + e->bytes;
			it->entry = free_space_next_entry(e);
			return true;
		}
		set = bits_next(e->bitmap, it->bit, true);
		if (set >= BTRFS_FREE_SPACE_BITMAP_BITS) {
			it->entry = free_space_next_entry(e);
			it->bit = 0;
			continue;
		}
		clear = bits_next(e->bitmap, set, false);
		*start = e->offset + (u64)set * it->ctl->sectorsize;
		*end = e->offset + (u64)clear * it->ctl->sectorsize;
		it->bit = clear;
		return true;
	}
	return false;
}

bool free_space_iter_next(struct free_space_iter *it, u64 *start, u64 *len)
{
	u64 s, e, ns, ne;

	if (it->pending) {
		s = it->pending_start;
		e = it->pending_end;
		it->pending = false;
	} else if (!iter_raw_next(it, &s, &e)) {
		return false;
	}
	while (iter_raw_next(it, &ns, &ne)) {
		if (ns != e) {
			it->pending = true;
			it->pending_start = ns;
			it->pending_end = ne;
			break;
		}
		e = ne;
	}
	*start = s;
	*len = e - s;
	return true;
}
