// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk allocation.  A new chunk is decided entirely in memory: device
 * ranges, the chunk map entry, the block group, the devices' bytes_used.
 * Its items (chunk item, device extents, device items, block group item)
 * reach the trees at commit through btrfs_finish_pending_chunks(), so a
 * chunk can be allocated in the middle of any tree operation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "chunk-alloc.h"
#include "transaction.h"
#include "block-group.h"
#include "ctree.h"
#include "volumes.h"
#include "array.h"

#define SZ_1M	(1024ULL * 1024)
#define SZ_8M	(8 * SZ_1M)
#define SZ_32M	(32 * SZ_1M)
#define SZ_256M	(256 * SZ_1M)
#define SZ_1G	(1024 * SZ_1M)
#define SZ_50G	(50 * SZ_1G)

struct pending_chunk {
	struct list_head list;
	u64 logical;
};

static struct btrfs_write_state *wstate(const struct btrfs_fs_info *fs_info)
{
	return fs_info->write;
}

int btrfs_profile_devs(u64 profile, int nr_devices, int *min, int *max,
		       int *copies, int *sub_stripes)
{
	*sub_stripes = 1;
	switch (profile & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case 0:
		*min = 1; *max = 1; *copies = 1;
		return 0;
	case BTRFS_BLOCK_GROUP_DUP:
		*min = 1; *max = 1; *copies = 2;
		return 0;
	case BTRFS_BLOCK_GROUP_RAID0:
		*min = 1; *max = nr_devices; *copies = 1;
		return 0;
	case BTRFS_BLOCK_GROUP_RAID1:
		*min = 2; *max = 2; *copies = 2;
		return 0;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		*min = 3; *max = 3; *copies = 3;
		return 0;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		*min = 4; *max = 4; *copies = 4;
		return 0;
	case BTRFS_BLOCK_GROUP_RAID10:
		*min = 2; *max = nr_devices & ~1; *copies = 2; *sub_stripes = 2;
		return 0;
	}
	return -EINVAL;
}

u64 btrfs_chunk_stripe_size(u64 type, u64 length, int num_stripes, int sub_stripes)
{
	switch (type & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case BTRFS_BLOCK_GROUP_RAID0:
		return length / num_stripes;
	case BTRFS_BLOCK_GROUP_RAID10:
		return length / (num_stripes / (sub_stripes ? sub_stripes : 2));
	case BTRFS_BLOCK_GROUP_RAID5:
		return length / (num_stripes - 1);
	case BTRFS_BLOCK_GROUP_RAID6:
		return length / (num_stripes - 2);
	}
	return length;
}

/* logical length of a chunk with @num_stripes stripes of @stripe_size */
static u64 chunk_length(u64 type, u64 stripe_size, int num_stripes, int sub_stripes)
{
	switch (type & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case BTRFS_BLOCK_GROUP_RAID0:
		return stripe_size * num_stripes;
	case BTRFS_BLOCK_GROUP_RAID10:
		return stripe_size * (num_stripes / sub_stripes);
	}
	return stripe_size;
}

static u64 fs_total_bytes(struct btrfs_fs_info *fs_info)
{
	u64 total = btrfs_super_total_bytes(&fs_info->super_copy);
	int i;

	if (total)
		return total;
	for (i = 0; i < fs_info->num_devices; i++)
		total += fs_info->devices[i].total_bytes;
	return total;
}

u64 btrfs_default_stripe_size(struct btrfs_fs_info *fs_info, u64 type, int nr_stripes)
{
	u64 total = fs_total_bytes(fs_info);
	u64 max, floor, limit, size;

	if (nr_stripes < 1)
		nr_stripes = 1;
	if (type & BTRFS_BLOCK_GROUP_SYSTEM) {
		max = SZ_8M;
		floor = SZ_8M;
	} else if (type & BTRFS_BLOCK_GROUP_METADATA) {
		max = total >= SZ_50G ? SZ_1G : SZ_256M;
		floor = SZ_32M;
	} else {
		max = SZ_1G;
		floor = SZ_8M;
	}
	/* no chunk takes more than a tenth of the filesystem */
	limit = total / 10 / nr_stripes;
	size = limit < max ? limit : max;
	if (size < floor)
		size = floor;
	return size / BTRFS_STRIPE_LEN * BTRFS_STRIPE_LEN;
}

