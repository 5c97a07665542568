// SPDX-License-Identifier: GPL-2.0
/*
 * The rebuild options of ghee check --repair: --init-csum-tree builds a
 * new csum tree from the data (kernel-shared/rebuild-csum-tree.c) in the
 * first repair transaction; the per-finding repairs and the full re-check
 * follow as for any repair.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "repair-rebuild.h"
#include "kernel-shared/rebuild-csum-tree.h"
#include "kernel-shared/rebuild-extent-tree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/transaction.h"

#define REBUILD_CACHE_BUDGET	(2U << 20)

bool repair_rebuild_options_invalid(const struct check_options *o)
{
	if (!repair_rebuild_requested(o))
		return false;
	if (!o->repair) {
		fprintf(stderr, "ghee check: --init-csum-tree, --init-extent-tree and --init-uuid-tree need --repair (or -y)\n");
		return true;
	}
	return false;
}

unsigned int repair_rebuild_open_flags(const struct check_options *o)
{
	return repair_rebuild_requested(o) ? OPEN_CTREE_PARTIAL : 0;
}

size_t repair_rebuild_cache_budget(const struct check_options *o)
{
	return repair_rebuild_requested(o) ? REBUILD_CACHE_BUDGET : 0;
}

int repair_rebuild_check_open(struct btrfs_fs_info *fs, const struct check_options *o)
{
	const struct {
		struct btrfs_root *root;
		const char *name;
		bool required;
	} roots[] = {
		{ &fs->extent_root, "extent", !o->init_extent_tree },
		{ &fs->dev_root, "device", true },
		{ &fs->fs_root, "filesystem", true },
		{ &fs->csum_root, "csum", !o->init_csum_tree },
		{ &fs->free_space_root, "free space",
		  btrfs_fs_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) },
		{ &fs->block_group_root, "block group",
		  btrfs_fs_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE) },
	};
	size_t i;

	if (!repair_rebuild_open_flags(o))
		return 0;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (roots[i].required && !roots[i].root->node) {
			fprintf(stderr, "ERROR: cannot open for writing: the %s tree cannot be read\n",
				roots[i].name);
			return -EUCLEAN;
		}
	}
	if (o->init_extent_tree && !fs->extent_root.has_root_item) {
		fprintf(stderr, "ERROR: cannot rebuild the extent tree: it has no root item\n");
		return -EUCLEAN;
	}
	/* btrfs_enable_writes() must not judge the tree being replaced */
	fs->rebuilding_extent_tree = o->init_extent_tree;
	if (o->init_csum_tree && !fs->csum_root.has_root_item) {
		fprintf(stderr, "ERROR: cannot rebuild the csum tree: it has no root item\n");
		return -EUCLEAN;
	}
	return 0;
}

static void print_csum_stats(FILE *out, const struct btrfs_csum_rebuild_stats *st)
{
	fprintf(out, "  rebuilt the csum tree: %llu sectors in %llu items from %llu data ranges of %llu trees\n",
		(unsigned long long)st->sectors, (unsigned long long)st->items,
		(unsigned long long)st->ranges, (unsigned long long)st->fs_trees);
	fprintf(out, "    %llu as before, %llu added, %llu recomputed (old sum wrong on every copy), %llu kept (first copy damaged), %llu unreadable\n",
		(unsigned long long)st->same, (unsigned long long)st->added,
		(unsigned long long)st->changed, (unsigned long long)st->kept_old,
		(unsigned long long)st->unreadable);
	fprintf(out, "    old tree: %llu blocks freed, %llu unreadable\n",
		(unsigned long long)st->old_blocks, (unsigned long long)st->old_lost);
}

static int rebuild_csum(struct repair_ctx *r)
{
	struct btrfs_csum_rebuild_stats st;
	int ret;

	if (!r->trans) {
		if (r->out)
			fprintf(r->out, "  would rebuild the csum tree from the data of every file extent\n");
		return 0;
	}
	ret = btrfs_rebuild_csum_tree(r->trans, 0, &st);
	if (ret) {
		fprintf(stderr, "ERROR: rebuilding the csum tree failed: %s\n", strerror(-ret));
		return ret;
	}
	if (r->out)
		print_csum_stats(r->out, &st);
	if (st.unreadable)
		fprintf(stderr, "WARNING: %llu data sectors could be read from no copy\n",
			(unsigned long long)st.unreadable);
	return 0;
}

int repair_rebuild_extent_tree(struct repair_ctx *r, bool *refused)
{
	struct btrfs_extent_rebuild_stats st;
	int ret;

	if (!r->trans) {
		if (r->out)
			fprintf(r->out, "  would rebuild the extent tree from a walk of every tree\n");
		return 0;
	}
	ret = btrfs_rebuild_extent_tree(r->trans, &st);
	if (refused)
		*refused = ret == -EBUSY || (ret && st.refused[0]);
	if (ret && st.refused[0]) {
		fprintf(stderr, "ERROR: the extent tree is not rebuilt: %s\n", st.refused);
		return ret;
	}
	if (ret) {
		fprintf(stderr, "ERROR: rebuilding the extent tree failed: %s\n",
			strerror(-ret));
		return ret;
	}
	if (r->out) {
		fprintf(r->out, "  rebuilt the extent tree: %llu tree blocks (%llu FULL_BACKREF) with %llu refs, %llu data extents with %llu refs, from %llu trees\n",
			(unsigned long long)st.tree_blocks, (unsigned long long)st.full_backref,
			(unsigned long long)st.tree_refs, (unsigned long long)st.data_extents,
			(unsigned long long)st.data_refs, (unsigned long long)st.trees);
		fprintf(r->out, "    %llu items, %llu bytes used; old tree: %llu blocks kept until the commit\n",
			(unsigned long long)st.items, (unsigned long long)st.bytes_used,
			(unsigned long long)st.old_blocks);
	}
	return 0;
}

int repair_rebuild_trees(struct repair_ctx *r)
{
	int ret = 0;

	/* first: it needs a transaction in which nothing changed yet */
	if (r->opts->init_extent_tree)
		ret = repair_rebuild_extent_tree(r, NULL);
	if (!ret && r->opts->init_csum_tree)
		ret = rebuild_csum(r);
	if (!ret && r->opts->init_uuid_tree) {
		ret = repair_rebuild_uuid_tree(r);
		if (ret > 0)
			ret = 0;
	}
	return ret;
}
