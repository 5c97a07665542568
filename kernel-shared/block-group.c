// SPDX-License-Identifier: GPL-2.0
/*
 * Block groups in memory: the sorted table, `used` accounting, the
 * allocatable free space of each group and the search for free space.
 *
 * A group's allocatable space is its range minus allocated extents,
 * minus the superblock copies inside it, minus ranges pinned until the
 * next commit, kept in a free-space-cache ctl (extents and bitmaps).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "block-group.h"
#include "transaction.h"
#include "extent-tree.h"
#include "ctree.h"
#include "volumes.h"
#include "free-space-cache.h"
#include "array.h"

struct btrfs_bg_free {
	struct btrfs_free_space_ctl ctl;
};

static struct btrfs_write_state *wstate(const struct btrfs_fs_info *fs_info)
{
	return fs_info->write;
}

struct btrfs_root *btrfs_block_group_root(struct btrfs_fs_info *fs_info)
{
	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE))
		return &fs_info->block_group_root;
	return &fs_info->extent_root;
}

/* ---- the table ---- */

size_t btrfs_nr_block_groups(const struct btrfs_fs_info *fs_info)
{
	return wstate(fs_info) ? wstate(fs_info)->nr_bgs : 0;
}

struct btrfs_block_group *btrfs_block_group_nr(struct btrfs_fs_info *fs_info,
					       size_t i)
{
	return wstate(fs_info)->bgs[i];
}

/* index of the first group ending past @bytenr */
static size_t bg_search(const struct btrfs_write_state *ws, u64 bytenr)
{
	size_t lo = 0, hi = ws->nr_bgs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct btrfs_block_group *bg = ws->bgs[mid];

		if (bg->start + bg->length <= bytenr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct btrfs_block_group *btrfs_lookup_block_group(struct btrfs_fs_info *fs_info,
						   u64 bytenr)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	if (!ws)
		return NULL;
	i = bg_search(ws, bytenr);
	if (i < ws->nr_bgs && ws->bgs[i]->start <= bytenr)
		return ws->bgs[i];
	return NULL;
}

static int bg_table_insert(struct btrfs_write_state *ws, struct btrfs_block_group *bg)
{
	size_t pos = bg_search(ws, bg->start);

	if (pos < ws->nr_bgs && ws->bgs[pos]->start < bg->start + bg->length)
		return -EEXIST;
	if (ARRAY_RESERVE(ws->bgs, ws->alloc_bgs, ws->nr_bgs + 1, 32))
		return -ENOMEM;
	memmove(&ws->bgs[pos + 1], &ws->bgs[pos], (ws->nr_bgs - pos) * sizeof(*ws->bgs));
	ws->bgs[pos] = bg;
	ws->nr_bgs++;
	return 0;
}

static void bg_destroy(struct btrfs_block_group *bg)
{
	if (bg->free) {
		free_space_ctl_release(&bg->free->ctl);
		free(bg->free);
	}
	free(bg);
}

void btrfs_free_block_groups(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	if (!ws)
		return;
	for (i = 0; i < ws->nr_bgs; i++)
		bg_destroy(ws->bgs[i]);
	free(ws->bgs);
	ws->bgs = NULL;
	ws->nr_bgs = 0;
	ws->alloc_bgs = 0;
}

/* ---- free space of one group ---- */

static int bg_free_add(struct btrfs_block_group *bg, u64 start, u64 len)
{
	return len ? add_free_space(&bg->free->ctl, start, len) : 0;
}

static int bg_free_remove(struct btrfs_block_group *bg, u64 start, u64 len)
{
	return len ? remove_free_space(&bg->free->ctl, start, len) : 0;
}

u64 btrfs_block_group_free_bytes(const struct btrfs_block_group *bg)
{
	return bg->free ? free_space_total(&bg->free->ctl) : 0;
}

int btrfs_block_group_next_free(const struct btrfs_block_group *bg, u64 *pos,
				u64 *start, u64 *len)
{
	struct free_space_iter it;
	u64 s, l;

	if (!bg->free)
		return 1;
	free_space_iter_init(&it, &bg->free->ctl);
	while (free_space_iter_next(&it, &s, &l)) {
		if (s + l <= *pos)
			continue;
		*start = s > *pos ? s : *pos;
		*len = s + l - *start;
		*pos = s + l;
		return 0;
	}
	return 1;
}

/* ---- superblock copies ---- */

/* the per-device length of one stripe of @ml */
static u64 map_stripe_size(const struct map_lookup *ml)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;

	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		return ml->length / ml->num_stripes;
	case BTRFS_BLOCK_GROUP_RAID10:
		return ml->length / (ml->num_stripes / ml->sub_stripes);
	case BTRFS_BLOCK_GROUP_RAID5:
		return ml->length / (ml->num_stripes - 1);
	case BTRFS_BLOCK_GROUP_RAID6:
		return ml->length / (ml->num_stripes - 2);
	}
	return ml->length;
}

