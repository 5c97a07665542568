// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions of the superblock, device, block group and free space
 * findings (phases 1, 2, 5 and 6), the table of every action, and the
 * global rebuild options (--clear-log, --clear-space-cache).
 *
 * Each action reads the value it changes from the filesystem (the old
 * value it reports is what is on disk, not what the finding said) and
 * applies the new one in the pass's transaction.  Counters the commit
 * recomputes (superblock bytes_used, device items, block group items,
 * free space tree entries) are fixed in the write state and written by
 * the commit.  The global options print their plan lines without a
 * transaction in the dry run (repair.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "repair.h"
#include "repair-inode.h"
#include "repair-chunks.h"
#include "repair-tree-block.h"
#include "repair-names.h"
#include "repair-refs.h"
#include "repair-overlap.h"
#include "repair-key-range.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/block-group.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"

/* ---- phase 1: superblock ---- */

static int fix_super_bytes_used(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_super_block *sb = &r->fs_info->super_copy;
	/* commit writes the sum of the block groups' used */
	u64 want = btrfs_total_used_bytes(r->fs_info);

	(void)p;
	r->fs_info->write->super_dirty = true;
	if (want == btrfs_super_bytes_used(sb))
		return 1;	/* the groups were wrong, not the superblock */
	repair_note(r, REPAIR_OP_CHANGE, true, btrfs_super_bytes_used(sb), want,
		    "superblock bytes_used");
	return 0;
}

/*
 * The sum of the device sizes, counted again: a size fixed earlier in the
 * pass (SUPER_FIELD alignment) counts.
 */
int fix_super_total_bytes(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_super_block *sb = &r->fs_info->super_copy;
	u64 want = 0;
	int i;

	(void)p;
	for (i = 0; i < r->fs_info->num_devices; i++)
		want += r->fs_info->devices[i].total_bytes;
	if (want == btrfs_super_total_bytes(sb))
		return 1;
	repair_note(r, REPAIR_OP_CHANGE, true, btrfs_super_total_bytes(sb), want,
		    "superblock total_bytes");
	btrfs_set_super_total_bytes(sb, want);
	r->fs_info->write->super_dirty = true;
	return 0;
}

/* every commit writes all the mirrors from the primary */
static int fix_super_mirror(struct repair_ctx *r, const struct problem_ctx *p)
{
	repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
		    "superblock mirror %d at %llu from the primary", p->mirror,
		    (unsigned long long)p->bytenr);
	r->fs_info->write->super_dirty = true;
	return 0;
}

/* ---- phase 2: devices ---- */

/* bytes_used of device @devid as its chunk tree item holds it */
static int read_dev_bytes_used(struct btrfs_fs_info *fs, u64 devid, u64 *used)
{
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, devid };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	/* read only: commit rewrites the device item from the write state */
	ret = btrfs_search_slot(NULL, &fs->chunk_root, &key, &path, 0, 0);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	*used = btrfs_device_bytes_used(btrfs_item_ptr(path.nodes[0], path.slots[0],
						       struct btrfs_dev_item));
	btrfs_release_path(&path);
	return 0;
}

/* the index of device @devid in the write state; -ENOENT when it has none */
static int write_state_device(struct btrfs_fs_info *fs, u64 devid)
{
	struct btrfs_write_state *ws = fs->write;
	int i;

	for (i = 0; i < fs->num_devices; i++)
		if (ws->dev_item_valid[i] && btrfs_device_id(&ws->dev_items[i]) == devid)
			return i;
	return -ENOENT;
}

/* device @i's bytes_used becomes @used, written by the commit */
static void set_dev_bytes_used(struct btrfs_fs_info *fs, int i, u64 used)
{
	struct btrfs_write_state *ws = fs->write;

	btrfs_set_device_bytes_used(&ws->dev_items[i], used);
	fs->devices[i].bytes_used = used;
	ws->dev_item_dirty[i] = true;
}