/* ---- per device allocation bookkeeping ---- */

static int dev_index(struct btrfs_fs_info *fs_info, u64 devid)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		if (fs_info->devices[i].devid == devid)
			return i;
	}
	return -1;
}

static int dev_alloc_add(struct btrfs_dev_alloc *da, u64 start, u64 len)
{
	size_t pos = 0;

	while (pos < da->nr && da->starts[pos] < start)
		pos++;
	if ((pos < da->nr && start + len > da->starts[pos]) ||
	    (pos > 0 && da->starts[pos - 1] + da->lens[pos - 1] > start))
		return -EEXIST;
	if (da->nr == da->alloc) {
		/* two arrays of one length: grow a copy of it for the first */
		size_t alloc_starts = da->alloc;

		if (ARRAY_RESERVE(da->starts, alloc_starts, da->nr + 1, 16) ||
		    ARRAY_RESERVE(da->lens, da->alloc, da->nr + 1, 16))
			return -ENOMEM;
	}
	memmove(&da->starts[pos + 1], &da->starts[pos], (da->nr - pos) * sizeof(u64));
	memmove(&da->lens[pos + 1], &da->lens[pos], (da->nr - pos) * sizeof(u64));
	da->starts[pos] = start;
	da->lens[pos] = len;
	da->nr++;
	return 0;
}

void btrfs_free_dev_allocs(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	int i;

	for (i = 0; i < GHEE_MAX_DEVICES; i++) {
		free(ws->dev_allocs[i].starts);
		free(ws->dev_allocs[i].lens);
		memset(&ws->dev_allocs[i], 0, sizeof(ws->dev_allocs[i]));
	}
}

int btrfs_load_dev_allocs(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t c;
	int s, ret;

	for (c = 0; c < fs_info->chunk_map.nr; c++) {
		struct map_lookup *ml = fs_info->chunk_map.maps[c];
		u64 size = btrfs_chunk_stripe_size(ml->type, ml->length, ml->num_stripes,
						   ml->sub_stripes);

		for (s = 0; s < ml->num_stripes; s++) {
			int idx = dev_index(fs_info, ml->stripes[s].devid);

			if (idx < 0)
				continue;
			ws->dev_allocs[idx].devid = ml->stripes[s].devid;
			ret = dev_alloc_add(&ws->dev_allocs[idx], ml->stripes[s].physical, size);
			if (ret) {
				btrfs_err(&fs_info->reporter,
					  "devid %llu: device extent at %llu overlaps another",
					  (unsigned long long)ml->stripes[s].devid,
					  (unsigned long long)ml->stripes[s].physical);
				return ret;
			}
		}
	}
	return 0;
}

static u64 dev_limit(const struct btrfs_device *dev)
{
	return dev->total_bytes;
}

/* first hole of @len at or after @from on device @idx: 0 or -ENOSPC */
static int dev_find_hole(struct btrfs_fs_info *fs_info, int idx, u64 from,
			 u64 len, u64 *start)
{
	const struct btrfs_dev_alloc *da = &wstate(fs_info)->dev_allocs[idx];
	u64 pos = from < SZ_1M ? SZ_1M : from;
	u64 limit = dev_limit(&fs_info->devices[idx]);
	size_t i;

	for (i = 0; i < da->nr; i++) {
		if (da->starts[i] + da->lens[i] <= pos)
			continue;
		if (da->starts[i] >= pos + len)
			break;
		pos = da->starts[i] + da->lens[i];
	}
	if (pos + len > limit || pos + len < pos)
		return -ENOSPC;
	*start = pos;
	return 0;
}

/* the largest hole of device @idx at or after @from */
static u64 dev_largest_hole(struct btrfs_fs_info *fs_info, int idx, u64 from)
{
	const struct btrfs_dev_alloc *da = &wstate(fs_info)->dev_allocs[idx];
	u64 pos = from < SZ_1M ? SZ_1M : from;
	u64 limit = dev_limit(&fs_info->devices[idx]);
	u64 best = 0;
	size_t i;

	for (i = 0; i < da->nr; i++) {
		if (da->starts[i] + da->lens[i] <= pos)
			continue;
		if (da->starts[i] > pos && da->starts[i] - pos > best)
			best = da->starts[i] - pos;
		pos = da->starts[i] + da->lens[i];
	}
	if (limit > pos && limit - pos > best)
		best = limit - pos;
	return best;
}