/* logical start of the stripe unit holding device offset @physical of stripe @i */
static u64 rmap_one(const struct map_lookup *ml, int i, u64 physical)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	u64 nr = (physical - ml->stripes[i].physical) / ml->stripe_len;

	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		nr = nr * ml->num_stripes + i;
		break;
	case BTRFS_BLOCK_GROUP_RAID10:
		nr = nr * (ml->num_stripes / ml->sub_stripes) + i / ml->sub_stripes;
		break;
	case BTRFS_BLOCK_GROUP_RAID5:
	case BTRFS_BLOCK_GROUP_RAID6: {
		int data = ml->num_stripes - (profile == BTRFS_BLOCK_GROUP_RAID5 ? 1 : 2);

		nr = nr * data + (i + ml->num_stripes - nr % ml->num_stripes) %
				 ml->num_stripes;
		break;
	}
	}
	return ml->logical + nr * ml->stripe_len;
}

int btrfs_super_stripe_ranges(struct btrfs_fs_info *fs_info,
			      const struct btrfs_block_group *bg,
			      u64 *starts, u64 *lens, int max)
{
	struct map_lookup *ml = chunk_map_lookup(&fs_info->chunk_map, bg->start);
	u64 end = bg->start + bg->length;
	int n = 0, mirror, i;

	if (bg->start < BTRFS_SUPER_INFO_OFFSET && n < max) {
		starts[n] = bg->start;
		lens[n++] = BTRFS_SUPER_INFO_OFFSET - bg->start;
	}
	if (!ml)
		return n;
	for (mirror = 0; mirror < BTRFS_SUPER_MIRROR_MAX; mirror++) {
		u64 physical = btrfs_sb_offset(mirror);

		for (i = 0; i < ml->num_stripes && n < max; i++) {
			u64 s = ml->stripes[i].physical, l;

			if (physical < s || physical >= s + map_stripe_size(ml))
				continue;
			s = rmap_one(ml, i, physical);
			if (s >= end)
				continue;
			l = end - s < ml->stripe_len ? end - s : ml->stripe_len;
			starts[n] = s;
			lens[n++] = l;
		}
	}
	return n;
}

/* fill a new group's free space: all of it but the superblock copies */
static int bg_init_free(struct btrfs_fs_info *fs_info, struct btrfs_block_group *bg,
			bool whole)
{
	u64 starts[16], lens[16];
	int n, i, ret;

	bg->free = calloc(1, sizeof(*bg->free));
	if (!bg->free)
		return -ENOMEM;
	ret = free_space_ctl_init(&bg->free->ctl, bg->start, bg->length,
				  fs_info->sectorsize);
	if (ret)
		return ret;
	if (!whole)
		return 0;
	ret = bg_free_add(bg, bg->start, bg->length);
	if (ret)
		return ret;
	n = btrfs_super_stripe_ranges(fs_info, bg, starts, lens, 16);
	bg->super_bytes = 0;
	for (i = 0; i < n; i++) {
		if (!free_space_range_is_free(&bg->free->ctl, starts[i], lens[i]))
			continue;	/* two copies in one stripe unit */
		ret = bg_free_remove(bg, starts[i], lens[i]);
		if (ret)
			return ret;
		bg->super_bytes += lens[i];
	}
	return 0;
}

