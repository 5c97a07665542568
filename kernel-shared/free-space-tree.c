// SPDX-License-Identifier: GPL-2.0
/*
 * The free space tree (v2), kept in step with the extent tree at commit.
 *
 * For each block group whose allocations changed, the wanted entries are
 * derived from the extent tree (free = the group minus its extents; the
 * superblock copies count as free, as the kernel keeps them) and compared
 * with the entries on disk; only the differences are written.  A group
 * whose extents would need more item space than bitmaps switches to
 * bitmaps, and back, with the kernel's thresholds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "free-space-tree.h"
#include "transaction.h"
#include "block-group.h"
#include "extent-tree.h"
#include "ctree.h"
#include "array.h"

#define FST_BITMAP_BITS		2048	/* bits of one bitmap item */
#define FST_BITMAP_BYTES	(FST_BITMAP_BITS / 8)

struct fst_entry {
	struct btrfs_key key;
	u32 size;
	u8 *data;	/* NULL when size is 0 */
};

struct fst_list {
	struct fst_entry *e;
	size_t nr;
	size_t alloc;
};

static void fst_list_free(struct fst_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->e[i].data);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static int fst_list_add(struct fst_list *l, const struct btrfs_key *key,
			const void *data, u32 size)
{
	struct fst_entry *e;

	if (ARRAY_RESERVE(l->e, l->alloc, l->nr + 1, 64))
		return -ENOMEM;
	e = &l->e[l->nr];
	e->key = *key;
	e->size = size;
	e->data = NULL;
	if (size) {
		e->data = malloc(size);
		if (!e->data)
			return -ENOMEM;
		memcpy(e->data, data, size);
	}
	l->nr++;
	return 0;
}

/* free ranges of @bg according to the extent tree */
int btrfs_block_group_free_ranges(struct btrfs_fs_info *fs_info,
				  const struct btrfs_block_group *bg,
				  struct range_list *ranges)
{
	struct btrfs_root *root = btrfs_extent_root(fs_info);
	struct btrfs_key key = { bg->start, 0, 0 };
	u64 end = bg->start + bg->length, pos = bg->start;
	struct btrfs_path path;
	int ret;

	range_list_init(ranges);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		u64 len;

		btrfs_path_key(&path, &key);
		if (key.objectid >= end)
			break;
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			len = key.type == BTRFS_EXTENT_ITEM_KEY ? key.offset : fs_info->nodesize;
			if (key.objectid > pos)
				range_list_add(ranges, pos, key.objectid - pos);
			if (key.objectid + len > pos)
				pos = key.objectid + len;
		}
		ret = btrfs_next_item(root, &path);
	}
	if (ret < 0)
		goto out;
	ret = 0;
	if (pos < end)
		range_list_add(ranges, pos, end - pos);
	if (ranges->oom)
		ret = -ENOMEM;
out:
	btrfs_release_path(&path);
	if (ret)
		range_list_release(ranges);
	return ret;
}

/* above this many extents bitmaps take less room (the kernel's rule) */
static u64 bitmap_high_thresh(const struct btrfs_fs_info *fs_info,
			      const struct btrfs_block_group *bg)
{
	u64 range = (u64)fs_info->sectorsize * FST_BITMAP_BITS;
	u64 nr_bitmaps = (bg->length + range - 1) / range;

	return nr_bitmaps * (sizeof(struct btrfs_item) + FST_BITMAP_BYTES) /
	       sizeof(struct btrfs_item);
}

static int add_bitmaps(const struct btrfs_fs_info *fs_info,
		       const struct btrfs_block_group *bg,
		       const struct range_list *r, struct fst_list *want)
{
	u64 range = (u64)fs_info->sectorsize * FST_BITMAP_BITS;
	u64 end = bg->start + bg->length, off;
	u8 bits[FST_BITMAP_BYTES];
	size_t i = 0;
	int ret;

	for (off = bg->start; off < end; off += range) {
		u64 len = end - off < range ? end - off : range;
		u64 nbits = len / fs_info->sectorsize;
		struct btrfs_key key = { off, BTRFS_FREE_SPACE_BITMAP_KEY, len };

		memset(bits, 0, sizeof(bits));
		while (i < r->nr && r->r[i].end <= off)
			i++;
		for (size_t j = i; j < r->nr && r->r[j].start < off + len; j++) {
			u64 s = r->r[j].start > off ? r->r[j].start : off;
			u64 e = r->r[j].end < off + len ? r->r[j].end : off + len;
			u64 b;

			for (b = (s - off) / fs_info->sectorsize;
			     b < (e - off) / fs_info->sectorsize; b++)
				bits[b / 8] |= 1U << (b % 8);
		}
		ret = fst_list_add(want, &key, bits, (u32)((nbits + 7) / 8));
		if (ret)
			return ret;
	}
	return 0;
}

/* the entries @bg should have; @use_bitmaps: what the group uses now */
static int wanted_entries(struct btrfs_fs_info *fs_info,
			  const struct btrfs_block_group *bg, bool use_bitmaps,
			  struct fst_list *want)
{
	struct range_list r;
	struct btrfs_free_space_info info;
	struct btrfs_key key = { bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
	u64 high = bitmap_high_thresh(fs_info, bg);
	u64 low = high > 100 ? high - 100 : 0;
	size_t i;
	int ret;

