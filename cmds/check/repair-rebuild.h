/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee check --repair --init-csum-tree / --init-extent-tree /
 * --init-uuid-tree: whole trees
 * rebuilt in the first repair transaction, before the per-finding fixes.
 */
#ifndef GHEE_CHECK_REPAIR_REBUILD_H
#define GHEE_CHECK_REPAIR_REBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include "repair.h"

static inline bool repair_rebuild_requested(const struct check_options *o)
{
	return o->init_csum_tree || o->init_extent_tree || o->init_uuid_tree;
}

/* option checks of the rebuild options (message to stderr): true when invalid */
bool repair_rebuild_options_invalid(const struct check_options *o);

/* extra open_ctree flags: a tree being rebuilt may be unreadable */
unsigned int repair_rebuild_open_flags(const struct check_options *o);
/*
 * the tree block cache budget of the writable open (0: the default): a
 * rebuild reads every tree once, so caching all of it buys nothing
 */
size_t repair_rebuild_cache_budget(const struct check_options *o);
/* after such an open: every tree not being rebuilt is readable (-EUCLEAN) */
int repair_rebuild_check_open(struct btrfs_fs_info *fs, const struct check_options *o);

/*
 * Run the requested rebuilds in r->trans (describe them only without a
 * transaction).  On error the caller aborts the transaction: a half-built
 * tree is never committed.  Returns 0, 1 when it changed nothing, -errno.
 */
int repair_rebuild_trees(struct repair_ctx *r);

/* --init-uuid-tree (repair-uuid-tree.c): 0, 1 nothing to do, -errno */
int repair_rebuild_uuid_tree(struct repair_ctx *r);
/*
 * The extent tree rebuilt in r->trans (nothing else may have changed in
 * it yet), its numbers to r->out; with no transaction only the line of
 * the plan.  On error *@refused (may be NULL) tells that nothing changed
 * yet: a tree points where no extent can be (printed why), or the
 * transaction had changes already.
 */
int repair_rebuild_extent_tree(struct repair_ctx *r, bool *refused);

#endif