/* the length of every dev extent of @devid, now (one restored earlier counts) */
static int sum_dev_extents(struct btrfs_fs_info *fs, u64 devid, u64 *sum)
{
	struct btrfs_key key = { devid, BTRFS_DEV_EXTENT_KEY, 0 };
	struct btrfs_path path;
	int ret;

	*sum = 0;
	ret = btrfs_search_first(&fs->dev_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != devid || key.type != BTRFS_DEV_EXTENT_KEY)
			break;
		if (btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(struct btrfs_dev_extent))
			*sum += btrfs_dev_extent_length(btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_dev_extent));
		ret = btrfs_next_item(&fs->dev_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static int fix_dev_bytes_used(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	u64 old, want;
	int ret, i;

	ret = read_dev_bytes_used(fs, p->devid, &old);
	if (ret)
		return ret;
	/* a dev extent restored earlier in this transaction counts */
	ret = sum_dev_extents(fs, p->devid, &want);
	if (ret)
		return ret;
	if (want == old)
		return 1;
	repair_note(r, REPAIR_OP_CHANGE, true, old, want,
		    "chunk tree (DEV_ITEMS DEV_ITEM %llu) bytes_used",
		    (unsigned long long)p->devid);
	i = write_state_device(fs, p->devid);
	if (i < 0)
		return i;
	set_dev_bytes_used(fs, i, want);
	return 0;
}

/* does a chunk stripe of @devid overlap [physical, physical + len)? */
static int stripe_overlaps(struct btrfs_fs_info *fs, u64 devid, u64 physical, u64 len)
{
	struct btrfs_root *root = &fs->chunk_root;
	struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret, found = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && !found) {
		const struct btrfs_chunk *c;
		u32 size;
		int i, n;

		btrfs_path_key(&path, &key);
		if (key.type != BTRFS_CHUNK_ITEM_KEY)
			goto next;
		c = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_chunk);
		size = btrfs_item_size(path.nodes[0], path.slots[0]);
		n = btrfs_chunk_num_stripes(c);
		if (size < sizeof(*c) || !n ||
		    size < sizeof(*c) + (u32)(n - 1) * sizeof(struct btrfs_stripe))
			goto next;
		for (i = 0; i < n; i++) {
			const struct btrfs_stripe *st = btrfs_chunk_stripe(c, i);
			u64 s = btrfs_stripe_offset(st);

			/* a stripe is at most the chunk's length long */
			if (btrfs_stripe_devid(st) == devid && s < physical + len &&
			    physical < s + btrfs_chunk_length(c))
				found = 1;
		}
next:
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : found;
}

/*
 * A device extent no chunk stripe uses: deleted, and the device's
 * bytes_used becomes the length of the dev extents left (commit rewrites
 * the device item); it may or may not have counted the orphan.
 */
static int fix_dev_extent_no_chunk(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_key key = { p->devid, BTRFS_DEV_EXTENT_KEY, p->bytenr };
	struct btrfs_dev_alloc *da;
	struct btrfs_path path;
	size_t j;
	u64 old, used;
	int ret, i;

	ret = stripe_overlaps(fs, p->devid, p->bytenr, p->len);
	if (ret)
		return ret < 0 ? ret : -EEXIST;	/* not an orphan: leave it */
	ret = read_dev_bytes_used(fs, p->devid, &old);
	if (!ret)
		ret = sum_dev_extents(fs, p->devid, &used);
	if (ret)
		return ret;
	ret = repair_search(r, &fs->dev_root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	used -= p->len;		/* the sum still holds the orphan */
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
		    "dev tree item (%llu DEV_EXTENT %llu)", (unsigned long long)p->devid,
		    (unsigned long long)p->bytenr);
	if (used != old)
		repair_note(r, REPAIR_OP_CHANGE, true, old, used,
			    "chunk tree (DEV_ITEMS DEV_ITEM %llu) bytes_used",
			    (unsigned long long)p->devid);
	ret = btrfs_del_item(r->trans, &fs->dev_root, &path);
	btrfs_release_path(&path);
	if (ret)
		return ret;
	i = write_state_device(fs, p->devid);
	if (i < 0)
		return i;
	/* the range is free for chunk allocation from now on */
	da = &fs->write->dev_allocs[i];
	for (j = 0; j < da->nr; j++) {
		if (da->starts[j] != p->bytenr)
			continue;
		memmove(&da->starts[j], &da->starts[j + 1],
			(da->nr - j - 1) * sizeof(*da->starts));
		memmove(&da->lens[j], &da->lens[j + 1],
			(da->nr - j - 1) * sizeof(*da->lens));
		da->nr--;
		break;
	}
	set_dev_bytes_used(fs, i, used);
	return 0;
}

