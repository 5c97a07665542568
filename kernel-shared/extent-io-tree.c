// SPDX-License-Identifier: GPL-2.0
/*
 * Extent-io trees: non-overlapping [start, end] records with bits, kept
 * in an rb-tree by address and merged with equal neighbours.
 *
 * Two techniques keep updates cheap:
 *
 * - Trim, don't split+delete.  When a clear takes every bit off a record
 *   that sticks out of the cleared range, the record's start or end is
 *   moved in place.  Records never overlap, so moving an edge within the
 *   record's own old span cannot change its position in the tree: no
 *   allocation, no insert, no erase.
 *
 * - Merge before insert.  When a set fills a gap that touches a record
 *   with exactly the new bits, that record grows over the gap instead of
 *   a new record being inserted and then merged away.
 *
 * New records that belong right beside an existing one (splits, gaps)
 * are linked with rb_insert_after/before, without key comparisons.
 */
#include <errno.h>
#include <stdlib.h>
#include "extent-io-tree.h"

/* freed records kept per tree for reuse: bounded, and only a speed-up */
#define EXTENT_STATE_CACHE_MAX	16

static struct extent_state *to_state(const struct rb_node *node)
{
	return node ? rb_entry(node, struct extent_state, rb) : NULL;
}

static struct extent_state *alloc_state(struct extent_io_tree *tree)
{
	struct extent_state *st;

	if (tree->fail_alloc_in && --tree->fail_alloc_in == 0)
		return NULL;
	st = tree->cache;
	if (st) {
		tree->cache = to_state(st->rb.rb_right);
		tree->nr_cached--;
		return st;
	}
	return malloc(sizeof(*st));
}

static void free_state(struct extent_io_tree *tree, struct extent_state *st)
{
	if (tree->nr_cached >= EXTENT_STATE_CACHE_MAX) {
		free(st);
		return;
	}
	st->rb.rb_right = tree->cache ? &tree->cache->rb : NULL;
	tree->cache = st;
	tree->nr_cached++;
}

static void unlink_state(struct extent_io_tree *tree, struct extent_state *st)
{
	rb_erase(&st->rb, &tree->root);
	tree->nr_states--;
	free_state(tree, st);
}

void extent_io_tree_init(struct extent_io_tree *tree)
{
	tree->root = RB_ROOT;
	tree->nr_states = 0;
	tree->cache = NULL;
	tree->nr_cached = 0;
	tree->trim_disabled = false;
	tree->premerge_disabled = false;
	tree->fail_alloc_in = 0;
}

void extent_io_tree_release(struct extent_io_tree *tree)
{
	struct rb_node *node, *next;
	struct extent_state *st;

	rb_for_each_postorder_safe(node, next, &tree->root)
		free(to_state(node));
	tree->root = RB_ROOT;
	tree->nr_states = 0;
	while ((st = tree->cache)) {
		tree->cache = to_state(st->rb.rb_right);
		free(st);
	}
	tree->nr_cached = 0;
}

struct extent_state *extent_io_tree_first(const struct extent_io_tree *tree)
{
	return to_state(rb_first(&tree->root));
}

struct extent_state *extent_state_next(const struct extent_state *state)
{
	return to_state(rb_next(&state->rb));
}

static struct extent_state *prev_state(const struct extent_state *state)
{
	return to_state(rb_prev(&state->rb));
}

struct extent_state *extent_io_tree_search(const struct extent_io_tree *tree,
					   u64 pos)
{
	struct rb_node *node = tree->root.rb_node;
	struct extent_state *found = NULL, *st;

	while (node) {
		st = to_state(node);
		if (st->end < pos) {
			node = node->rb_right;
		} else {
			found = st;
			if (st->start <= pos)
				break;
			node = node->rb_left;
		}
	}
	return found;
}

/* two records that touch and carry the same bits must become one */
static bool mergeable(const struct extent_state *a, const struct extent_state *b)
{
	return a->end + 1 == b->start && a->bits == b->bits;
}

/* absorb the neighbours of @st that it must merge with; returns @st */
static struct extent_state *merge_state(struct extent_io_tree *tree,
					struct extent_state *st)
{
	struct extent_state *other;

