// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the on-disk v1 free space cache at commit (free space tree off).
 *
 * Per block group: a FREE_SPACE header item (FREE_SPACE_OBJECTID, 0,
 * group start) in the root tree naming a cache inode of the root tree,
 * whose one data extent holds 4 KiB pages: page 0 starts with a crc32c
 * per page (page 0's covers the page after the crc array) and the
 * generation, then extent entries that never cross a page.
 *
 * Every commit gives each group a fresh data extent (the old one is
 * dropped and stays pinned until the commit is on disk), as the kernel
 * does, so an interrupted commit leaves the previous cache intact.  The
 * allocations this makes (the extents themselves, tree blocks for the
 * items and extent refs) change free space again, so the contents are
 * computed only after the metadata settled, then the header items (in
 * leaves this transaction already owns) are updated and the metadata
 * settled once more: if the free space moved meanwhile, everything is
 * computed again; if it never becomes stable, the caller leaves the
 * superblock's cache_generation at -1 so that no cache is trusted.
 *
 * Groups under 100 MiB get no cache, as from the kernel (unless they have
 * one already: it is kept up to date then).
 *
 * A cache holds what is free once the commit is on disk: the in-memory
 * free space plus the ranges pinned in this transaction, the superblock
 * copies excluded.  A group whose entries do not fit its file (no
 * bitmaps are written) gets an invalid cache (generation 0, no entries).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "free-space-cache.h"
#include "transaction.h"
#include "block-group.h"
#include "extent-tree.h"
#include "file-item.h"
#include "inode.h"
#include "ctree.h"
#include "write-io.h"
#include "crc32c.h"
#include "array.h"

#define V1_PAGE			4096U
#define V1_MAX_PAGES		((V1_PAGE - sizeof(u64)) / sizeof(u32))
#define V1_INODE_FLAGS		(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW | \
				 BTRFS_INODE_NOCOMPRESS | BTRFS_INODE_PREALLOC)
#define V1_MODE			0100600U
#define V1_FILL_PASSES		8
/* the kernel writes no cache for smaller groups (their caching is cheap) */
#define V1_MIN_GROUP		(100ULL << 20)

struct v1_run {
	u64 start;
	u64 len;
};

struct v1_group {
	struct btrfs_block_group *bg;
	u64 ino;
	u64 bytenr;		/* the cache file's extent, 0: none */
	u64 size;
	bool valid;		/* the contents below describe the group */
	bool skip;		/* small group without a cache: none written */
	bool built;		/* pages and header hold a valid cache */
	struct v1_run *runs;
	size_t nr_runs;
	u8 *pages;
};

/* 16 pages per 256 MiB of block group, at least 16: the kernel's size */
static u64 v1_file_size(u64 bg_len)
{
	u64 pages = bg_len / (256ULL << 20);

	if (!pages)
		pages = 1;
	return pages * 16 * V1_PAGE;
}

/* ---- items ---- */

static int read_header(struct btrfs_fs_info *fs_info, u64 bg_start, u64 *ino)
{
	struct btrfs_key key = { BTRFS_FREE_SPACE_OBJECTID, 0, bg_start };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs_info->tree_root, &key, &path, 0, 0);
	if (ret == 0) {
		const struct btrfs_free_space_header *h;

		if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*h)) {
			ret = 1;
		} else {
			h = btrfs_item_ptr(path.nodes[0], path.slots[0],
					   struct btrfs_free_space_header);
			*ino = btrfs_disk_key_objectid(&h->location);
		}
	}
	btrfs_release_path(&path);
	return ret;
}

static int write_header(struct btrfs_trans_handle *trans, u64 bg_start, u64 ino,
			u64 generation, u64 entries)
{
	struct btrfs_root *root = &trans->fs_info->tree_root;
	struct btrfs_key key = { BTRFS_FREE_SPACE_OBJECTID, 0, bg_start };
	struct btrfs_key loc = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_free_space_header h;
	struct btrfs_path path;
	int ret;

	memset(&h, 0, sizeof(h));
	btrfs_cpu_key_to_disk(&h.location, &loc);
	btrfs_set_free_space_generation(&h, generation);
	btrfs_set_free_space_entries(&h, entries);
	btrfs_set_free_space_bitmaps(&h, 0);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) != sizeof(h)) {
		btrfs_release_path(&path);
		ret = btrfs_delete_key(trans, root, &key);
		if (ret)
			return ret < 0 ? ret : -EUCLEAN;
		ret = 1;
	}
	if (ret == 0)
		btrfs_write_item_data(&path, 0, &h, sizeof(h));
	btrfs_release_path(&path);
	if (ret > 0)
		ret = btrfs_insert_item(trans, root, &key, &h, sizeof(h));
	return ret;
}