u64 btrfs_device_free_bytes(struct btrfs_fs_info *fs_info, u64 devid)
{
	int idx = dev_index(fs_info, devid);
	const struct btrfs_dev_alloc *da;
	u64 used = 0;
	size_t i;

	if (idx < 0)
		return 0;
	da = &wstate(fs_info)->dev_allocs[idx];
	for (i = 0; i < da->nr; i++)
		used += da->lens[i];
	used += SZ_1M;
	return dev_limit(&fs_info->devices[idx]) > used ?
	       dev_limit(&fs_info->devices[idx]) - used : 0;
}

/* ---- choosing devices and places ---- */

struct dev_choice {
	int idx;
	u64 hole;
};

static int cmp_choice(const void *a, const void *b)
{
	const struct dev_choice *x = a, *y = b;

	if (x->hole != y->hole)
		return x->hole > y->hole ? -1 : 1;
	return x->idx - y->idx;
}

static u64 req_min_physical(const struct btrfs_chunk_request *req, int idx)
{
	if (idx == 0 && req->first_dev_min_physical > req->min_physical)
		return req->first_dev_min_physical;
	return req->min_physical;
}

/*
 * Pick the devices (most room first) and the stripe size.  DUP puts both
 * stripes in one hole of twice the size.
 */
static int choose_devices(struct btrfs_fs_info *fs_info,
			  const struct btrfs_chunk_request *req,
			  struct dev_choice *chosen, int *nr_chosen, u64 *stripe_size)
{
	u64 profile = req->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int per_dev = profile == BTRFS_BLOCK_GROUP_DUP ? 2 : 1;
	int min, max, copies, sub, n = 0, i;
	struct dev_choice all[GHEE_MAX_DEVICES];
	u64 size;

	if (btrfs_profile_devs(profile, fs_info->num_devices, &min, &max, &copies, &sub))
		return -EOPNOTSUPP;
	if (req->nr_devs)
		max = req->nr_devs < max ? req->nr_devs : max;
	for (i = 0; i < fs_info->num_devices; i++) {
		if (fs_info->devices[i].fd < 0)
			continue;
		all[n].idx = i;
		all[n].hole = dev_largest_hole(fs_info, i, req_min_physical(req, i)) / per_dev;
		n++;
	}
	qsort(all, n, sizeof(all[0]), cmp_choice);
	if (n > max)
		n = max;
	if (profile == BTRFS_BLOCK_GROUP_RAID10)
		n &= ~1;
	if (n < min)
		return -ENOSPC;
	size = req->stripe_size;
	if (!size)
		size = btrfs_default_stripe_size(fs_info, req->type,
						 n * per_dev);
	if (!req->stripe_size && all[n - 1].hole < size)
		size = all[n - 1].hole / BTRFS_STRIPE_LEN * BTRFS_STRIPE_LEN;
	if (!size || all[n - 1].hole < size)
		return -ENOSPC;
	memcpy(chosen, all, n * sizeof(all[0]));
	*nr_chosen = n;
	*stripe_size = size;
	return 0;
}

static u64 next_logical(struct btrfs_fs_info *fs_info)
{
	struct chunk_map *map = &fs_info->chunk_map;
	u64 end = SZ_1M;

	if (map->nr) {
		struct map_lookup *last = map->maps[map->nr - 1];

		if (last->logical + last->length > end)
			end = last->logical + last->length;
	}
	return end;
}