	other = prev_state(st);
	if (other && mergeable(other, st)) {
		st->start = other->start;
		unlink_state(tree, other);
	}
	other = extent_state_next(st);
	if (other && mergeable(st, other)) {
		st->end = other->end;
		unlink_state(tree, other);
	}
	return st;
}

/*
 * Cut @st in two before @pos (st->start < pos <= st->end).  @st keeps the
 * lower part; the new record, holding [pos, old end], is returned.
 */
static struct extent_state *split_state(struct extent_io_tree *tree,
					struct extent_state *st, u64 pos)
{
	struct extent_state *upper = alloc_state(tree);

	if (!upper)
		return NULL;
	upper->start = pos;
	upper->end = st->end;
	upper->bits = st->bits;
	st->end = pos - 1;
	rb_insert_after(&st->rb, &upper->rb, &tree->root);
	tree->nr_states++;
	return upper;
}

/* link @st, which belongs right before @next (NULL: after everything) */
static void insert_state_before(struct extent_io_tree *tree,
				struct extent_state *st,
				struct extent_state *next)
{
	struct rb_node *last;

	if (next) {
		rb_insert_before(&next->rb, &st->rb, &tree->root);
	} else if ((last = rb_last(&tree->root))) {
		rb_insert_after(last, &st->rb, &tree->root);
	} else {
		rb_link_node(&st->rb, NULL, &tree->root.rb_node);
		rb_insert_color(&st->rb, &tree->root);
	}
	tree->nr_states++;
}

/*
 * Give the bytes from @cur up to @end or up to @next (the first record
 * after @cur, may be NULL), whichever comes first, exactly @bits.
 * Returns the record now covering @cur, NULL on -ENOMEM.
 */
static struct extent_state *fill_gap(struct extent_io_tree *tree, u64 cur,
				     u64 end, u32 bits, struct extent_state *next)
{
	u64 gap_end = (next && next->start - 1 < end) ? next->start - 1 : end;
	struct extent_state *prev, *st;

	if (!tree->premerge_disabled) {
		prev = next ? prev_state(next) : to_state(rb_last(&tree->root));
		if (prev && prev->end + 1 == cur && prev->bits == bits) {
			/* prev was merged already: only @next can join now */
			prev->end = gap_end;
			if (next && mergeable(prev, next)) {
				prev->end = next->end;
				unlink_state(tree, next);
			}
			return prev;
		}
		if (next && next->start == gap_end + 1 && next->bits == bits) {
			next->start = cur;
			return next;
		}
	}
	st = alloc_state(tree);
	if (!st)
		return NULL;
	st->start = cur;
	st->end = gap_end;
	st->bits = bits;
	insert_state_before(tree, st, next);
	return merge_state(tree, st);
}

/*
 * Add @bits to the part of @st from @cur (inside @st) up to @end.
 * Returns the record now covering @cur, NULL on -ENOMEM.
 */
static struct extent_state *set_bits_in(struct extent_io_tree *tree,
					struct extent_state *st, u64 cur,
					u64 end, u32 bits)
{
	if (st->start < cur) {
		st = split_state(tree, st, cur);
		if (!st)
			return NULL;
	}
	if (st->end > end && !split_state(tree, st, end + 1)) {
		/* undo the first cut so equal neighbours stay merged */
		merge_state(tree, st);
		return NULL;
	}
	st->bits |= bits;
	return merge_state(tree, st);
}

int set_extent_bits(struct extent_io_tree *tree, u64 start, u64 end, u32 bits)
{
	struct extent_state *st;
	u64 cur = start;

	if (start > end)
		return -EINVAL;
	if (!bits)
		return 0;
	st = extent_io_tree_search(tree, start);
	for (;;) {
		if (!st || st->start > cur)
			st = fill_gap(tree, cur, end, bits, st);
		else if ((st->bits & bits) != bits)
			st = set_bits_in(tree, st, cur, end, bits);
		if (!st)
			return -ENOMEM;
		/* @st covers @cur now */
		if (st->end >= end)
			return 0;
		cur = st->end + 1;
		st = extent_state_next(st);
	}
}

