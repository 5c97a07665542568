// SPDX-License-Identifier: GPL-2.0
/*
 * Free runs of a block group from the extent tree, generated lazily: the
 * next used range is the lower of the next extent item and the next
 * excluded range, and everything between used ranges is free.
 */
#include <string.h>
#include "free-space-ext.h"
#include "shared.h"
#include "iter.h"
#include "kernel-shared/volumes.h"

void free_space_ext_init(struct free_space_ext *it, struct btrfs_fs_info *fs_info)
{
	memset(it, 0, sizeof(*it));
	it->fs_info = fs_info;
	btrfs_init_path(&it->path);
}

void free_space_ext_release(struct free_space_ext *it)
{
	btrfs_release_path(&it->path);
}

/* the next extent item of the tree into ext_start/ext_end */
static void load_next_extent(struct free_space_ext *it)
{
	struct btrfs_root *root = &it->fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	int ret;

	while (!it->tree_done && !it->have_ext) {
		if (!it->started)
			ret = check_iter_start(root, &key, &it->path);
		else
			ret = check_iter_next(root, &it->path);
		it->started = true;
		if (ret) {
			it->tree_done = true;
			break;
		}
		btrfs_path_key(&it->path, &key);
		if (key.type == BTRFS_EXTENT_ITEM_KEY)
			it->ext_end = key.objectid + key.offset;
		else if (key.type == BTRFS_METADATA_ITEM_KEY)
			it->ext_end = key.objectid + it->fs_info->nodesize;
		else
			continue;
		it->ext_start = key.objectid;
		if (it->ext_end < it->ext_start)
			it->ext_end = (u64)-1;
		it->have_ext = true;
	}
}

static void add_excluded(struct free_space_ext *it, u64 start, u64 len)
{
	u64 end = start + len;
	int i;

	if (end < start)
		end = (u64)-1;
	if (start < it->bg_start)
		start = it->bg_start;
	if (end > it->bg_end)
		end = it->bg_end;
	if (start >= end || it->nr_excl >= FSE_MAX_EXCLUDED)
		return;
	/* insertion sort: there are only a few */
	for (i = it->nr_excl; i > 0 && it->excl[i - 1][0] > start; i--) {
		it->excl[i][0] = it->excl[i - 1][0];
		it->excl[i][1] = it->excl[i - 1][1];
	}
	it->excl[i][0] = start;
	it->excl[i][1] = end;
	it->nr_excl++;
}

/* bytes of the chunk each stripe holds on its device */
static u64 stripe_dev_length(const struct map_lookup *ml)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int n = ml->num_stripes;

	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		return ml->length / n;
	case BTRFS_BLOCK_GROUP_RAID10:
		return ml->sub_stripes ? ml->length * ml->sub_stripes / n : 0;
	case BTRFS_BLOCK_GROUP_RAID5:
		return n > 1 ? ml->length / (n - 1) : 0;
	case BTRFS_BLOCK_GROUP_RAID6:
		return n > 2 ? ml->length / (n - 2) : 0;
	default:
		return ml->length;
	}
}

/* the logical range of stripe @j of @ml that holds device byte @physical */
static void exclude_physical(struct free_space_ext *it, const struct map_lookup *ml,
			     int j, u64 physical)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	u64 stripe_nr = (physical - ml->stripes[j].physical) / ml->stripe_len;
	u64 len = ml->stripe_len;

	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		stripe_nr = stripe_nr * ml->num_stripes + j;
		break;
	case BTRFS_BLOCK_GROUP_RAID10:
		stripe_nr = stripe_nr * (ml->num_stripes / ml->sub_stripes) +
			    j / ml->sub_stripes;
		break;
	case BTRFS_BLOCK_GROUP_RAID5:
	case BTRFS_BLOCK_GROUP_RAID6: {
		int data = ml->num_stripes - (profile == BTRFS_BLOCK_GROUP_RAID5 ? 1 : 2);

		stripe_nr *= data;
		len *= data;
		break;
	}
	default:
		break;
	}
	add_excluded(it, ml->logical + stripe_nr * ml->stripe_len, len);
}

/* the superblock copies inside the block group are never free */
static void exclude_super_copies(struct free_space_ext *it)
{
	const struct map_lookup *ml = chunk_map_lookup(&it->fs_info->chunk_map,
						       it->bg_start);
	u64 dev_len;
	int mirror, j;

	if (it->bg_start < BTRFS_SUPER_INFO_OFFSET)
		add_excluded(it, it->bg_start, BTRFS_SUPER_INFO_OFFSET - it->bg_start);
	if (!ml || ml->logical != it->bg_start || !ml->stripe_len ||
	    (ml->type & BTRFS_BLOCK_GROUP_RAID10 && !ml->sub_stripes))
		return;
	dev_len = stripe_dev_length(ml);
	for (mirror = 0; mirror < BTRFS_SUPER_MIRROR_MAX; mirror++) {
		u64 physical = btrfs_sb_offset(mirror);

		for (j = 0; j < ml->num_stripes; j++) {
			u64 start = ml->stripes[j].physical;

			if (physical >= start && physical - start < dev_len)
				exclude_physical(it, ml, j, physical);
		}
	}
}

void free_space_ext_begin(struct free_space_ext *it,
			  const struct check_block_group *bg, bool exclude_super)
{
	it->bg_start = bg->start;
	it->bg_end = bg->start + bg->length;
	if (it->bg_end < it->bg_start)
		it->bg_end = (u64)-1;
	it->cursor = it->bg_start;
	it->nr_excl = 0;
	it->excl_idx = 0;
	if (exclude_super)
		exclude_super_copies(it);
	for (;;) {
		load_next_extent(it);
		if (!it->have_ext || it->ext_end > it->bg_start)
			break;
		it->have_ext = false;
	}
}

bool free_space_ext_next(struct free_space_ext *it, u64 *start, u64 *end)
{
	while (it->cursor < it->bg_end) {
		bool use_ext, have_excl = it->excl_idx < it->nr_excl;
		u64 ustart, uend;

		load_next_extent(it);
		use_ext = it->have_ext && it->ext_start < it->bg_end;
		if (use_ext && have_excl && it->excl[it->excl_idx][0] < it->ext_start)
			use_ext = false;
		if (!use_ext && !have_excl) {
			*start = it->cursor;
			*end = it->bg_end;
			it->cursor = it->bg_end;
			return true;
		}
		if (use_ext) {
			ustart = it->ext_start;
			uend = it->ext_end;
			it->have_ext = false;
		} else {
			ustart = it->excl[it->excl_idx][0];
			uend = it->excl[it->excl_idx][1];
			it->excl_idx++;
		}
		if (ustart > it->cursor) {
			*start = it->cursor;
			*end = ustart;
			it->cursor = uend > ustart ? uend : ustart;
			return true;
		}
		if (uend > it->cursor)
			it->cursor = uend;
	}
	return false;
}