static struct map_lookup *build_map(struct btrfs_fs_info *fs_info,
				    const struct btrfs_chunk_request *req,
				    const struct dev_choice *chosen, int nr_chosen,
				    u64 stripe_size, u64 logical)
{
	u64 profile = req->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int per_dev = profile == BTRFS_BLOCK_GROUP_DUP ? 2 : 1;
	int num = nr_chosen * per_dev, min, max, copies, sub, i;
	struct map_lookup *ml;

	btrfs_profile_devs(profile, fs_info->num_devices, &min, &max, &copies, &sub);
	ml = calloc(1, sizeof(*ml) + num * sizeof(struct map_stripe));
	if (!ml)
		return NULL;
	ml->logical = logical;
	ml->length = chunk_length(req->type, stripe_size, num, sub);
	ml->stripe_len = BTRFS_STRIPE_LEN;
	ml->type = req->type;
	ml->io_align = BTRFS_STRIPE_LEN;
	ml->io_width = BTRFS_STRIPE_LEN;
	ml->sector_size = fs_info->sectorsize;
	ml->num_stripes = num;
	ml->sub_stripes = sub;
	for (i = 0; i < num; i++) {
		struct btrfs_device *dev = &fs_info->devices[chosen[i / per_dev].idx];
		u64 start;

		if (i % per_dev == 0 &&
		    dev_find_hole(fs_info, chosen[i / per_dev].idx,
				  req_min_physical(req, chosen[i / per_dev].idx),
				  stripe_size * per_dev, &start)) {
			free(ml);
			return NULL;
		}
		if (i % per_dev)
			start = ml->stripes[i - 1].physical + stripe_size;
		ml->stripes[i].devid = dev->devid;
		ml->stripes[i].physical = start;
		memcpy(ml->stripes[i].dev_uuid, dev->uuid, BTRFS_UUID_SIZE);
		ml->stripes[i].dev = dev;
	}
	return ml;
}

/* account the device extents of a new chunk */
static int take_dev_extents(struct btrfs_fs_info *fs_info, struct map_lookup *ml,
			    u64 stripe_size)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	int i, ret;

	for (i = 0; i < ml->num_stripes; i++) {
		int idx = dev_index(fs_info, ml->stripes[i].devid);

		ws->dev_allocs[idx].devid = ml->stripes[i].devid;
		ret = dev_alloc_add(&ws->dev_allocs[idx], ml->stripes[i].physical,
				    stripe_size);
		if (ret)
			return ret;
		fs_info->devices[idx].bytes_used += stripe_size;
		btrfs_set_device_bytes_used(&ws->dev_items[idx],
					    fs_info->devices[idx].bytes_used);
		ws->dev_item_dirty[idx] = true;
	}
	return 0;
}

int btrfs_alloc_chunk_nolock(struct btrfs_fs_info *fs_info,
			     const struct btrfs_chunk_request *req,
			     u64 *start_ret, u64 *length_ret)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct dev_choice chosen[GHEE_MAX_DEVICES];
	struct pending_chunk *pc;
	struct map_lookup *ml;
	u64 stripe_size, logical;
	int nr, ret;

	if (req->type & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6))
		return -EOPNOTSUPP;
	if (!(req->type & BTRFS_BLOCK_GROUP_TYPE_MASK))
		return -EINVAL;
	ret = choose_devices(fs_info, req, chosen, &nr, &stripe_size);
	if (ret)
		return ret;
	logical = req->logical ? req->logical : next_logical(fs_info);
	ml = build_map(fs_info, req, chosen, nr, stripe_size, logical);
	if (!ml)
		return -ENOSPC;
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		free(ml);
		return -ENOMEM;
	}
	ret = chunk_map_insert(&fs_info->chunk_map, ml);
	if (ret) {
		free(ml);
		free(pc);
		return ret;
	}
	ret = take_dev_extents(fs_info, ml, stripe_size);
	if (!ret)
		ret = btrfs_make_block_group(fs_info, ml->type, ml->logical, ml->length);
	if (ret) {
		free(pc);
		return ret;	/* the write state is left inconsistent: abort */
	}
	pc->logical = ml->logical;
	list_add_tail(&pc->list, &ws->pending_chunks);
	if (start_ret)
		*start_ret = ml->logical;
	if (length_ret)
		*length_ret = ml->length;
	return 0;
}

int btrfs_alloc_chunk(struct btrfs_trans_handle *trans,
		      const struct btrfs_chunk_request *req,
		      u64 *start_ret, u64 *length_ret)
{
	return btrfs_alloc_chunk_nolock(trans->fs_info, req, start_ret, length_ret);
}

bool btrfs_have_pending_chunks(const struct btrfs_fs_info *fs_info)
{
	return !list_empty(&wstate(fs_info)->pending_chunks);
}

