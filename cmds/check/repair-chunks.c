// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of the chunk, block group item, device extent and device size
 * findings (phases 1 and 2).
 *
 * The chunk tree is the authority: it is what maps every logical address
 * to the devices, and the superblock's system chunk array bootstraps it.
 * A block group item or a device extent that disagrees with a chunk, or
 * is missing, is made again from the chunk, but only after checking that
 * what the filesystem holds agrees (the extents inside a group are of the
 * chunk's type; the device range of a stripe is used by nothing else).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "repair-chunks.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/block-group.h"
#include "kernel-shared/chunk-alloc.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"

/* the chunk that starts at @logical, NULL when none does */
static struct map_lookup *chunk_at(struct btrfs_fs_info *fs, u64 logical)
{
	struct map_lookup *ml = chunk_map_lookup(&fs->chunk_map, logical);

	return ml && ml->logical == logical ? ml : NULL;
}

/* 0: the group's block group item has @flags; 1 no item; <0 error */
static int read_bg_item_flags(struct btrfs_fs_info *fs, u64 start, u64 len, u64 *flags)
{
	struct btrfs_key key = { start, BTRFS_BLOCK_GROUP_ITEM_KEY, len };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, btrfs_block_group_root(fs), &key, &path, 0, 0);
	if (ret == 0) {
		if (btrfs_item_size(path.nodes[0], path.slots[0]) <
		    sizeof(struct btrfs_block_group_item))
			ret = -EUCLEAN;
		else
			*flags = btrfs_block_group_flags(btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_block_group_item));
	}
	btrfs_release_path(&path);
	return ret;
}

/*
 * Do the extent items inside [start, start + len) agree with chunk type
 * @type?  Tree blocks need a metadata or system chunk, file data a data
 * chunk.  1 yes, 0 no, <0 error.
 */
static int extents_fit_type(struct btrfs_fs_info *fs, u64 start, u64 len, u64 type)
{
	struct btrfs_root *root = &fs->extent_root;
	struct btrfs_key key = { start, 0, 0 };
	bool meta_ok = type & (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM);
	bool data_ok = type & BTRFS_BLOCK_GROUP_DATA;
	struct btrfs_path path;
	int ret, fits = 1;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && fits) {
		btrfs_path_key(&path, &key);
		if (key.objectid >= start + len)
			break;
		if (key.type == BTRFS_METADATA_ITEM_KEY) {
			fits = meta_ok;
		} else if (key.type == BTRFS_EXTENT_ITEM_KEY &&
			   btrfs_item_size(path.nodes[0], path.slots[0]) >=
			   sizeof(struct btrfs_extent_item)) {
			u64 f = btrfs_extent_flags(btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_extent_item));

			if (f & BTRFS_EXTENT_FLAG_TREE_BLOCK)
				fits = meta_ok;
			else if (f & BTRFS_EXTENT_FLAG_DATA)
				fits = data_ok;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	return fits;
}

/*
 * CHUNK_NO_BLOCK_GROUP: the item is made from the chunk (start, length,
 * type) with `used` counted from the extent items inside it.  The open
 * for writing kept the group read-only until now (nothing is allocated
 * in a group whose used space is unknown); commit inserts the item and
 * the group's free space entries.
 */
int repair_chunk_no_block_group(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct map_lookup *ml = chunk_at(fs, p->bytenr);
	struct btrfs_block_group *bg;
	u64 used, flags;
	int ret;

	if (!ml)
		return -ENOENT;
	ret = read_bg_item_flags(fs, ml->logical, ml->length, &flags);
	if (ret <= 0)
		return ret < 0 ? ret : 1;	/* it has one (again) */
	ret = extents_fit_type(fs, ml->logical, ml->length, ml->type);
	if (ret <= 0)
		return ret < 0 ? ret : -EUCLEAN;	/* the chunk's type is in doubt */
	ret = repair_sum_extents(fs, ml->logical, ml->length, &used);
	if (ret)
		return ret;
	repair_note(r, REPAIR_OP_INSERT, true, 0, used,
		    "block group item (%llu BLOCK_GROUP_ITEM %llu) flags 0x%llx, used",
		    (unsigned long long)ml->logical, (unsigned long long)ml->length,
		    (unsigned long long)ml->type);
	bg = btrfs_lookup_block_group(fs, ml->logical);
	if (!bg || bg->start != ml->logical || bg->item_exists)
		return -ENOENT;
	/* frees in it since the open were counted against 0: count anew */
	bg->used = used;
	bg->item_dirty = true;
	bg->fst_dirty = true;
	bg->v1_dirty = true;
	bg->readonly = !!(ml->type & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6));
	return 0;
}