static struct btrfs_block_group *bg_new(u64 flags, u64 start, u64 length)
{
	struct btrfs_block_group *bg = calloc(1, sizeof(*bg));

	if (!bg)
		return NULL;
	bg->start = start;
	bg->length = length;
	bg->flags = flags;
	return bg;
}

int btrfs_make_block_group(struct btrfs_fs_info *fs_info, u64 flags,
			   u64 start, u64 length)
{
	struct btrfs_block_group *bg = bg_new(flags, start, length);
	int ret;

	if (!bg)
		return -ENOMEM;
	ret = bg_init_free(fs_info, bg, true);
	if (!ret)
		ret = bg_table_insert(wstate(fs_info), bg);
	if (ret) {
		bg_destroy(bg);
		return ret;
	}
	bg->item_dirty = true;
	bg->fst_dirty = true;
	bg->v1_dirty = true;
	return 0;
}

/* ---- loading ---- */

static int read_bg_item(struct btrfs_fs_info *fs_info, struct btrfs_block_group *bg)
{
	struct btrfs_key key = { bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
	struct btrfs_block_group_item item;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, btrfs_block_group_root(fs_info), &key, &path, 0, 0);
	if (ret > 0 && fs_info->repairing_block_group_items) {
		ret = -ENOENT;
	} else if (ret > 0) {
		btrfs_err(&fs_info->reporter, "block group %llu length %llu has no item",
			  (unsigned long long)bg->start, (unsigned long long)bg->length);
		ret = -EUCLEAN;
	}
	if (!ret) {
		if (btrfs_item_size(path.nodes[0], path.slots[0]) != sizeof(item)) {
			ret = -EUCLEAN;
		} else {
			memcpy(&item, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]),
			       sizeof(item));
			bg->used = btrfs_block_group_used(&item);
			bg->item_exists = true;
		}
	}
	btrfs_release_path(&path);
	return ret;
}

/* take every extent of the extent tree out of the groups' free space */
static int remove_allocated_extents(struct btrfs_fs_info *fs_info)
{
	struct btrfs_root *root = &fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		struct btrfs_block_group *bg;
		u64 len;

		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			len = key.type == BTRFS_EXTENT_ITEM_KEY ? key.offset : fs_info->nodesize;
			bg = btrfs_lookup_block_group(fs_info, key.objectid);
			if (!bg || key.objectid + len > bg->start + bg->length) {
				btrfs_err(&fs_info->reporter,
					  "extent %llu length %llu is outside every block group",
					  (unsigned long long)key.objectid,
					  (unsigned long long)len);
				ret = -EUCLEAN;
				goto out;
			}
			if (bg_free_remove(bg, key.objectid, len)) {
				btrfs_err(&fs_info->reporter,
					  "extent %llu length %llu overlaps another extent or a superblock copy",
					  (unsigned long long)key.objectid,
					  (unsigned long long)len);
				ret = -EUCLEAN;
				goto out;
			}
		}
		ret = btrfs_next_item(root, &path);
	}
out:
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

int btrfs_read_block_groups(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;
	int ret;

	for (i = 0; i < fs_info->chunk_map.nr; i++) {
		struct map_lookup *ml = fs_info->chunk_map.maps[i];
		struct btrfs_block_group *bg;

		bg = bg_new(ml->type, ml->logical, ml->length);
		if (!bg)
			return -ENOMEM;
		ret = bg_init_free(fs_info, bg, true);
		if (!ret)
			ret = bg_table_insert(ws, bg);
		if (ret) {
			bg_destroy(bg);
			return ret;
		}
		ret = read_bg_item(fs_info, bg);
		if (ret && fs_info->rebuilding_extent_tree)
			ret = 0;	/* the rebuild writes every item */
		if (ret == -ENOENT && fs_info->repairing_block_group_items) {
			/* the repair counts `used` and makes the item */
			bg->readonly = true;
			ret = 0;
		}
		if (ret)
			return ret;
		/* parity profiles are not written here: never allocate there */
		if (ml->type & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6))
			bg->readonly = true;
	}
	/* a rebuild takes the used space from its walk instead */
	if (fs_info->rebuilding_extent_tree)
		return 0;
	return remove_allocated_extents(fs_info);
}