/* ---- items at commit ---- */

/* a chunk item from the map: @buf must hold btrfs_chunk_item_size(num_stripes) */
void btrfs_fill_chunk_item(const struct btrfs_fs_info *fs_info,
			   const struct map_lookup *ml, struct btrfs_chunk *chunk)
{
	int i;

	(void)fs_info;
	memset(chunk, 0, btrfs_chunk_item_size(ml->num_stripes));
	btrfs_set_chunk_length(chunk, ml->length);
	btrfs_set_chunk_owner(chunk, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(chunk, ml->stripe_len);
	btrfs_set_chunk_type(chunk, ml->type);
	btrfs_set_chunk_io_align(chunk, ml->io_align);
	btrfs_set_chunk_io_width(chunk, ml->io_width);
	btrfs_set_chunk_sector_size(chunk, ml->sector_size);
	btrfs_set_chunk_num_stripes(chunk, ml->num_stripes);
	btrfs_set_chunk_sub_stripes(chunk, ml->sub_stripes);
	for (i = 0; i < ml->num_stripes; i++) {
		struct btrfs_stripe *s = btrfs_chunk_stripe(chunk, i);

		btrfs_set_stripe_devid(s, ml->stripes[i].devid);
		btrfs_set_stripe_offset(s, ml->stripes[i].physical);
		memcpy(s->dev_uuid, ml->stripes[i].dev_uuid, BTRFS_UUID_SIZE);
	}
}

static int insert_chunk_item(struct btrfs_trans_handle *trans, struct map_lookup *ml)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY,
				 ml->logical };
	u32 size = btrfs_chunk_item_size(ml->num_stripes);
	struct btrfs_chunk *chunk = malloc(size);
	int ret;

	if (!chunk)
		return -ENOMEM;
	btrfs_fill_chunk_item(fs_info, ml, chunk);
	ret = btrfs_insert_item(trans, &fs_info->chunk_root, &key, chunk, size);
	free(chunk);
	return ret;
}

static int insert_dev_extents(struct btrfs_trans_handle *trans, struct map_lookup *ml)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u64 size = btrfs_chunk_stripe_size(ml->type, ml->length, ml->num_stripes,
					   ml->sub_stripes);
	int i, ret;

	for (i = 0; i < ml->num_stripes; i++) {
		struct btrfs_key key = { ml->stripes[i].devid, BTRFS_DEV_EXTENT_KEY,
					 ml->stripes[i].physical };
		struct btrfs_dev_extent de;

		memset(&de, 0, sizeof(de));
		btrfs_set_dev_extent_chunk_tree(&de, BTRFS_CHUNK_TREE_OBJECTID);
		btrfs_set_dev_extent_chunk_objectid(&de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_dev_extent_chunk_offset(&de, ml->logical);
		btrfs_set_dev_extent_length(&de, size);
		memcpy(de.chunk_tree_uuid, fs_info->chunk_tree_uuid, BTRFS_UUID_SIZE);
		ret = btrfs_insert_item(trans, &fs_info->dev_root, &key, &de, sizeof(de));
		if (ret)
			return ret;
	}
	return 0;
}

int btrfs_finish_pending_chunks(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	int ret;

	while (!list_empty(&ws->pending_chunks)) {
		struct pending_chunk *pc = list_first_entry(&ws->pending_chunks,
							    struct pending_chunk, list);
		struct map_lookup *ml = chunk_map_lookup(&fs_info->chunk_map, pc->logical);

		list_del_init(&pc->list);
		free(pc);
		if (!ml)
			return -EUCLEAN;
		ret = insert_chunk_item(trans, ml);
		if (!ret)
			ret = insert_dev_extents(trans, ml);
		if (ret)
			return ret;
	}
	return 0;
}

void btrfs_free_pending_chunks(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);

	while (!list_empty(&ws->pending_chunks)) {
		struct pending_chunk *pc = list_first_entry(&ws->pending_chunks,
							    struct pending_chunk, list);

		list_del_init(&pc->list);
		free(pc);
	}
}

