// SPDX-License-Identifier: GPL-2.0
/*
 * The key guard of a repair pass.  The tree walk of the check gives each
 * block it could not use (TREE_BLOCK_UNREADABLE, TREE_BLOCK_INVALID) the
 * range of keys its tree may hold in it: the range its parent gives it,
 * widened to its own first and last keys when they can be read.  While
 * the finding stands (its action did not fix it in this pass), the engine
 * asks the guard about every key an action inserts or gives an item, and
 * a key in such a range is refused before anything is written.
 *
 * A block of a subvolume tree may be shared with snapshots, though the
 * walk reports it for the first tree that reaches it: another subvolume
 * tree is asked whether it points to the block too (by address, from its
 * root; a node that cannot be read on the way counts as yes).
 */
#include <errno.h>
#include <stdlib.h>
#include "repair-guard.h"
#include "repair-place.h"
#include "array.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/accessors.h"

struct repair_guard_reach {
	u64 tree;
	u64 block;
	bool reaches;
};

/* a block whose items no search of this pass sees */
static bool unusable_block(const struct repair_item *it)
{
	if (it->code != PR_TREE_BLOCK_UNREADABLE && it->code != PR_TREE_BLOCK_INVALID)
		return false;
	if (!it->pctx.has_range)
		return false;
	/* an action of this pass made it readable again */
	return it->status != REPAIR_FIXED && it->status != REPAIR_PLANNED;
}

static bool in_range(const struct problem_ctx *p, const struct btrfs_key *key)
{
	if (btrfs_comp_cpu_keys(key, &p->range_lo) < 0)
		return false;
	return !p->has_range_hi || btrfs_comp_cpu_keys(key, &p->range_hi) < 0;
}

static bool tree_reaches(struct repair_ctx *r, struct btrfs_root *root,
			 const struct problem_ctx *p)
{
	u64 tree = root->root_key.objectid;
	struct block_place pl;
	bool reaches;
	size_t i;

	if (tree == p->root)
		return true;
	if (!btrfs_is_subvol_tree(tree) || !btrfs_is_subvol_tree(p->root))
		return false;
	for (i = 0; i < r->nr_reach; i++) {
		if (r->reach[i].tree == tree && r->reach[i].block == p->block)
			return r->reach[i].reaches;
	}
	reaches = root->node->start == p->block ||
		  repair_find_place(root, p->block, &pl) <= 0;
	/* without memory the answer is only not kept */
	if (!ARRAY_RESERVE(r->reach, r->alloc_reach, r->nr_reach + 1, 8))
		r->reach[r->nr_reach++] = (struct repair_guard_reach){ tree, p->block, reaches };
	return reaches;
}

int repair_key_guard(void *data, struct btrfs_root *root, const struct btrfs_key *key)
{
	struct repair_ctx *r = data;
	char ks[96];
	size_t i;

	for (i = 0; r->list && i < r->list->nr; i++) {
		const struct repair_item *it = &r->list->v[i];

		if (!unusable_block(it) || !in_range(&it->pctx, key) ||
		    !tree_reaches(r, root, &it->pctx))
			continue;
		repair_key_str(key, ks, sizeof(ks));
		repair_why(r, "key %s lies in the range of unreadable block %llu", ks,
			   (unsigned long long)it->pctx.block);
		return -EUCLEAN;
	}
	return 0;
}

void repair_guard_release(struct repair_ctx *r)
{
	free(r->reach);
	r->reach = NULL;
	r->nr_reach = r->alloc_reach = 0;
}