/* ---- accounting and allocation ---- */

void btrfs_block_group_add_used(struct btrfs_fs_info *fs_info,
				struct btrfs_block_group *bg, u64 bytes)
{
	(void)fs_info;
	bg->used += bytes;
	bg->item_dirty = true;
	bg->fst_dirty = true;
	bg->v1_dirty = true;
}

void btrfs_block_group_sub_used(struct btrfs_fs_info *fs_info,
				struct btrfs_block_group *bg, u64 bytes)
{
	(void)fs_info;
	bg->used = bg->used >= bytes ? bg->used - bytes : 0;
	bg->item_dirty = true;
	bg->fst_dirty = true;
	bg->v1_dirty = true;
}

u64 btrfs_total_used_bytes(const struct btrfs_fs_info *fs_info)
{
	const struct btrfs_write_state *ws = wstate(fs_info);
	u64 total = 0;
	size_t i;

	for (i = 0; ws && i < ws->nr_bgs; i++)
		total += ws->bgs[i]->used;
	return total;
}

static int type_hint_index(u64 type)
{
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return 1;
	if (type & BTRFS_BLOCK_GROUP_METADATA)
		return 2;
	return 0;
}

static bool bg_matches(const struct btrfs_block_group *bg, u64 type)
{
	if (bg->readonly)
		return false;
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return bg->flags & BTRFS_BLOCK_GROUP_SYSTEM;
	return (bg->flags & type & (BTRFS_BLOCK_GROUP_DATA |
				    BTRFS_BLOCK_GROUP_METADATA)) != 0;
}

int btrfs_find_free_extent(struct btrfs_fs_info *fs_info, u64 type,
			   u64 num_bytes, u64 align, u64 *start_ret)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	int hi = type_hint_index(type);
	u64 hint = ws->alloc_hint[hi];
	size_t first, n, i;

	if (!ws->nr_bgs)
		return -ENOSPC;
	if (!align)
		align = fs_info->sectorsize;
	first = bg_search(ws, hint);
	if (first >= ws->nr_bgs) {
		first = 0;
		hint = 0;
	}
	/* from the hint to the end, then from the start: sequential allocation */
	for (n = 0; n <= ws->nr_bgs; n++) {
		struct btrfs_block_group *bg;
		u64 from, found;

		i = (first + n) % ws->nr_bgs;
		bg = ws->bgs[i];
		if (!bg_matches(bg, type) || free_space_total(&bg->free->ctl) < num_bytes)
			continue;
		from = (n == 0 && hint > bg->start) ? hint : bg->start;
		if (n == ws->nr_bgs)
			from = bg->start;	/* wrapped around to the hint's group */
		if (btrfs_find_space_for_alloc(&bg->free->ctl, from, num_bytes, align,
					       &found))
			continue;
		ws->alloc_hint[hi] = found + num_bytes;
		*start_ret = found;
		return 0;
	}
	return -ENOSPC;
}

int btrfs_add_free_range(struct btrfs_fs_info *fs_info, u64 start, u64 len)
{
	while (len) {
		struct btrfs_block_group *bg = btrfs_lookup_block_group(fs_info, start);
		u64 end, this;
		int ret;

		if (!bg)
			return -ENOENT;
		end = bg->start + bg->length;
		this = end - start < len ? end - start : len;
		ret = bg_free_add(bg, start, this);
		if (ret)
			return ret;
		start += this;
		len -= this;
	}
	return 0;
}

/* ---- writing the items ---- */

bool btrfs_block_groups_dirty(const struct btrfs_fs_info *fs_info)
{
	const struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	for (i = 0; i < ws->nr_bgs; i++) {
		if (ws->bgs[i]->item_dirty)
			return true;
	}
	return false;
}

