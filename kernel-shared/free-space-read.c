// SPDX-License-Identifier: GPL-2.0
/*
 * Block groups and their free space, read only (free-space-read.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include "free-space-read.h"
#include "block-group.h"
#include "extent-tree.h"
#include "ctree.h"
#include "volumes.h"
#include "array.h"

static void read_bg_item(struct btrfs_fs_info *fs_info, struct bg_info *bg)
{
	struct btrfs_key key = { bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
	struct btrfs_root *root = btrfs_block_group_root(fs_info);
	struct btrfs_block_group_item item;
	struct btrfs_path path;

	if (!root->node)
		return;
	btrfs_init_path(&path);
	if (btrfs_search_slot(NULL, root, &key, &path, 0, 0) == 0 &&
	    btrfs_item_size(path.nodes[0], path.slots[0]) == sizeof(item)) {
		memcpy(&item, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), sizeof(item));
		bg->used = btrfs_block_group_used(&item);
		bg->has_item = true;
	}
	btrfs_release_path(&path);
}

int btrfs_read_bg_infos(struct btrfs_fs_info *fs_info, struct bg_info **out,
			size_t *nr, size_t *nr_missing)
{
	const struct chunk_map *map = &fs_info->chunk_map;
	struct bg_info *bgs;
	size_t i;

	*out = NULL;
	*nr = 0;
	*nr_missing = 0;
	bgs = calloc(map->nr ? map->nr : 1, sizeof(*bgs));
	if (!bgs)
		return -ENOMEM;
	for (i = 0; i < map->nr; i++) {
		const struct map_lookup *ml = map->maps[i];

		bgs[i].start = ml->logical;
		bgs[i].length = ml->length;
		bgs[i].flags = ml->type;
		bgs[i].num_stripes = ml->num_stripes;
		bgs[i].sub_stripes = ml->sub_stripes;
		read_bg_item(fs_info, &bgs[i]);
		if (!bgs[i].has_item)
			(*nr_missing)++;
	}
	*out = bgs;
	*nr = map->nr;
	return 0;
}

int btrfs_bg_super_ranges(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
			  u64 *starts, u64 *lens, int max)
{
	struct btrfs_block_group tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.start = bg->start;
	tmp.length = bg->length;
	tmp.flags = bg->flags;
	return btrfs_super_stripe_ranges(fs_info, &tmp, starts, lens, max);
}

/* word @k of a little-endian bitmap of @nbits bits, bits past the end clear */
static u64 bitmap_word(const u8 *bm, u64 k, u64 nbits)
{
	u64 w = 0, byte = k * 8, avail = (nbits + 7) / 8 - byte;

	memcpy(&w, bm + byte, avail < 8 ? avail : 8);
	w = le64toh(w);
	if (nbits - k * 64 < 64)
		w &= (1ULL << (nbits - k * 64)) - 1;
	return w;
}

/*
 * The set bits of a bitmap item as ranges, one bit per sector.  Runs are
 * found a word at a time (count trailing zeros of the word, and of the
 * word with the bits below the run set, complemented); a run that reaches
 * the end of a word goes on in the next.  A bitmap item covers 128 MiB in
 * 4 KiB sectors: 32,768 bits, 512 words.
 */
void btrfs_fst_bitmap_ranges(struct range_list *out, const u8 *bm, u64 start,
			     u64 nbits, u32 sectorsize)
{
	u64 k, w, base, first = 0, ones;
	bool in_run = false;
	unsigned int s, e;

	for (k = 0; k * 64 < nbits; k++) {
		w = bitmap_word(bm, k, nbits);
		base = k * 64;
		if (in_run) {
			if (w == ~0ULL)
				continue;
			e = (unsigned int)__builtin_ctzll(~w);
			range_list_add(out, start + first * sectorsize,
				       (base + e - first) * sectorsize);
			in_run = false;
			w &= ~0ULL << e;
		}
		while (w) {
			s = (unsigned int)__builtin_ctzll(w);
			ones = w | ((1ULL << s) - 1);
			if (ones == ~0ULL) {
				in_run = true;
				first = base + s;
				break;
			}
			e = (unsigned int)__builtin_ctzll(~ones);
			range_list_add(out, start + (base + s) * sectorsize,
				       (u64)(e - s) * sectorsize);
			w &= ~0ULL << e;
		}
	}
	if (in_run)
		range_list_add(out, start + first * sectorsize, (nbits - first) * sectorsize);
}

