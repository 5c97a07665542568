/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extent-io trees: which byte ranges carry which flag bits.
 *
 * The tree holds records [start, end] (inclusive end) with a non-zero set
 * of bits.  Records never overlap, and two records that touch and carry
 * the same bits are always merged into one, so the record list is the
 * unique shortest description of "bits per byte".  Transactions use it
 * for dirty tree blocks, the extent allocator for pinned and pending-free
 * ranges.
 *
 * Updates that need a new record can fail with -ENOMEM.  The tree stays
 * valid (sorted, merged) and the update is then applied to a prefix of
 * the range only; callers treat the whole update as failed.
 */
#ifndef GHEE_EXTENT_IO_TREE_H
#define GHEE_EXTENT_IO_TREE_H

#include <stdbool.h>
#include "format.h"
#include "rbtree.h"

/* bits in common use; users may define more in the same u32 */
#define EXTENT_DIRTY		(1U << 0)
#define EXTENT_UPTODATE		(1U << 1)
#define EXTENT_LOCKED		(1U << 2)
#define EXTENT_PINNED		(1U << 3)

struct extent_state {
	struct rb_node rb;
	u64 start;
	u64 end;		/* inclusive */
	u32 bits;		/* never 0 while in a tree */
};

struct extent_io_tree {
	struct rb_root root;
	u64 nr_states;
	/* freed records kept for reuse, linked through rb.rb_right */
	struct extent_state *cache;
	unsigned int nr_cached;

	/*
	 * Knobs for benchmarks and tests only; extent_io_tree_init() clears
	 * them.  trim_disabled: clear a sticking-out record by split+delete
	 * instead of trimming it.  premerge_disabled: fill a gap with a new
	 * record and merge afterwards instead of growing a neighbour with the
	 * same bits.  fail_alloc_in: the Nth record allocation from now fails
	 * (0: never).
	 */
	bool trim_disabled;
	bool premerge_disabled;
	unsigned int fail_alloc_in;
};

void extent_io_tree_init(struct extent_io_tree *tree);
/* free every record; the tree is empty and usable afterwards */
void extent_io_tree_release(struct extent_io_tree *tree);

static inline bool extent_io_tree_empty(const struct extent_io_tree *tree)
{
	return RB_EMPTY_ROOT(&tree->root);
}

/* add @bits to every byte of [start, end]: 0, -EINVAL or -ENOMEM */
int set_extent_bits(struct extent_io_tree *tree, u64 start, u64 end, u32 bits);
/* remove @bits from every byte of [start, end]: 0, -EINVAL or -ENOMEM */
int clear_extent_bits(struct extent_io_tree *tree, u64 start, u64 end, u32 bits);

/*
 * @all: does every byte of [start, end] carry every one of @bits?
 * !@all: does some byte of [start, end] carry any of @bits?
 * False for an empty @bits or start > end.
 */
bool test_range_bit(const struct extent_io_tree *tree, u64 start, u64 end,
		    u32 bits, bool all);

/*
 * The first byte at or after @start carrying any of @bits, and the end of
 * the run of contiguous bytes from there that each carry any of @bits
 * (spanning records with different bits).  0 when found, 1 when not.
 */
int find_first_extent_bit(const struct extent_io_tree *tree, u64 start,
			  u32 bits, u64 *found_start, u64 *found_end);

/* iteration over records in address order */
struct extent_state *extent_io_tree_first(const struct extent_io_tree *tree);
struct extent_state *extent_state_next(const struct extent_state *state);
/* the first record ending at or after @pos, NULL if none */
struct extent_state *extent_io_tree_search(const struct extent_io_tree *tree,
					   u64 pos);

#define extent_io_tree_for_each(state, tree)				\
	for (state = extent_io_tree_first(tree); state;			\
	     state = extent_state_next(state))

#endif