/*
 * Is every extent item inside [start, start + len) inside a chunk that
 * has its own block group item?  1 yes, 0 no, <0 error.
 */
static int extents_owned_elsewhere(struct btrfs_fs_info *fs, u64 start, u64 len)
{
	struct btrfs_root *root = &fs->extent_root;
	struct btrfs_key key = { start, 0, 0 };
	struct btrfs_path path;
	u64 checked_end = 0;
	int ret, owned = 1;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && owned) {
		struct map_lookup *ml;
		u64 flags;

		btrfs_path_key(&path, &key);
		if (key.objectid >= start + len)
			break;
		if ((key.type != BTRFS_EXTENT_ITEM_KEY && key.type != BTRFS_METADATA_ITEM_KEY) ||
		    key.objectid < checked_end)
			goto next;
		ml = chunk_map_lookup(&fs->chunk_map, key.objectid);
		if (!ml || key.objectid < ml->logical) {
			owned = 0;
			break;
		}
		/* a chunk's group is looked up once */
		btrfs_release_path(&path);
		ret = read_bg_item_flags(fs, ml->logical, ml->length, &flags);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			owned = 0;
			break;
		}
		checked_end = ml->logical + ml->length;
		key.objectid = checked_end;
		key.type = 0;
		key.offset = 0;
		ret = btrfs_search_first(root, &key, &path);
		continue;
next:
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	return owned;
}

/*
 * BLOCK_GROUP_NO_CHUNK: a block group item no chunk has (the groups in
 * memory are made from the chunks: this item is read by no one) is
 * deleted, when every extent inside its range belongs to a chunk with its
 * own item; extents that no chunk maps cannot be read, and are left to
 * say so.
 */
int repair_block_group_no_chunk(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_root *root = btrfs_block_group_root(fs);
	struct btrfs_key key = { p->bytenr, BTRFS_BLOCK_GROUP_ITEM_KEY, p->len };
	struct map_lookup *ml = chunk_at(fs, p->bytenr);
	struct btrfs_path path;
	char ks[96];
	int ret;

	if (ml && ml->length == p->len)
		return 1;	/* it has one */
	ret = extents_owned_elsewhere(fs, p->bytenr, p->len);
	if (ret <= 0)
		return ret < 0 ? ret : -EUCLEAN;
	ret = repair_search(r, root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 1;
	}
	repair_key_str(&key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "block group item %s", ks);
	ret = btrfs_del_item(r->trans, root, &path);
	btrfs_release_path(&path);
	return ret;
}

/*
 * BLOCK_GROUP_MISMATCH (flags): the item takes the chunk's type and
 * profile, when the extents inside agree with the chunk's type; the
 * in-memory group has the chunk's flags already, commit rewrites the item.
 */
int repair_block_group_mismatch(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct map_lookup *ml = chunk_at(fs, p->bytenr);
	struct btrfs_block_group *bg;
	u64 flags;
	int ret;

	if (!ml || !p->name || strcmp(p->name, "flags"))
		return -EOPNOTSUPP;
	ret = read_bg_item_flags(fs, ml->logical, ml->length, &flags);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	if (flags == ml->type)
		return 1;
	ret = extents_fit_type(fs, ml->logical, ml->length, ml->type);
	if (ret <= 0)
		return ret < 0 ? ret : -EUCLEAN;
	repair_note(r, REPAIR_OP_CHANGE, true, flags, ml->type,
		    "block group item (%llu BLOCK_GROUP_ITEM %llu) flags",
		    (unsigned long long)ml->logical, (unsigned long long)ml->length);
	bg = btrfs_lookup_block_group(fs, ml->logical);
	if (!bg || bg->start != ml->logical || bg->flags != ml->type)
		return -ENOENT;
	bg->item_dirty = true;
	return 0;
}

