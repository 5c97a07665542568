/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The references the trees make, summed per extent.
 *
 * Phase 3 walks every tree once and, for every pointer to a tree block and
 * every file extent item, adds the reference it implies to the entry of
 * the extent it points to.  An entry does not keep the references
 * themselves, only their number and an order-independent sum of a 64-bit
 * mix of each reference's identity (type, root or parent, inode, offset,
 * length) times its count.  Phase 5 computes the same sum from the
 * back references stored in the extent tree: equal sums mean equal
 * reference sets with overwhelming probability, and only the (rare)
 * extents that differ are looked at again in detail.
 *
 * 24 bytes per extent, in one open-addressing table at most 3/4 full.
 */
#ifndef GHEE_CHECK_EXTENT_TALLY_H
#define GHEE_CHECK_EXTENT_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format.h"

/* what the walk learnt about one extent */
#define TALLY_TREE		(1U << 0)	/* pointed to as a tree block */
#define TALLY_DATA		(1U << 1)	/* pointed to by a file extent */
#define TALLY_VISITED		(1U << 2)	/* the tree block was walked */
#define TALLY_MATCHED		(1U << 3)	/* phase 5 found its extent item */
#define TALLY_LEVEL_MIXED	(1U << 4)	/* pointed to with different levels */
#define TALLY_MARK		(1U << 5)	/* free for a later pass */

struct tally_entry {
	u64 bytenr;
	u64 sum;	/* sum of ident * count over the references */
	u32 count;	/* number of references */
	u8 level;	/* tree blocks: the level the parent pointer implies */
	u8 flags;	/* TALLY_* */
	u16 unused;
};

struct extent_tally;

struct extent_tally *tally_create(void);
void tally_destroy(struct extent_tally *tally);

/* the entry of @bytenr, NULL if none */
struct tally_entry *tally_lookup(struct extent_tally *tally, u64 bytenr);
/*
 * The entry of @bytenr, created empty if needed; NULL when out of memory.
 * Creating an entry may move the others: pointers returned earlier are
 * invalid after this call.
 */
struct tally_entry *tally_insert(struct extent_tally *tally, u64 bytenr);
size_t tally_count(const struct extent_tally *tally);
/* make room for @nr entries at once (a hint: 0 on failure too) */
void tally_reserve(struct extent_tally *tally, size_t nr);
/* bytes the table uses */
size_t tally_memory(const struct extent_tally *tally);

/* the next entry from *pos on (start with *pos = 0), NULL at the end */
struct tally_entry *tally_next(struct extent_tally *tally, size_t *pos);

/*
 * The identity of one reference: @type is the back reference key type
 * (BTRFS_TREE_BLOCK_REF_KEY, BTRFS_SHARED_BLOCK_REF_KEY,
 * BTRFS_EXTENT_DATA_REF_KEY, BTRFS_SHARED_DATA_REF_KEY), @a the root or
 * the parent block, @b and @c the inode and offset of keyed data
 * references (0 otherwise), @len the extent length for data (0 for tree
 * blocks).
 */
u64 tally_ref_ident(u8 type, u64 a, u64 b, u64 c, u64 len);

static inline void tally_entry_add(struct tally_entry *e, u64 ident, u32 count)
{
	e->sum += ident * count;
	e->count += count;
}

#endif