/* write the items of devices whose bytes_used changed (or that are new) */
int btrfs_update_device_items(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	int i, ret;

	for (i = 0; i < fs_info->num_devices; i++) {
		struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY,
					 fs_info->devices[i].devid };
		struct btrfs_path path;

		if (!ws->dev_item_dirty[i] || !ws->dev_item_valid[i])
			continue;
		ws->dev_item_dirty[i] = false;
		btrfs_init_path(&path);
		ret = btrfs_search_slot(trans, &fs_info->chunk_root, &key, &path, 0, 1);
		if (ret == 0)
			btrfs_write_item_data(&path, 0, &ws->dev_items[i],
					      sizeof(ws->dev_items[i]));
		btrfs_release_path(&path);
		if (ret > 0)
			ret = btrfs_insert_item(trans, &fs_info->chunk_root, &key,
						&ws->dev_items[i], sizeof(ws->dev_items[i]));
		if (ret)
			return ret;
	}
	return 0;
}

bool btrfs_device_items_dirty(const struct btrfs_fs_info *fs_info)
{
	const struct btrfs_write_state *ws = wstate(fs_info);
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		if (ws->dev_item_dirty[i] && ws->dev_item_valid[i])
			return true;
	}
	return false;
}

/* rebuild the superblock's sys_chunk_array from the system chunks */
int btrfs_rebuild_sys_array(struct btrfs_fs_info *fs_info)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	u8 array[BTRFS_SYSTEM_CHUNK_ARRAY_SIZE];
	u32 cur = 0;
	size_t i;

	memset(array, 0, sizeof(array));
	for (i = 0; i < fs_info->chunk_map.nr; i++) {
		struct map_lookup *ml = fs_info->chunk_map.maps[i];
		struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID,
					 BTRFS_CHUNK_ITEM_KEY, ml->logical };
		u32 size = btrfs_chunk_item_size(ml->num_stripes);

		if (!(ml->type & BTRFS_BLOCK_GROUP_SYSTEM))
			continue;
		if (cur + sizeof(struct btrfs_disk_key) + size > sizeof(array)) {
			btrfs_err(&fs_info->reporter, "system chunks do not fit the superblock's sys_chunk_array");
			return -EFBIG;
		}
		btrfs_cpu_key_to_disk((struct btrfs_disk_key *)(array + cur), &key);
		cur += sizeof(struct btrfs_disk_key);
		btrfs_fill_chunk_item(fs_info, ml, (struct btrfs_chunk *)(array + cur));
		cur += size;
	}
	memcpy(sb->sys_chunk_array, array, sizeof(array));
	btrfs_set_super_sys_array_size(sb, cur);
	return 0;
}

int btrfs_recalc_device_bytes_used(struct btrfs_fs_info *fs_info, int *nr_changed)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	int i;

	*nr_changed = 0;
	for (i = 0; i < fs_info->num_devices; i++) {
		const struct btrfs_dev_alloc *da = &ws->dev_allocs[i];
		u64 used = 0;
		size_t j;

		for (j = 0; j < da->nr; j++)
			used += da->lens[j];
		if (!ws->dev_item_valid[i] ||
		    btrfs_device_bytes_used(&ws->dev_items[i]) == used)
			continue;
		fs_info->devices[i].bytes_used = used;
		btrfs_set_device_bytes_used(&ws->dev_items[i], used);
		ws->dev_item_dirty[i] = true;
		(*nr_changed)++;
	}
	return 0;
}

int btrfs_shrink_devices_to_used(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_super_block *sb = &fs_info->super_copy;
	u64 total = 0;
	int i;

	if (!ws)
		return -EROFS;
	for (i = 0; i < fs_info->num_devices; i++) {
		const struct btrfs_dev_alloc *da = &ws->dev_allocs[i];
		struct btrfs_device *dev = &fs_info->devices[i];
		u64 end = SZ_1M;
		size_t j;

		for (j = 0; j < da->nr; j++) {
			if (da->starts[j] + da->lens[j] > end)
				end = da->starts[j] + da->lens[j];
		}
		if (!ws->dev_item_valid[i] || end > dev->total_bytes)
			return -EINVAL;
		dev->total_bytes = end;
		btrfs_set_device_total_bytes(&ws->dev_items[i], end);
		ws->dev_item_dirty[i] = true;
		total += end;
	}
	btrfs_set_super_total_bytes(sb, total);
	return 0;
}