/* does a device extent of @devid overlap [start, start + len)?  1 yes, 0 no */
static int dev_range_used(struct btrfs_fs_info *fs, u64 devid, u64 start, u64 len)
{
	struct btrfs_root *root = &fs->dev_root;
	struct btrfs_key key = { devid, BTRFS_DEV_EXTENT_KEY, 0 };
	struct btrfs_path path;
	int ret, used = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && !used) {
		btrfs_path_key(&path, &key);
		if (key.objectid != devid || key.type != BTRFS_DEV_EXTENT_KEY ||
		    key.offset >= start + len)
			break;
		if (btrfs_item_size(path.nodes[0], path.slots[0]) <
		    sizeof(struct btrfs_dev_extent)) {
			used = 1;	/* cannot tell its length: stay away */
			break;
		}
		if (key.offset + btrfs_dev_extent_length(btrfs_item_ptr(path.nodes[0],
				path.slots[0], struct btrfs_dev_extent)) > start)
			used = 1;
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : used;
}

/*
 * CHUNK_STRIPE_NO_DEV_EXTENT: the device extent is made from the chunk
 * (its stripe's device range, the chunk's logical address), when that
 * range lies inside the device and no other device extent uses any of it.
 * The allocator knows the range as used already: its map is built from
 * the chunks.
 */