/* ---- phase 5: block groups ---- */

/* the bytes the extent items inside [start, start + len) cover, now */
int repair_sum_extents(struct btrfs_fs_info *fs, u64 start, u64 len, u64 *sum)
{
	struct btrfs_root *root = &fs->extent_root;
	struct btrfs_key key = { start, 0, 0 };
	struct btrfs_path path;
	int ret;

	*sum = 0;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid >= start + len)
			break;
		if (key.type == BTRFS_EXTENT_ITEM_KEY)
			*sum += key.offset;
		else if (key.type == BTRFS_METADATA_ITEM_KEY)
			*sum += fs->nodesize;
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

/*
 * Recounted from the extent items (an extent item restored earlier in
 * the pass counts), and applied as a difference to the write state's
 * counter, so what this transaction allocated or freed stays counted.
 */
int fix_block_group_used(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_key key = { p->bytenr, BTRFS_BLOCK_GROUP_ITEM_KEY, p->len };
	struct btrfs_root *root = btrfs_block_group_root(r->fs_info);
	struct btrfs_block_group *bg;
	struct btrfs_path path;
	u64 old, want;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	old = btrfs_block_group_used(btrfs_item_ptr(path.nodes[0], path.slots[0],
						    struct btrfs_block_group_item));
	btrfs_release_path(&path);
	ret = repair_sum_extents(r->fs_info, p->bytenr, p->len, &want);
	if (ret)
		return ret;
	if (want == old)
		return 1;
	repair_note(r, REPAIR_OP_CHANGE, true, old, want,
		    "block group item (%llu BLOCK_GROUP_ITEM %llu) used",
		    (unsigned long long)p->bytenr, (unsigned long long)p->len);
	bg = btrfs_lookup_block_group(r->fs_info, p->bytenr);
	if (!bg || bg->start != p->bytenr)
		return -ENOENT;
	bg->used += want - old;
	bg->item_dirty = true;
	return 0;
}

/* ---- phase 6: free space ---- */

