// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 2: chunks, device items and device extents agree.
 *
 * Every chunk item is valid for its profile, names devices that exist,
 * and has a block group item of the same size and type.  Every stripe of
 * every chunk has exactly one device extent pointing back at the chunk,
 * device extents do not overlap and stay inside their device, and each
 * device item's bytes_used is the sum of its device extents.  Chunks are
 * few (one per GiB or so), so their stripes are kept in a sorted array
 * and merged against the device tree, which is streamed in key order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/volumes.h"

struct stripe_ref {
	u64 devid;
	u64 physical;
	u64 length;		/* bytes of the stripe on its device */
	u64 chunk_logical;
	u32 stripe_index;
	bool matched;
};

struct dev_usage {
	u64 devid;
	u64 extents_total;
	u64 last_end;		/* end of the previous dev extent */
};

static int cmp_stripe_ref(const void *a, const void *b)
{
	const struct stripe_ref *x = a, *y = b;

	if (x->devid != y->devid)
		return x->devid < y->devid ? -1 : 1;
	if (x->physical != y->physical)
		return x->physical < y->physical ? -1 : 1;
	return 0;
}

/* bytes one stripe of the chunk occupies on its device */
static u64 chunk_stripe_length(const struct map_lookup *ml)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	u64 data_stripes = 1;

	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		data_stripes = ml->num_stripes;
		break;
	case BTRFS_BLOCK_GROUP_RAID10:
		data_stripes = ml->num_stripes / (ml->sub_stripes ? ml->sub_stripes : 1);
		break;
	case BTRFS_BLOCK_GROUP_RAID5:
		data_stripes = ml->num_stripes - 1;
		break;
	case BTRFS_BLOCK_GROUP_RAID6:
		data_stripes = ml->num_stripes - 2;
		break;
	}
	if (!data_stripes)
		data_stripes = 1;
	return ml->length / data_stripes;
}

static struct stripe_ref *collect_stripes(struct check_ctx *ctx, size_t *nr_ret)
{
	struct chunk_map *map = &ctx->fs_info->chunk_map;
	struct stripe_ref *refs;
	size_t i, nr = 0, total = 0;
	int s;

	for (i = 0; i < map->nr; i++)
		total += map->maps[i]->num_stripes;
	refs = calloc(total ? total : 1, sizeof(*refs));
	if (!refs)
		return NULL;
	for (i = 0; i < map->nr; i++) {
		const struct map_lookup *ml = map->maps[i];
		u64 len = chunk_stripe_length(ml);

		for (s = 0; s < ml->num_stripes; s++) {
			refs[nr].devid = ml->stripes[s].devid;
			refs[nr].physical = ml->stripes[s].physical;
			refs[nr].length = len;
			refs[nr].chunk_logical = ml->logical;
			refs[nr].stripe_index = s;
			nr++;
			if (!btrfs_find_device(ctx->fs_info, ml->stripes[s].devid))
				check_problem(ctx, PR_DEV_ITEM_MISSING, &(struct problem_ctx){
					.devid = ml->stripes[s].devid });
		}
	}
	qsort(refs, nr, sizeof(*refs), cmp_stripe_ref);
	*nr_ret = nr;
	return refs;
}

/* the block group tree when the feature is on, else the extent tree */
static struct btrfs_root *block_group_root(struct btrfs_fs_info *fs)
{
	if (btrfs_fs_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE))
		return &fs->block_group_root;
	return &fs->extent_root;
}

static void check_chunk_block_group(struct check_ctx *ctx, const struct map_lookup *ml)
{
	struct btrfs_root *root = block_group_root(ctx->fs_info);
	struct btrfs_key key = { ml->logical, BTRFS_BLOCK_GROUP_ITEM_KEY, ml->length };
	const struct btrfs_block_group_item *bgi;
	struct btrfs_path path;
	u64 flags;
	int ret;

	if (!root->node)
		return;		/* phase 3 reports the unreadable tree */
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	if (ret > 0) {
		check_problem(ctx, PR_CHUNK_NO_BLOCK_GROUP, &(struct problem_ctx){
			.bytenr = ml->logical, .len = ml->length });
		goto out;
	}
	if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*bgi))
		goto out;	/* the item check of phase 3 reports it */
	bgi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_block_group_item);
	flags = btrfs_block_group_flags(bgi);
	if (flags != ml->type)
		check_problem(ctx, PR_BLOCK_GROUP_MISMATCH, &(struct problem_ctx){
			.bytenr = ml->logical, .name = "flags", .found = flags,
			.expected = ml->type });
out:
	btrfs_release_path(&path);
}

static void check_chunks(struct check_ctx *ctx)
{
	struct chunk_map *map = &ctx->fs_info->chunk_map;
	size_t i;

	for (i = 0; i < map->nr; i++) {
		const struct map_lookup *ml = map->maps[i];

		if ((ml->type & BTRFS_BLOCK_GROUP_DATA) &&
		    (ml->type & BTRFS_BLOCK_GROUP_METADATA) &&
		    !btrfs_fs_incompat(ctx->fs_info, BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS))
			check_problem(ctx, PR_CHUNK_INVALID, &(struct problem_ctx){
				.bytenr = ml->logical,
				.detail = "mixed data and metadata chunk without the mixed-bg feature" });
		check_chunk_block_group(ctx, ml);
	}
}

