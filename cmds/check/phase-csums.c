// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 8: the checksum tree.
 *
 * One pass over the csum tree checks each item's key and size, finds
 * items that overlap, and builds the list of covered byte ranges (merged,
 * so it stays small: contiguous checksums collapse into one run).  One
 * pass over the extent tree builds the merged data extent ranges.  Then:
 *  - covered bytes outside every data extent (those the extent tree has,
 *    and those a log tree's file extents point to) are orphan checksums;
 *  - every range phase 7 said an inode with data checksums reads must be
 *    covered.
 * With --check-data-csum the data itself is read and verified by worker
 * threads (data-csum.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "ranges.h"
#include "data-csum.h"
#include "log-tree.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "array.h"

static void check_csum_item(struct check_ctx *ctx, struct extent_buffer *leaf,
			    int slot, const struct btrfs_key *key, u64 *prev_end,
			    struct range_list *covered)
{
	struct btrfs_fs_info *fs = ctx->fs_info;
	u32 size = btrfs_item_size(leaf, slot);
	u64 len;

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID ||
	    key->type != BTRFS_EXTENT_CSUM_KEY) {
		check_problem(ctx, PR_CSUM_ITEM_INVALID, &(struct problem_ctx){
			.key = *key, .detail = "unexpected key in the csum tree" });
		return;
	}
	if (!fs->csum_size || size % fs->csum_size || !size ||
	    key->offset % fs->sectorsize) {
		check_problem(ctx, PR_CSUM_ITEM_INVALID, &(struct problem_ctx){
			.key = *key,
			.detail = "size not a multiple of the checksum size or offset unaligned" });
		return;
	}
	len = (u64)(size / fs->csum_size) * fs->sectorsize;
	if (key->offset < *prev_end)
		check_problem(ctx, PR_CSUM_OVERLAP, &(struct problem_ctx){
			.key = *key, .expected = *prev_end });
	if (key->offset + len > *prev_end)
		*prev_end = key->offset + len;
	range_list_add(covered, key->offset, len);
}

static int collect_csum_ranges(struct check_ctx *ctx, struct range_list *covered)
{
	struct btrfs_root *root = &ctx->fs_info->csum_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	u64 prev_end = 0;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		check_csum_item(ctx, path.nodes[0], path.slots[0], &key, &prev_end,
				covered);
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static bool is_data_extent(struct extent_buffer *leaf, int slot,
			   const struct btrfs_key *key)
{
	if (key->type != BTRFS_EXTENT_ITEM_KEY)
		return false;
	if (btrfs_item_size(leaf, slot) < sizeof(struct btrfs_extent_item))
		return false;
	return btrfs_extent_flags(btrfs_item_ptr(leaf, slot, struct btrfs_extent_item)) &
	       BTRFS_EXTENT_FLAG_DATA;
}

static int collect_data_extents(struct check_ctx *ctx, struct range_list *extents)
{
	struct btrfs_root *root = &ctx->fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (is_data_extent(path.nodes[0], path.slots[0], &key))
			range_list_add(extents, key.objectid, key.offset);
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static void report_orphan_csums(struct check_ctx *ctx, struct range_list *covered,
				struct range_list *extents)
{
	struct range_list orphans;
	size_t i;

	range_list_init(&orphans);
	range_list_subtract(covered, extents, &orphans);
	for (i = 0; i < orphans.nr; i++)
		check_problem(ctx, PR_CSUM_NO_EXTENT, &(struct problem_ctx){
			.bytenr = orphans.r[i].start,
			.len = orphans.r[i].end - orphans.r[i].start });
	range_list_release(&orphans);
}

static int cmp_need(const void *a, const void *b)
{
	const struct csum_need *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return 0;
}

static void report_missing_csums(struct check_ctx *ctx, struct range_list *covered)
{
	struct check_shared *sh = ctx->shared;
	size_t i;

	if (!sh->nr_csum_needs)
		return;
	qsort(sh->csum_needs, sh->nr_csum_needs, sizeof(*sh->csum_needs), cmp_need);
	for (i = 0; i < sh->nr_csum_needs; i++) {
		const struct csum_need *n = &sh->csum_needs[i];

		if (i && !cmp_need(n, n - 1))
			continue;
		if (!range_list_covers(covered, n->start, n->len))
			check_problem(ctx, PR_CSUM_MISSING, &(struct problem_ctx){
				.root = n->root, .inode = n->inode,
				.bytenr = n->start, .len = n->len });
	}
}

int check_phase_csums(struct check_ctx *ctx)
{
	struct range_list covered, extents;
	int ret;

	range_list_init(&covered);
	range_list_init(&extents);
	if (!ctx->fs_info->csum_root.node) {
		ret = -EIO;	/* phase 3 reported the unreadable tree */
		goto out;
	}
	ret = collect_csum_ranges(ctx, &covered);
	if (!ret)
		ret = collect_data_extents(ctx, &extents);
	if (ret)
		goto out;
	/* checksums of extents only a log refers to are not orphans */
	log_tree_data_extents(ctx, &extents);
	report_orphan_csums(ctx, &covered, &extents);
	report_missing_csums(ctx, &covered);
	if (ctx->opts->check_data_csum)
		ret = verify_data_csums(ctx, range_list_total(&covered));
out:
	range_list_release(&covered);
	range_list_release(&extents);
	free(ctx->shared->csum_needs);
	ctx->shared->csum_needs = NULL;
	ctx->shared->nr_csum_needs = 0;
	ctx->shared->alloc_csum_needs = 0;
	return ret;
}

int check_need_csums(struct check_shared *shared, u64 start, u64 len, u64 root,
		     u64 inode)
{
	struct csum_need *n;

	if (ARRAY_RESERVE(shared->csum_needs, shared->alloc_csum_needs,
			  shared->nr_csum_needs + 1, 1024))
		return -ENOMEM;
	n = &shared->csum_needs[shared->nr_csum_needs++];
	n->start = start;
	n->len = len;
	n->root = root;
	n->inode = inode;
	return 0;
}