	ret = btrfs_block_group_free_ranges(fs_info, bg, &r);
	if (ret)
		return ret;
	if (r.nr > high)
		use_bitmaps = true;
	else if (r.nr < low || !use_bitmaps)
		use_bitmaps = false;
	btrfs_set_free_space_extent_count(&info, (u32)r.nr);
	btrfs_set_free_space_flags(&info, use_bitmaps ? BTRFS_FREE_SPACE_USING_BITMAPS : 0);
	ret = fst_list_add(want, &key, &info, sizeof(info));
	if (!ret && use_bitmaps)
		ret = add_bitmaps(fs_info, bg, &r, want);
	for (i = 0; !ret && !use_bitmaps && i < r.nr; i++) {
		struct btrfs_key k = { r.r[i].start, BTRFS_FREE_SPACE_EXTENT_KEY,
				       r.r[i].end - r.r[i].start };

		ret = fst_list_add(want, &k, NULL, 0);
	}
	range_list_release(&r);
	return ret;
}

static bool fst_key_in_bg(const struct btrfs_key *key, const struct btrfs_block_group *bg)
{
	if (key->objectid < bg->start || key->objectid >= bg->start + bg->length)
		return false;
	return key->type == BTRFS_FREE_SPACE_INFO_KEY ||
	       key->type == BTRFS_FREE_SPACE_EXTENT_KEY ||
	       key->type == BTRFS_FREE_SPACE_BITMAP_KEY;
}

/* the entries on disk for @bg */
static int existing_entries(struct btrfs_fs_info *fs_info,
			    const struct btrfs_block_group *bg, struct fst_list *have,
			    bool *bitmaps)
{
	struct btrfs_root *root = &fs_info->free_space_root;
	struct btrfs_key key = { bg->start, 0, 0 };
	struct btrfs_path path;
	int ret;

	*bitmaps = false;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		u32 size = btrfs_item_size(leaf, path.slots[0]);
		void *data = btrfs_item_ptr_raw(leaf, path.slots[0]);

		btrfs_path_key(&path, &key);
		if (key.objectid >= bg->start + bg->length)
			break;
		if (fst_key_in_bg(&key, bg)) {
			if (key.type == BTRFS_FREE_SPACE_INFO_KEY &&
			    size == sizeof(struct btrfs_free_space_info))
				*bitmaps = btrfs_free_space_flags(data) &
					   BTRFS_FREE_SPACE_USING_BITMAPS;
			ret = fst_list_add(have, &key, data, size);
			if (ret)
				goto out;
		}
		ret = btrfs_next_item(root, &path);
	}
	ret = ret < 0 ? ret : 0;
out:
	btrfs_release_path(&path);
	return ret;
}

static int update_entry(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			const struct fst_entry *e)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, &e->key, &path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_item_size(path.nodes[0], path.slots[0]) != e->size)
		ret = -EUCLEAN;
	if (!ret)
		btrfs_write_item_data(&path, 0, e->data, e->size);
	btrfs_release_path(&path);
	return ret;
}

static int sync_block_group(struct btrfs_trans_handle *trans,
			    struct btrfs_block_group *bg)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *root = &fs_info->free_space_root;
	struct fst_list have = { 0 }, want = { 0 };
	size_t i = 0, j = 0;
	bool bitmaps;
	int ret;

	ret = existing_entries(fs_info, bg, &have, &bitmaps);
	if (!ret)
		ret = wanted_entries(fs_info, bg, bitmaps, &want);
	while (!ret && (i < have.nr || j < want.nr)) {
		int cmp;

		if (i == have.nr)
			cmp = 1;
		else if (j == want.nr)
			cmp = -1;
		else
			cmp = btrfs_comp_cpu_keys(&have.e[i].key, &want.e[j].key);
		if (cmp < 0) {
			ret = btrfs_delete_key(trans, root, &have.e[i].key);
			i++;
		} else if (cmp > 0) {
			ret = btrfs_insert_item(trans, root, &want.e[j].key,
						want.e[j].data, want.e[j].size);
			j++;
		} else {
			if (have.e[i].size != want.e[j].size) {
				ret = btrfs_delete_key(trans, root, &have.e[i].key);
				if (!ret)
					ret = btrfs_insert_item(trans, root, &want.e[j].key,
								want.e[j].data,
								want.e[j].size);
			} else if (want.e[j].size &&
				   memcmp(have.e[i].data, want.e[j].data, want.e[j].size)) {
				ret = update_entry(trans, root, &want.e[j]);
			}
			i++;
			j++;
		}
	}
	fst_list_free(&have);
	fst_list_free(&want);
	return ret;
}

bool btrfs_free_space_tree_dirty(const struct btrfs_fs_info *fs_info)
{
	size_t i, n = btrfs_nr_block_groups(fs_info);

	if (!btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		return false;
	for (i = 0; i < n; i++) {
		if (btrfs_block_group_nr((struct btrfs_fs_info *)fs_info, i)->fst_dirty)
			return true;
	}
	return false;
}

int btrfs_update_free_space_tree(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	size_t i, n = btrfs_nr_block_groups(fs_info);
	int ret;

	for (i = 0; i < n; i++) {
		struct btrfs_block_group *bg = btrfs_block_group_nr(fs_info, i);

		if (!bg->fst_dirty)
			continue;
		bg->fst_dirty = false;
		if (!btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) ||
		    !fs_info->free_space_root.node)
			continue;
		ret = sync_block_group(trans, bg);
		if (ret)
			return ret;
		/*
		 * The entries just written changed blocks: the extent tree
		 * is behind until the queued refs run, and other groups'
		 * entries would be computed from it.  Commit comes back.
		 */
		if (btrfs_have_delayed_refs(fs_info))
			return 0;
	}
	return 0;
}