static void fill_bg_item(const struct btrfs_block_group *bg,
			 struct btrfs_block_group_item *item)
{
	btrfs_set_block_group_used(item, bg->used);
	btrfs_set_block_group_chunk_objectid(item, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_block_group_flags(item, bg->flags);
}

static int write_one_bg(struct btrfs_trans_handle *trans, struct btrfs_block_group *bg)
{
	struct btrfs_root *root = btrfs_block_group_root(trans->fs_info);
	struct btrfs_key key = { bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
	struct btrfs_block_group_item item;
	struct btrfs_path path;
	int ret;

	fill_bg_item(bg, &item);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, &key, &path, 0, 1);
	if (ret == 0) {
		if (memcmp(btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), &item,
			   sizeof(item)))
			btrfs_write_item_data(&path, 0, &item, sizeof(item));
		btrfs_release_path(&path);
		bg->item_exists = true;
		return 0;
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	ret = btrfs_insert_item(trans, root, &key, &item, sizeof(item));
	if (!ret)
		bg->item_exists = true;
	return ret;
}

int btrfs_write_dirty_block_groups(struct btrfs_trans_handle *trans)
{
	struct btrfs_write_state *ws = wstate(trans->fs_info);
	size_t i;
	int ret;

	for (i = 0; i < ws->nr_bgs; i++) {
		struct btrfs_block_group *bg = ws->bgs[i];

		if (!bg->item_dirty)
			continue;
		bg->item_dirty = false;
		ret = write_one_bg(trans, bg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- repair helpers ---- */

int btrfs_recalc_block_group_used(struct btrfs_fs_info *fs_info, int *nr_changed)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_root *root = &fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	u64 *sums;
	size_t i;
	int ret;

	*nr_changed = 0;
	if (btrfs_have_delayed_refs(fs_info))
		return -EBUSY;	/* the extent tree is behind: run them first */
	sums = calloc(ws->nr_bgs + 1, sizeof(*sums));
	if (!sums)
		return -ENOMEM;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			size_t idx = bg_search(ws, key.objectid);

			if (idx < ws->nr_bgs && ws->bgs[idx]->start <= key.objectid)
				sums[idx] += key.type == BTRFS_EXTENT_ITEM_KEY ? key.offset :
									  fs_info->nodesize;
		}
		ret = btrfs_next_item(root, &path);
	}
	if (ret < 0)
		goto out;
	ret = 0;
	for (i = 0; i < ws->nr_bgs; i++) {
		if (ws->bgs[i]->used == sums[i])
			continue;
		ws->bgs[i]->used = sums[i];
		ws->bgs[i]->item_dirty = true;
		(*nr_changed)++;
	}
out:
	btrfs_release_path(&path);
	free(sums);
	return ret;
}

void btrfs_mark_free_space_tree_dirty(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	for (i = 0; i < ws->nr_bgs; i++) {
		ws->bgs[i]->fst_dirty = true;
		ws->bgs[i]->item_dirty = true;
	}
}

/* ---- rebuilding the extent tree (rebuild-extent-tree.c) ---- */

int btrfs_block_groups_reset_for_rebuild(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;
	int ret;

	for (i = 0; i < ws->nr_bgs; i++) {
		struct btrfs_block_group *bg = ws->bgs[i];

		if (bg->free) {
			free_space_ctl_release(&bg->free->ctl);
			free(bg->free);
			bg->free = NULL;
		}
		ret = bg_init_free(fs_info, bg, true);
		if (ret)
			return ret;
		bg->used = 0;
		bg->pinned = 0;
		bg->item_dirty = true;
		bg->fst_dirty = true;
		bg->v1_dirty = true;
	}
	return 0;
}

int btrfs_block_group_take_range(struct btrfs_fs_info *fs_info, u64 start, u64 len,
				 bool used)
{
	struct btrfs_block_group *bg = btrfs_lookup_block_group(fs_info, start);
	int ret;

	if (!bg || !len || start + len > bg->start + bg->length || start + len < start)
		return -EUCLEAN;
	if (!free_space_range_is_free(&bg->free->ctl, start, len))
		return -EEXIST;
	ret = bg_free_remove(bg, start, len);
	if (!ret && used)
		bg->used += len;
	return ret;
}