static struct dev_usage *find_usage(struct dev_usage *u, int nr, u64 devid)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (u[i].devid == devid)
			return &u[i];
	}
	return NULL;
}

static struct stripe_ref *find_stripe(struct stripe_ref *refs, size_t nr,
				      u64 devid, u64 physical)
{
	struct stripe_ref key = { .devid = devid, .physical = physical };

	return bsearch(&key, refs, nr, sizeof(*refs), cmp_stripe_ref);
}

static void check_dev_extent(struct check_ctx *ctx, struct extent_buffer *leaf,
			     int slot, const struct btrfs_key *key,
			     struct stripe_ref *refs, size_t nr,
			     struct dev_usage *usage, int nr_usage)
{
	const struct btrfs_dev_extent *de;
	struct btrfs_device *dev;
	struct stripe_ref *ref;
	struct dev_usage *u;
	u64 len, chunk;

	if (btrfs_item_size(leaf, slot) < sizeof(*de))
		return;		/* reported by phase 3 */
	de = btrfs_item_ptr(leaf, slot, struct btrfs_dev_extent);
	len = btrfs_dev_extent_length(de);
	chunk = btrfs_dev_extent_chunk_offset(de);
	dev = btrfs_find_device(ctx->fs_info, key->objectid);
	u = find_usage(usage, nr_usage, key->objectid);
	if (u) {
		if (key->offset < u->last_end)
			check_problem(ctx, PR_DEV_EXTENT_OVERLAP, &(struct problem_ctx){
				.devid = key->objectid, .bytenr = key->offset, .len = len });
		u->extents_total += len;
		if (key->offset + len > u->last_end)
			u->last_end = key->offset + len;
	}
	if (dev && key->offset + len > dev->total_bytes)
		check_problem(ctx, PR_DEV_EXTENT_BEYOND_DEVICE, &(struct problem_ctx){
			.devid = key->objectid, .bytenr = key->offset, .len = len,
			.expected = dev->total_bytes });
	ref = find_stripe(refs, nr, key->objectid, key->offset);
	if (!ref || ref->chunk_logical != chunk || ref->length != len || ref->matched) {
		check_problem(ctx, PR_DEV_EXTENT_NO_CHUNK, &(struct problem_ctx){
			.devid = key->objectid, .bytenr = key->offset, .len = len });
		return;
	}
	ref->matched = true;
}

static int walk_dev_extents(struct check_ctx *ctx, struct stripe_ref *refs,
			    size_t nr, struct dev_usage *usage, int nr_usage)
{
	struct btrfs_root *root = &ctx->fs_info->dev_root;
	struct btrfs_key key = { 0, BTRFS_DEV_EXTENT_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_DEV_EXTENT_KEY)
			check_dev_extent(ctx, path.nodes[0], path.slots[0], &key,
					 refs, nr, usage, nr_usage);
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static void report_unmatched_stripes(struct check_ctx *ctx,
				     const struct stripe_ref *refs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!refs[i].matched)
			check_problem(ctx, PR_CHUNK_STRIPE_NO_DEV_EXTENT, &(struct problem_ctx){
				.bytenr = refs[i].chunk_logical,
				.index = refs[i].stripe_index, .devid = refs[i].devid });
	}
}

static void check_bytes_used(struct check_ctx *ctx, const struct dev_usage *usage,
			     int nr_usage)
{
	int i;

	for (i = 0; i < nr_usage; i++) {
		struct btrfs_device *dev = btrfs_find_device(ctx->fs_info, usage[i].devid);

		if (dev && dev->bytes_used != usage[i].extents_total)
			check_problem(ctx, PR_DEV_BYTES_USED, &(struct problem_ctx){
				.devid = dev->devid, .found = dev->bytes_used,
				.expected = usage[i].extents_total });
	}
}

int check_phase_chunks(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs = ctx->fs_info;
	struct dev_usage usage[GHEE_MAX_DEVICES];
	struct stripe_ref *refs;
	size_t nr = 0;
	int i, ret;

	for (i = 0; i < fs->num_devices; i++) {
		usage[i].devid = fs->devices[i].devid;
		usage[i].extents_total = 0;
		usage[i].last_end = 0;
	}
	refs = collect_stripes(ctx, &nr);
	if (!refs)
		return -ENOMEM;
	check_chunks(ctx);
	check_chunk_items(ctx);
	ret = walk_dev_extents(ctx, refs, nr, usage, fs->num_devices);
	if (!ret) {
		report_unmatched_stripes(ctx, refs, nr);
		check_bytes_used(ctx, usage, fs->num_devices);
	}
	free(refs);
	return ret;
}