static void fill_inode(struct btrfs_inode_item *item, u64 transid, u64 size,
		       bool valid)
{
	memset(item, 0, sizeof(*item));
	/* generation 0 tells the kernel the cache file is invalid */
	btrfs_set_inode_generation(item, valid ? transid : 0);
	btrfs_set_inode_transid(item, transid);
	btrfs_set_inode_size(item, size);
	btrfs_set_inode_nbytes(item, size);
	btrfs_set_inode_nlink(item, 1);
	btrfs_set_inode_mode(item, V1_MODE);
	btrfs_set_inode_flags(item, V1_INODE_FLAGS);
}

static int write_inode(struct btrfs_trans_handle *trans, u64 ino, u64 size, bool valid)
{
	struct btrfs_root *root = &trans->fs_info->tree_root;
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_item item;
	struct btrfs_path path;
	int ret;

	fill_inode(&item, trans->transid, size, valid);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) == sizeof(item))
		btrfs_write_item_data(&path, 0, &item, sizeof(item));
	else if (ret == 0)
		ret = -EUCLEAN;
	btrfs_release_path(&path);
	if (ret > 0)
		ret = btrfs_insert_item(trans, root, &key, &item, sizeof(item));
	return ret;
}

/* delete the cache file's extent items, dropping their data references */
static int drop_file_extents(struct btrfs_trans_handle *trans, u64 ino)
{
	struct btrfs_root *root = &trans->fs_info->tree_root;
	struct btrfs_key key;
	struct btrfs_path path;
	int ret;

	for (;;) {
		const struct btrfs_file_extent_item *fi;
		u64 disk = 0, disk_len = 0, ref_off = 0;
		u32 size;

		key.objectid = ino;
		key.type = BTRFS_EXTENT_DATA_KEY;
		key.offset = 0;
		btrfs_init_path(&path);
		ret = btrfs_search_slot(trans, root, &key, &path, -1, 1);
		if (ret < 0)
			break;
		ret = btrfs_path_fixup_slot(root, &path);
		if (ret) {
			ret = ret > 0 ? 0 : ret;
			break;
		}
		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY) {
			ret = 0;
			break;
		}
		size = btrfs_item_size(path.nodes[0], path.slots[0]);
		fi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_file_extent_item);
		if (size >= sizeof(*fi) &&
		    btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_INLINE) {
			disk = btrfs_file_extent_disk_bytenr(fi);
			disk_len = btrfs_file_extent_disk_num_bytes(fi);
			ref_off = key.offset - btrfs_file_extent_offset(fi);
		}
		ret = btrfs_del_item(trans, root, &path);
		btrfs_release_path(&path);
		if (!ret && disk)
			ret = btrfs_dec_data_ref(trans, disk, disk_len,
						 BTRFS_ROOT_TREE_OBJECTID, ino, ref_off);
		if (ret)
			return ret;
	}
	btrfs_release_path(&path);
	return ret;
}

/*
 * Is there data space for @size bytes without a new chunk?  A cache is
 * not worth a chunk: without room the group just gets no valid cache.
 */
static bool data_space_available(struct btrfs_fs_info *fs_info, u64 size)
{
	struct btrfs_write_state *ws = fs_info->write;
	u64 hint = ws->alloc_hint[0], start;

	if (btrfs_find_free_extent(fs_info, BTRFS_BLOCK_GROUP_DATA, size,
				   fs_info->sectorsize, &start))
		return false;
	/* give it back: btrfs_alloc_data_extent takes it with its refs */
	if (btrfs_add_free_range(fs_info, start, size))
		return false;
	ws->alloc_hint[0] = hint;
	return true;
}

/* a cache inode for the group, a fresh extent, inode and header items */
/* another group's header names the same inode (a damaged root tree)? */
static bool ino_taken(const struct v1_group *groups, const struct v1_group *g)
{
	const struct v1_group *o;

	for (o = groups; o < g; o++) {
		if (!o->skip && o->ino == g->ino)
			return true;
	}
	return false;
}