int repair_chunk_stripe_no_dev_extent(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct map_lookup *ml = chunk_at(fs, p->bytenr);
	struct btrfs_dev_extent de;
	struct btrfs_device *dev;
	struct btrfs_key key;
	u64 size, physical;
	int ret;

	if (!ml || p->index >= (u64)ml->num_stripes ||
	    ml->stripes[p->index].devid != p->devid)
		return -ENOENT;
	dev = btrfs_find_device(fs, p->devid);
	if (!dev)
		return -ENODEV;
	size = btrfs_chunk_stripe_size(ml->type, ml->length, ml->num_stripes,
				       ml->sub_stripes);
	physical = ml->stripes[p->index].physical;
	if (!size || physical + size > dev->total_bytes || physical + size < physical)
		return -ERANGE;		/* the stripe is not on the device */
	ret = dev_range_used(fs, p->devid, physical, size);
	if (ret)
		return ret < 0 ? ret : -EEXIST;
	memset(&de, 0, sizeof(de));
	btrfs_set_dev_extent_chunk_tree(&de, BTRFS_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_objectid(&de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_offset(&de, ml->logical);
	btrfs_set_dev_extent_length(&de, size);
	memcpy(de.chunk_tree_uuid, fs->chunk_tree_uuid, BTRFS_UUID_SIZE);
	repair_note(r, REPAIR_OP_INSERT, true, 0, size,
		    "dev tree item (%llu DEV_EXTENT %llu) chunk %llu, length",
		    (unsigned long long)p->devid, (unsigned long long)physical,
		    (unsigned long long)ml->logical);
	key.objectid = p->devid;
	key.type = BTRFS_DEV_EXTENT_KEY;
	key.offset = physical;
	return btrfs_insert_item(r->trans, &fs->dev_root, &key, &de, sizeof(de));
}

/* the end of the last device extent of @devid (by the dev tree) */
static int dev_extents_end(struct btrfs_fs_info *fs, u64 devid, u64 *end)
{
	struct btrfs_root *root = &fs->dev_root;
	struct btrfs_key key = { devid, BTRFS_DEV_EXTENT_KEY, 0 };
	struct btrfs_path path;
	int ret;

	*end = 0;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != devid || key.type != BTRFS_DEV_EXTENT_KEY)
			break;
		if (btrfs_item_size(path.nodes[0], path.slots[0]) <
		    sizeof(struct btrfs_dev_extent)) {
			ret = -EUCLEAN;
			break;
		}
		u64 e = key.offset + btrfs_dev_extent_length(btrfs_item_ptr(path.nodes[0],
					path.slots[0], struct btrfs_dev_extent));

		if (e > *end)
			*end = e;
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static struct btrfs_device *device_nr(struct btrfs_fs_info *fs, u64 devid, int *nr)
{
	int i;

	for (i = 0; i < fs->num_devices; i++) {
		if (fs->devices[i].devid == devid) {
			*nr = i;
			return &fs->devices[i];
		}
	}
	return NULL;
}

/* the end of the last device extent or chunk stripe on @devid */
static int dev_allocated_end(struct btrfs_fs_info *fs, u64 devid, u64 *end)
{
	size_t c;
	int s, ret;

	ret = dev_extents_end(fs, devid, end);
	if (ret)
		return ret;
	for (c = 0; c < fs->chunk_map.nr; c++) {
		const struct map_lookup *ml = fs->chunk_map.maps[c];
		u64 size = btrfs_chunk_stripe_size(ml->type, ml->length, ml->num_stripes,
						   ml->sub_stripes);

		for (s = 0; s < ml->num_stripes; s++) {
			if (ml->stripes[s].devid == devid &&
			    ml->stripes[s].physical + size > *end)
				*end = ml->stripes[s].physical + size;
		}
	}
	return 0;
}

/*
 * Device @i's total_bytes becomes @want, the superblock's total_bytes the
 * sum of the device sizes (the device item of the chunk tree and its copy
 * in the superblock are written by the commit).
 */
static int set_dev_total_bytes(struct repair_ctx *r, int i, u64 want)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_super_block *sb = &fs->super_copy;
	struct btrfs_device *dev = &fs->devices[i];
	u64 old_super = btrfs_super_total_bytes(sb);
	u64 new_super = want;
	int j;

	/* the superblock's is the sum of the device sizes */
	for (j = 0; j < fs->num_devices; j++) {
		if (j != i)
			new_super += fs->devices[j].total_bytes;
	}
	repair_note(r, REPAIR_OP_CHANGE, true, dev->total_bytes, want,
		    "chunk tree (DEV_ITEMS DEV_ITEM %llu) total_bytes",
		    (unsigned long long)dev->devid);
	if (new_super != old_super)
		repair_note(r, REPAIR_OP_CHANGE, true, old_super, new_super,
			    "superblock total_bytes");
	btrfs_set_super_total_bytes(sb, new_super);
	dev->total_bytes = want;
	if (fs->write->dev_item_valid[i]) {
		btrfs_set_device_total_bytes(&fs->write->dev_items[i], want);
		fs->write->dev_item_dirty[i] = true;
	}
	fs->write->super_dirty = true;
	return 0;
}

/*
 * DEV_EXTENT_BEYOND_DEVICE: the device item's total_bytes is too small
 * for what is allocated on it.  When the device really holds every
 * extent, total_bytes grows to the device's size in whole sectors (what a
 * resize to the maximum gives; nothing was past the old end but the
 * extents, so nothing is exposed that the filesystem did not use).  When
 * the device is too small the stripe's end does not exist: no fix.
 */
int repair_dev_extent_beyond_device(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_device *dev;
	u64 want, end;
	int i, ret;

	dev = device_nr(fs, p->devid, &i);
	if (!dev || dev->fd < 0)
		return -ENODEV;
	ret = dev_allocated_end(fs, dev->devid, &end);
	if (ret)
		return ret;
	if (end <= dev->total_bytes)
		return 1;	/* grown earlier in the pass */
	want = dev->size / fs->sectorsize * fs->sectorsize;
	if (end > want)
		return -ENOSPC;	/* the device is too small: the space is not there */
	return set_dev_total_bytes(r, i, want);
}

/*
 * DEV_TOTAL_BYTES (the device item claims more than the device holds):
 * the size becomes what the device holds, in whole sectors, when nothing
 * (no device extent, no chunk stripe) lies past it; the superblock's
 * total_bytes loses the same.  With something past the end the space is
 * gone with whatever it held: no fix.
 */
int repair_dev_total_bytes(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_device *dev;
	u64 want, end;
	int i, ret;

	dev = device_nr(fs, p->devid, &i);
	if (!dev || dev->fd < 0)
		return -ENODEV;
	want = dev->size / fs->sectorsize * fs->sectorsize;
	if (dev->total_bytes <= want)
		return 1;
	ret = dev_allocated_end(fs, dev->devid, &end);
	if (ret)
		return ret;
	if (end > want)
		return -ENOSPC;		/* allocated space lies past the end */
	return set_dev_total_bytes(r, i, want);
}