/* one FREE_SPACE_EXTENT or _BITMAP item of the group; 0 or -EUCLEAN */
static int fst_item(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
		    const struct extent_buffer *leaf, int slot, const struct btrfs_key *key,
		    struct range_list *out, char *why, size_t why_len)
{
	u64 end = bg->start + bg->length, nbits;
	u32 ss = fs_info->sectorsize;

	if (!key->offset || key->offset > end - key->objectid) {
		snprintf(why, why_len, "free space item (%llu %u %llu) runs past the end of block group %llu",
			 (unsigned long long)key->objectid, key->type,
			 (unsigned long long)key->offset, (unsigned long long)bg->start);
		return -EUCLEAN;
	}
	if (key->type == BTRFS_FREE_SPACE_EXTENT_KEY) {
		range_list_add(out, key->objectid, key->offset);
		return 0;
	}
	nbits = key->offset / ss;
	if (key->offset % ss || key->objectid % ss ||
	    btrfs_item_size(leaf, slot) != (nbits + 7) / 8) {
		snprintf(why, why_len, "free space bitmap (%llu %u %llu) has size %u, expected %llu",
			 (unsigned long long)key->objectid, key->type,
			 (unsigned long long)key->offset, btrfs_item_size(leaf, slot),
			 (unsigned long long)((nbits + 7) / 8));
		return -EUCLEAN;
	}
	btrfs_fst_bitmap_ranges(out, btrfs_item_ptr(leaf, slot, const u8), key->objectid, nbits, ss);
	return 0;
}

int btrfs_fst_read_bg(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
		      struct fst_bg_info *info, struct range_list *out,
		      char *why, size_t why_len)
{
	struct btrfs_root *root = &fs_info->free_space_root;
	struct btrfs_key key = { bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
	u64 end = bg->start + bg->length;
	struct btrfs_path path;
	int ret;

	memset(info, 0, sizeof(*info));
	if (!root->node) {
		if (!btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
			snprintf(why, why_len, "the filesystem has no free space tree");
			return -ENOENT;
		}
		snprintf(why, why_len, "the free space tree cannot be read");
		return -EIO;
	}
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret > 0) {
		snprintf(why, why_len, "no FREE_SPACE_INFO item for block group %llu",
			 (unsigned long long)bg->start);
		ret = -ENOENT;
	}
	if (ret < 0)
		goto out;
	if (btrfs_item_size(path.nodes[0], path.slots[0]) == sizeof(struct btrfs_free_space_info)) {
		const struct btrfs_free_space_info *fi =
			btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_free_space_info);

		info->found = true;
		info->extent_count = btrfs_free_space_extent_count(fi);
		info->flags = btrfs_free_space_flags(fi);
	}
	for (;;) {
		ret = btrfs_next_item(root, &path);
		if (ret)
			break;
		btrfs_path_key(&path, &key);
		if (key.objectid >= end)
			break;
		if (key.type != BTRFS_FREE_SPACE_EXTENT_KEY &&
		    key.type != BTRFS_FREE_SPACE_BITMAP_KEY)
			continue;
		ret = fst_item(fs_info, bg, path.nodes[0], path.slots[0], &key, out,
			       why, why_len);
		if (ret)
			break;
	}
	if (ret == 1)
		ret = 0;
	else if (ret < 0 && ret != -EUCLEAN)
		snprintf(why, why_len, "free space tree block after (%llu %u %llu) cannot be read",
			 (unsigned long long)key.objectid, key.type, (unsigned long long)key.offset);
out:
	btrfs_release_path(&path);
	if (!ret && out->oom)
		ret = -ENOMEM;
	return ret;
}

int btrfs_extent_gaps_read_bg(struct btrfs_fs_info *fs_info, const struct bg_info *bg,
			      struct range_list *out)
{
	struct btrfs_root *root = btrfs_extent_root(fs_info);
	struct btrfs_key key = { bg->start, 0, 0 };
	u64 end = bg->start + bg->length, pos = bg->start;
	struct btrfs_path path;
	int ret;

	if (!root->node)
		return -EIO;
	btrfs_init_path(&path);
	/* an extent starting below the group may reach into it: start one back */
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret >= 0)
		ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		u64 len, s;

		btrfs_path_key(&path, &key);
		if (key.objectid >= end)
			break;
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			len = key.type == BTRFS_EXTENT_ITEM_KEY ? key.offset : fs_info->nodesize;
			s = key.objectid;
			if (s > pos)
				range_list_add(out, pos, s - pos);
			if (s + len > pos)
				pos = s + len < s ? end : s + len;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	if (pos < end)
		range_list_add(out, pos, end - pos);
	return out->oom ? -ENOMEM : 0;
}