static int setup_group(struct btrfs_trans_handle *trans, struct v1_group *groups,
		       struct v1_group *g, u64 *next_ino)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_file_extent_params p = { 0 };
	struct btrfs_inode_item old;
	int ret;

	ret = read_header(fs_info, g->bg->start, &g->ino);
	if (ret < 0)
		return ret;
	if (ret > 0 && g->bg->length < V1_MIN_GROUP) {
		g->skip = true;
		return 0;
	}
	if (ret > 0 || g->ino < BTRFS_FIRST_FREE_OBJECTID ||
	    g->ino > BTRFS_LAST_FREE_OBJECTID ||
	    btrfs_read_inode(&fs_info->tree_root, g->ino, &old) ||
	    ino_taken(groups, g))
		g->ino = (*next_ino)++;
	ret = drop_file_extents(trans, g->ino);
	if (ret)
		return ret;
	g->size = v1_file_size(g->bg->length);
	g->bytenr = 0;
	if (g->size / V1_PAGE <= V1_MAX_PAGES && data_space_available(fs_info, g->size)) {
		ret = btrfs_alloc_data_extent(trans, g->size, BTRFS_ROOT_TREE_OBJECTID,
					      g->ino, 0, &g->bytenr);
		if (ret)
			return ret;
		p.disk_bytenr = g->bytenr;
		p.disk_num_bytes = g->size;
		p.num_bytes = g->size;
		p.ram_bytes = g->size;
		p.type = BTRFS_FILE_EXTENT_REG;
		ret = btrfs_insert_file_extent(trans, &fs_info->tree_root, g->ino, 0, &p);
		if (ret)
			return ret;
	}
	ret = write_inode(trans, g->ino, g->bytenr ? g->size : 0, g->bytenr != 0);
	if (!ret)
		ret = write_header(trans, g->bg->start, g->ino, 0, 0);
	return ret;
}

/* ---- contents ---- */

static int run_cmp(const void *x, const void *y)
{
	const struct v1_run *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

static int runs_add(struct v1_run **runs, size_t *nr, size_t *alloc, u64 start, u64 len)
{
	if (ARRAY_RESERVE(*runs, *alloc, *nr + 1, 64))
		return -ENOMEM;
	(*runs)[*nr].start = start;
	(*runs)[*nr].len = len;
	(*nr)++;
	return 0;
}

/*
 * What will be free in @bg once the commit is on disk, as sorted maximal
 * runs.  1 when the pieces overlap or do not add up (no cache then).
 */
static int compute_runs(struct btrfs_fs_info *fs_info, struct btrfs_block_group *bg,
			struct v1_run **out, size_t *nr_out)
{
	struct btrfs_write_state *ws = fs_info->write;
	u64 bg_end = bg->start + bg->length, start, len, total = 0;
	struct v1_run *runs = NULL;
	size_t nr = 0, alloc = 0, i, n;
	struct extent_state *st;
	u64 pos = 0;
	int ret = 0;

	while (!ret && btrfs_block_group_next_free(bg, &pos, &start, &len) == 0)
		ret = runs_add(&runs, &nr, &alloc, start, len);
	extent_io_tree_for_each(st, &ws->pinned) {
		u64 s = st->start, e = st->end + 1;

		if (ret || e <= bg->start || s >= bg_end)
			continue;
		s = s < bg->start ? bg->start : s;
		e = e > bg_end ? bg_end : e;
		ret = runs_add(&runs, &nr, &alloc, s, e - s);
	}
	if (ret) {
		free(runs);
		return ret;
	}
	if (nr)
		qsort(runs, nr, sizeof(*runs), run_cmp);
	for (i = 0, n = 0; i < nr; i++) {
		if (n && runs[i].start < runs[n - 1].start + runs[n - 1].len)
			ret = 1;	/* pinned and free at once: inconsistent */
		total += runs[i].len;
		if (n && runs[i].start == runs[n - 1].start + runs[n - 1].len)
			runs[n - 1].len += runs[i].len;
		else
			runs[n++] = runs[i];
	}
	if (bg->used + bg->super_bytes > bg->length ||
	    total != bg->length - bg->used - bg->super_bytes)
		ret = 1;
	*out = runs;
	*nr_out = n;
	return ret;
}

/* the cache file's pages for @g's runs; false when they do not fit */
static bool build_pages(struct v1_group *g, u64 generation)
{
	u32 nr_pages = (u32)(g->size / V1_PAGE), page = 0, off, i;
	size_t k;

	free(g->pages);
	g->pages = calloc(1, g->size);
	if (!g->pages)
		return false;
	off = nr_pages * sizeof(u32);
	put_unaligned_le64(generation, g->pages + off);
	off += sizeof(u64);
	for (k = 0; k < g->nr_runs; k++) {
		u8 *e;

		if (off + sizeof(struct btrfs_free_space_entry) > V1_PAGE) {
			page++;
			off = 0;
		}
		if (page >= nr_pages)
			return false;
		e = g->pages + (u64)page * V1_PAGE + off;
		put_unaligned_le64(g->runs[k].start, e);
		put_unaligned_le64(g->runs[k].len, e + 8);
		e[16] = BTRFS_FREE_SPACE_EXTENT;
		off += sizeof(struct btrfs_free_space_entry);
	}
	for (i = 0; i < nr_pages; i++) {
		u32 skip = i ? 0 : nr_pages * sizeof(u32);

		put_unaligned_le32(crc32c_value(g->pages + (u64)i * V1_PAGE + skip,
						V1_PAGE - skip),
				   g->pages + i * sizeof(u32));
	}
	return true;
}

/* compute every group's runs; true when all equal the previous ones */
static int compute_all(struct btrfs_fs_info *fs_info, struct v1_group *groups,
		       size_t nr, bool *same)
{
	size_t i;
	int ret;

	*same = true;
	for (i = 0; i < nr; i++) {
		struct v1_group *g = &groups[i];
		struct v1_run *runs = NULL;
		size_t n = 0;

		if (g->skip)
			continue;
		ret = compute_runs(fs_info, g->bg, &runs, &n);
		if (ret < 0)
			return ret;
		if (ret > 0 || n != g->nr_runs ||
		    (n && memcmp(runs, g->runs, n * sizeof(*runs))))
			*same = false;
		if (ret > 0 && g->valid)
			*same = false;
		free(g->runs);
		g->runs = runs;
		g->nr_runs = n;
		g->valid = ret == 0 && g->bytenr;
	}
	return 0;
}

static int fill_headers(struct btrfs_trans_handle *trans, struct v1_group *groups,
			size_t nr)
{
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct v1_group *g = &groups[i];

		if (g->skip)
			continue;
		g->built = g->valid && build_pages(g, trans->transid);
		if (g->bytenr) {
			/* its generation says whether the file holds a cache (0: not) */
			ret = write_inode(trans, g->ino, g->size, g->built);
			if (ret)
				return ret;
		}
		ret = write_header(trans, g->bg->start, g->ino,
				   g->built ? trans->transid : 0,
				   g->built ? g->nr_runs : 0);
		if (ret)
			return ret;
	}
	return 0;
}