/* is @bytenr inside a block group (by the block group items)? */
static int in_block_group(struct btrfs_fs_info *fs, u64 bytenr)
{
	struct btrfs_root *root = btrfs_block_group_root(fs);
	struct btrfs_key key = { bytenr, BTRFS_BLOCK_GROUP_ITEM_KEY, (u64)-1 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_previous_item(root, &path, 0, BTRFS_BLOCK_GROUP_ITEM_KEY);
	if (ret < 0)
		goto out;
	if (ret > 0) {
		ret = 0;
		goto out;
	}
	btrfs_path_key(&path, &key);
	ret = bytenr >= key.objectid && bytenr - key.objectid < key.offset;
out:
	btrfs_release_path(&path);
	return ret;
}

/*
 * The entries of an orphan FREE_SPACE_INFO's range that are not inside a
 * block group either: the checker names only the info item, its extents
 * and bitmaps go with it (in the same transaction, so the repair needs
 * one commit).  At most @max keys.
 */
static int orphan_entries(struct repair_ctx *r, const struct btrfs_key *info,
			  struct btrfs_key *keys, int max)
{
	struct btrfs_root *root = &r->fs_info->free_space_root;
	struct btrfs_key key = { info->objectid, 0, 0 };
	struct btrfs_path path;
	int ret, n = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && n < max) {
		btrfs_path_key(&path, &key);
		if (key.objectid >= info->objectid + info->offset)
			break;
		if ((key.type == BTRFS_FREE_SPACE_EXTENT_KEY ||
		     key.type == BTRFS_FREE_SPACE_BITMAP_KEY) &&
		    key.objectid + key.offset <= info->objectid + info->offset)
			keys[n++] = key;
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	return n;
}

static int delete_fst_item(struct repair_ctx *r, const struct btrfs_key *k)
{
	struct btrfs_root *root = &r->fs_info->free_space_root;
	struct btrfs_path path;
	char key[96];
	int ret;

	btrfs_init_path(&path);
	ret = repair_search(r, root, k, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	repair_key_str(k, key, sizeof(key));
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "free space tree item %s", key);
	ret = btrfs_del_item(r->trans, root, &path);
	btrfs_release_path(&path);
	return ret;
}

#define ORPHAN_ENTRIES_MAX	256

static int fix_free_space_orphan(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_key keys[ORPHAN_ENTRIES_MAX];
	int i, n = 0, ret;

	if (!r->fs_info->free_space_root.node)
		return -ENOENT;
	if (p->key.type == BTRFS_FREE_SPACE_INFO_KEY) {
		n = orphan_entries(r, &p->key, keys, ORPHAN_ENTRIES_MAX);
		if (n < 0)
			return n;
	}
	ret = delete_fst_item(r, &p->key);
	for (i = 0; i < n && !ret; i++) {
		ret = in_block_group(r->fs_info, keys[i].objectid);
		if (ret == 0)
			ret = delete_fst_item(r, &keys[i]);
		else if (ret > 0)
			ret = 0;	/* inside a real group: its own rebuild */
	}
	return ret;
}

/* the group's free space tree entries are recomputed at commit */
static int fix_free_space_group(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_block_group *bg;

	if (!btrfs_fs_compat_ro(r->fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		return -EOPNOTSUPP;
	repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
		    "free space tree entries of block group %llu",
		    (unsigned long long)p->bytenr);
	bg = btrfs_lookup_block_group(r->fs_info, p->bytenr);
	if (!bg || bg->start != p->bytenr)
		return -ENOENT;
	bg->fst_dirty = true;
	return 0;
}

/*
 * A v1 cache is trusted only when its generation matches the superblock's
 * cache_generation: every commit of the write path stamps it anew and
 * writes fresh caches (or none), so a commit replaces the bad one.
 */
static int fix_free_space_cache(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_block_group *bg;

	if (btrfs_fs_compat_ro(r->fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		return -EOPNOTSUPP;
	repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
		    "v1 space cache of block group %llu",
		    (unsigned long long)p->bytenr);
	bg = btrfs_lookup_block_group(r->fs_info, p->bytenr);
	if (bg)
		bg->v1_dirty = true;
	r->fs_info->write->super_dirty = true;
	return 0;
}

static void say(struct repair_ctx *r, const char *planned, const char *done,
		const char *what)
{
	if (r->out)
		fprintf(r->out, "  %s %s\n", r->trans ? done : planned, what);
}

void repair_global_options(struct repair_ctx *r)
{
	struct btrfs_fs_info *fs = r->fs_info;
	const struct check_options *o = r->opts;
	bool fst = btrfs_fs_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE);
	size_t i;

	/* open_writable() dropped the log from the superblock in memory */
	if (o->clear_log && (r->trans || btrfs_super_log_root(&fs->super_copy)))
		say(r, "would drop", "dropped", "the log tree (superblock log_root 0)");
	if (o->clear_space_cache == 2 && !fst) {
		say(r, "no free space tree:", "no free space tree:", "nothing to rebuild");
	} else if (o->clear_space_cache == 2) {
		say(r, "would rebuild", "rebuilt", "the free space tree of every block group");
		if (r->trans)
			btrfs_mark_free_space_tree_dirty(fs);
	} else if (o->clear_space_cache == 1 && fst) {
		say(r, "free space tree in use:", "free space tree in use:",
		    "no v1 space cache to clear");
	} else if (o->clear_space_cache == 1) {
		say(r, "would rewrite", "rewrote", "the v1 space cache of every block group");
		if (!r->trans)
			return;
		for (i = 0; i < btrfs_nr_block_groups(fs); i++)
			btrfs_block_group_nr(fs, i)->v1_dirty = true;
		fs->write->super_dirty = true;
	}
}

/* ---- the table ---- */

static const struct {
	enum problem_code code;
	repair_fn fn;
	bool preen;
} actions[] = {
	{ PR_SUPER_MIRROR_BAD, fix_super_mirror, true },
	{ PR_SUPER_MIRROR_STALE, fix_super_mirror, true },
	/* what the kernel's next commit does to a mirror an fsid change missed */
	{ PR_SUPER_MIRROR_OLD_FSID, fix_super_mirror, true },
	{ PR_SUPER_BYTES_USED, fix_super_bytes_used, true },
	{ PR_SUPER_FIELD, repair_super_field, true },
	{ PR_DEV_TOTAL_BYTES, repair_dev_total_bytes, true },
	{ PR_SUPER_TOTAL_BYTES, fix_super_total_bytes, true },
	{ PR_CHUNK_NO_BLOCK_GROUP, repair_chunk_no_block_group, false },
	{ PR_BLOCK_GROUP_MISMATCH, repair_block_group_mismatch, false },
	{ PR_CHUNK_STRIPE_NO_DEV_EXTENT, repair_chunk_stripe_no_dev_extent, false },
	{ PR_DEV_EXTENT_BEYOND_DEVICE, repair_dev_extent_beyond_device, false },
	{ PR_DEV_EXTENT_NO_CHUNK, fix_dev_extent_no_chunk, false },
	{ PR_DEV_BYTES_USED, fix_dev_bytes_used, true },
	{ PR_TREE_BLOCK_INVALID, repair_tree_block, false },
	{ PR_TREE_BLOCK_UNREADABLE, repair_tree_block_csum, false },
	{ PR_TREE_ITEM_INVALID, repair_tree_item, false },
	/* after the blocks it reads are mended and copied */
	{ PR_TREE_KEY_RANGE, repair_key_range, false },
	{ PR_ROOT_ITEM_INVALID, repair_root_item, false },
	{ PR_ROOT_REF_MISSING, repair_root_ref_missing, false },
	{ PR_ROOT_REF_MISMATCH, repair_root_ref_mismatch, false },
	{ PR_UUID_ITEM_STALE, repair_uuid_stale, true },
	{ PR_UUID_ITEM_MISSING, repair_uuid_missing, true },
	{ PR_BLOCK_GROUP_NO_CHUNK, repair_block_group_no_chunk, false },
	/* repair-extents.c: the first runs the extent tree rebuild if one is due */
	{ PR_EXTENT_ITEM_UNUSED, repair_extent_refs, false },
	{ PR_EXTENT_BACKREF_UNUSED, repair_extent_refs, false },
	{ PR_EXTENT_ITEM_MISSING, repair_extent_refs, false },
	{ PR_EXTENT_ITEM_INVALID, repair_extent_refs, false },
	{ PR_EXTENT_BACKREF_MISSING, repair_extent_refs, false },
	{ PR_EXTENT_BACKREF_NO_ITEM, repair_extent_refs, false },
	{ PR_EXTENT_REF_MISMATCH, repair_extent_refs, false },
	{ PR_EXTENT_OVERLAP, repair_extent_refs, false },
	{ PR_EXTENT_OUTSIDE_BLOCK_GROUP, repair_extent_refs, false },
	{ PR_BLOCK_GROUP_USED, repair_block_group_used, true },
	{ PR_FREE_SPACE_ORPHAN, fix_free_space_orphan, true },
	{ PR_FREE_SPACE_MISMATCH, fix_free_space_group, true },
	{ PR_FREE_SPACE_INFO_INVALID, fix_free_space_group, true },
	{ PR_FREE_SPACE_CACHE_INVALID, fix_free_space_cache, true },
	/* structural fixes first: the counters below are recounted after them */
	{ PR_FS_TREE_UNKNOWN_KEY, repair_unknown_key, false },
	{ PR_INODE_ITEM_MISSING, repair_inode_item_missing, false },
	{ PR_INODE_INVALID, repair_names_inode_invalid, false },
	/* a dangling dir index goes before a missing one takes its place */
	{ PR_DIR_ENTRY_DANGLING, repair_names_dir_entry_dangling, false },
	/* a name's inode ref before its dir entries: it may bring the index */
	{ PR_INODE_REF_MISSING, repair_inode_ref_missing, false },
	{ PR_DIR_INDEX_MISSING, repair_dir_index_missing_ref, false },
	{ PR_DIR_ITEM_MISSING, repair_names_dir_item_missing, false },
	{ PR_DIR_ITEM_HASH, repair_names_dir_item_hash, false },
	{ PR_DIR_ENTRY_DUPLICATE, repair_names_dir_entry_duplicate, false },
	{ PR_XATTR_INVALID, repair_names_xattr, false },
	{ PR_DIR_ENTRY_INVALID, repair_names_dir_entry_invalid, false },
	{ PR_DIR_ENTRY_MISMATCH, repair_names_dir_entry_mismatch, false },
	{ PR_FILE_EXTENT_INVALID, repair_file_extent_invalid, false },
	/* an overlap trimmed before the hole it may leave is filled */
	{ PR_FILE_EXTENT_OVERLAP, repair_file_extent_overlap, false },
	{ PR_FILE_EXTENT_HOLE, repair_file_extent_hole, false },
	{ PR_INODE_MODE_INVALID, repair_inode_mode, false },
	{ PR_INODE_REF_INVALID, repair_inode_ref_invalid, false },
	{ PR_INODE_REF_UNMATCHED, repair_inode_ref_unmatched, false },
	{ PR_DIR_REFS, repair_dir_refs, false },
	{ PR_INODE_NLINK, repair_inode_nlink_or_lost, false },
	{ PR_INODE_NO_ORPHAN, repair_inode_no_orphan, false },
	{ PR_ORPHAN_ITEM_INVALID, repair_orphan_item, true },
	{ PR_INODE_CACHE_DEPRECATED, repair_inode_cache, true },
	{ PR_DIR_NLINK, repair_dir_nlink, true },
	{ PR_INODE_NBYTES, repair_inode_nbytes, true },
	{ PR_DIR_ISIZE, repair_dir_isize, true },
	{ PR_INODE_FLAGS_INVALID, repair_inode_flags, false },
	{ PR_CSUM_ITEM_INVALID, repair_csum_item_invalid, false },
	{ PR_CSUM_OVERLAP, repair_csum_overlap, false },
	{ PR_CSUM_NO_EXTENT, repair_csum_no_extent, false },
	{ PR_CSUM_MISSING, repair_csum_missing, false },
	{ PR_QGROUP_INVALID, repair_qgroup_invalid, false },
	{ PR_QGROUP_COUNTS, repair_qgroup_counts, true },
	{ PR_INODE_GENERATION_INVALID, repair_inode_generation, false },
	{ PR_LOG_TREE_INVALID, repair_log_tree_invalid, false },
};

repair_fn repair_action(enum problem_code code)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (actions[i].code == code)
			return actions[i].fn;
	}
	return NULL;
}

/* the order actions run in within a pass: the table's */
int repair_action_rank(enum problem_code code)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (actions[i].code == code)
			return (int)i;
	}
	return -1;
}

int repair_nr_actions(void)
{
	return (int)(sizeof(actions) / sizeof(actions[0]));
}

bool repair_preen_safe(enum problem_code code)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (actions[i].code == code)
			return actions[i].preen;
	}
	return false;
}