/*
 * Take every bit off the part of @st inside [start, end] by moving its
 * edges.  Returns the record to continue the walk from; sets @err on
 * -ENOMEM (only when the range lies strictly inside @st).
 */
static struct extent_state *trim_state(struct extent_io_tree *tree,
				       struct extent_state *st, u64 start,
				       u64 end, int *err)
{
	struct extent_state *next, *upper;

	if (st->start < start && st->end > end) {
		/* the range is inside the record: one new record is needed */
		upper = alloc_state(tree);
		if (!upper) {
			*err = -ENOMEM;
			return NULL;
		}
		upper->start = end + 1;
		upper->end = st->end;
		upper->bits = st->bits;
		st->end = start - 1;
		rb_insert_after(&st->rb, &upper->rb, &tree->root);
		tree->nr_states++;
		return upper;
	}
	if (st->start < start) {
		st->end = start - 1;
		return extent_state_next(st);
	}
	if (st->end > end) {
		st->start = end + 1;
		return st;
	}
	next = extent_state_next(st);
	unlink_state(tree, st);
	return next;
}

/*
 * Remove @bits from the part of @st inside [start, end], splitting @st
 * where it sticks out.  Returns the record to continue the walk from;
 * sets @err on -ENOMEM.
 */
static struct extent_state *clear_bits_in(struct extent_io_tree *tree,
					  struct extent_state *st, u64 start,
					  u64 end, u32 bits, int *err)
{
	u32 left = st->bits & ~bits;
	struct extent_state *next;

	if (!left && !tree->trim_disabled)
		return trim_state(tree, st, start, end, err);
	if (st->start < start) {
		st = split_state(tree, st, start);
		if (!st)
			goto out_nomem;
	}
	if (st->end > end && !split_state(tree, st, end + 1)) {
		merge_state(tree, st);
		goto out_nomem;
	}
	if (!left) {
		next = extent_state_next(st);
		unlink_state(tree, st);
		return next;
	}
	st->bits = left;
	/* neighbours ahead that merge have none of @bits: nothing skipped */
	st = merge_state(tree, st);
	return extent_state_next(st);

out_nomem:
	*err = -ENOMEM;
	return NULL;
}

int clear_extent_bits(struct extent_io_tree *tree, u64 start, u64 end, u32 bits)
{
	struct extent_state *st;
	int err = 0;

	if (start > end)
		return -EINVAL;
	if (!bits)
		return 0;
	st = extent_io_tree_search(tree, start);
	while (st && st->start <= end) {
		if (st->bits & bits)
			st = clear_bits_in(tree, st, start, end, bits, &err);
		else
			st = extent_state_next(st);
		if (err)
			return err;
	}
	return 0;
}

bool test_range_bit(const struct extent_io_tree *tree, u64 start, u64 end,
		    u32 bits, bool all)
{
	const struct extent_state *st;
	u64 cur = start;

	if (start > end || !bits)
		return false;
	st = extent_io_tree_search(tree, start);
	if (!all) {
		for (; st && st->start <= end; st = extent_state_next(st)) {
			if (st->bits & bits)
				return true;
		}
		return false;
	}
	/* every byte: walk contiguous records, stop at a gap or a miss */
	for (; st && st->start <= cur; st = extent_state_next(st)) {
		if ((st->bits & bits) != bits)
			return false;
		if (st->end >= end)
			return true;
		cur = st->end + 1;
	}
	return false;
}

int find_first_extent_bit(const struct extent_io_tree *tree, u64 start,
			  u32 bits, u64 *found_start, u64 *found_end)
{
	const struct extent_state *st;
	u64 end;

	st = extent_io_tree_search(tree, start);
	while (st && !(st->bits & bits))
		st = extent_state_next(st);
	if (!st)
		return 1;
	*found_start = st->start > start ? st->start : start;
	end = st->end;
	for (st = extent_state_next(st);
	     st && st->start == end + 1 && (st->bits & bits);
	     st = extent_state_next(st))
		end = st->end;
	*found_end = end;
	return 0;
}