static int write_contents(struct btrfs_fs_info *fs_info, struct v1_group *groups,
			  size_t nr)
{
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct v1_group *g = &groups[i];
		u8 *zero;

		if (g->skip || !g->bytenr)
			continue;
		if (g->built) {
			ret = btrfs_write_logical(fs_info, g->bytenr, g->pages, g->size);
		} else {
			zero = calloc(1, g->size);
			if (!zero)
				return -ENOMEM;
			ret = btrfs_write_logical(fs_info, g->bytenr, zero, g->size);
			free(zero);
		}
		if (ret)
			return ret;
		g->bg->v1_dirty = false;
	}
	return 0;
}

static void free_groups(struct v1_group *groups, size_t nr)
{
	size_t i;

	for (i = 0; groups && i < nr; i++) {
		free(groups[i].runs);
		free(groups[i].pages);
	}
	free(groups);
}

int btrfs_write_v1_space_caches(struct btrfs_trans_handle *trans,
				int (*settle)(struct btrfs_trans_handle *trans),
				bool *valid)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = fs_info->write;
	size_t nr = btrfs_nr_block_groups(fs_info), i;
	struct v1_group *groups;
	u64 next_ino;
	bool same;
	int pass, ret;

	*valid = false;
	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) ||
	    ws->creating || ws->finishing || !nr)
		return 0;	/* mkfs writes no cache, like mkfs.btrfs */
	ret = btrfs_find_highest_objectid(&fs_info->tree_root, &next_ino);
	if (ret)
		return ret;
	next_ino++;
	groups = calloc(nr, sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		groups[i].bg = btrfs_block_group_nr(fs_info, i);
	for (i = 0; i < nr; i++) {
		ret = setup_group(trans, groups, &groups[i], &next_ino);
		if (ret)
			goto out;
	}
	ret = settle(trans);
	if (ret)
		goto out;
	/* the runs before the headers change, then after: they must agree */
	ret = compute_all(fs_info, groups, nr, &same);
	for (pass = 0; !ret && pass < V1_FILL_PASSES; pass++) {
		ret = fill_headers(trans, groups, nr);
		if (!ret)
			ret = settle(trans);
		if (!ret)
			ret = compute_all(fs_info, groups, nr, &same);
		if (ret || !same)
			continue;
		ret = write_contents(fs_info, groups, nr);
		if (!ret)
			*valid = true;
		goto out;
	}
	/* never stable: the caller keeps every cache untrusted */
out:
	free_groups(groups, nr);
	return ret;
}
