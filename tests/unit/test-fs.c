// SPDX-License-Identifier: GPL-2.0
/*
 * Test fixture: a filesystem created by the engine in unlinked temporary
 * files, and a full check of the allocator's bookkeeping against what is
 * in the trees.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include "test-fs.h"
#include "fs-create.h"
#include "ctree.h"
#include "extent-tree.h"
#include "block-group.h"
#include "free-space-tree.h"
#include "chunk-alloc.h"

#define TF_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

static void quiet(void *ctx, enum btrfs_report_level level, const char *msg)
{
	(void)ctx;
	if (getenv("GHEE_TEST_VERBOSE"))
		fprintf(stderr, "engine[%d]: %s\n", level, msg);
}

static void fake_uuid(u8 *uuid, u64 seed)
{
	int i;

	for (i = 0; i < BTRFS_UUID_SIZE; i++)
		uuid[i] = (u8)(seed * 131 + i * 7 + 1);
}

void test_fs_create_devs(struct test_fs *tfs, u32 nodesize, u64 size,
			 unsigned int flags, int nr_devices, u64 meta_profile,
			 u64 data_profile)
{
	struct btrfs_create_device devs[8];
	struct btrfs_create_params p;
	int i, ret;

	ck_assert_int_le(nr_devices, 8);
	memset(&p, 0, sizeof(p));
	memset(devs, 0, sizeof(devs));
	for (i = 0; i < nr_devices; i++) {
		char path[] = "/tmp/ghee-unit-XXXXXX";

		devs[i].fd = mkstemp(path);
		ck_assert_int_ge(devs[i].fd, 0);
		unlink(path);
		ck_assert_int_eq(ftruncate(devs[i].fd, size), 0);
		devs[i].path = "test-device";
		devs[i].total_bytes = size;
		tfs->fds[i] = dup(devs[i].fd);
		ck_assert_int_ge(tfs->fds[i], 0);
		snprintf(tfs->paths[i], sizeof(tfs->paths[i]), "/proc/self/fd/%d", tfs->fds[i]);
		fake_uuid(devs[i].uuid, 100 + i);
	}
	fake_uuid(p.fsid, 1);
	fake_uuid(p.chunk_tree_uuid, 2);
	fake_uuid(p.fs_tree_uuid, 3);
	p.nodesize = nodesize;
	p.sectorsize = 4096;
	p.incompat_flags = BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF |
			   BTRFS_FEATURE_INCOMPAT_NO_HOLES;
	if (!(flags & TEST_FS_NOT_SKINNY))
		p.incompat_flags |= BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA;
	if (flags & TEST_FS_MIXED)
		p.incompat_flags |= BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS;
	if (!(flags & TEST_FS_NO_FST))
		p.compat_ro_flags = BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
				    BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID;
	p.nr_devices = nr_devices;
	p.devices = devs;
	p.system_profile = nr_devices > 1 ? BTRFS_BLOCK_GROUP_RAID1 : BTRFS_BLOCK_GROUP_DUP;
	p.metadata_profile = meta_profile;
	p.data_profile = data_profile;
	p.now_sec = 1700000000;
	p.reporter.report = quiet;
	ret = btrfs_create_fs(&p, &tfs->fs, &tfs->trans);
	ck_assert_int_eq(ret, 0);
	ret = btrfs_create_fs_finish(tfs->trans);
	ck_assert_int_eq(ret, 0);
	ret = btrfs_start_transaction(tfs->fs, &tfs->trans);
	ck_assert_int_eq(ret, 0);
	tfs->nr_devices = nr_devices;
}

struct btrfs_root *test_fs_new_tree(struct test_fs *tfs, u64 objectid)
{
	struct btrfs_root *root;

	ck_assert_int_eq(btrfs_create_tree(tfs->trans, objectid, &root), 0);
	return root;
}

void test_fs_commit(struct test_fs *tfs)
{
	int ret = btrfs_commit_transaction(tfs->trans);

	tfs->trans = NULL;
	ck_assert_int_eq(ret, 0);
	ret = btrfs_start_transaction(tfs->fs, &tfs->trans);
	ck_assert_int_eq(ret, 0);
}

void test_fs_destroy(struct test_fs *tfs)
{
	int i;

	if (tfs->trans)
		btrfs_abort_transaction(tfs->trans, -ECANCELED);
	close_ctree(tfs->fs);
	for (i = 0; i < tfs->nr_devices; i++)
		close(tfs->fds[i]);
	memset(tfs, 0, sizeof(*tfs));
}

void test_fs_reopen(struct test_fs *tfs)
{
	const char *paths[8];
	struct open_ctree_args args;
	int i, err;

	if (tfs->trans)
		btrfs_abort_transaction(tfs->trans, -ECANCELED);
	tfs->trans = NULL;
	close_ctree(tfs->fs);
	for (i = 0; i < tfs->nr_devices; i++)
		paths[i] = tfs->paths[i];
	memset(&args, 0, sizeof(args));
	args.paths = paths;
	args.nr_paths = tfs->nr_devices;
	args.backup_root = -1;
	args.reporter.report = quiet;
	tfs->fs = btrfs_open_ctree_writable(&args, &err);
	TF_CHECK(tfs->fs, "reopen failed: %d", err);
	ck_assert_int_eq(btrfs_start_transaction(tfs->fs, &tfs->trans), 0);
}

/* ---- the extent tree, collected ---- */

struct ext {
	u64 start;
	u64 len;
	bool tree;
	int level;
	u64 refs;
	u64 owner;		/* tree blocks: the root of the inline ref */
	bool seen;
};

struct exts {
	struct ext *e;
	size_t nr, cap;
};

static void collect_extent(struct exts *x, struct extent_buffer *leaf, int slot,
			   const struct btrfs_key *key, u32 nodesize)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	const struct btrfs_extent_item *ei = (const void *)p;
	struct ext *e;
	u32 off = sizeof(*ei);

	if (x->nr == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->e = realloc(x->e, x->cap * sizeof(*x->e));
		ck_assert_ptr_nonnull(x->e);
	}
	e = &x->e[x->nr++];
	memset(e, 0, sizeof(*e));
	e->start = key->objectid;
	e->len = key->type == BTRFS_METADATA_ITEM_KEY ? nodesize : key->offset;
	e->refs = btrfs_extent_refs(ei);
	e->tree = btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK;
	e->level = -1;
	if (key->type == BTRFS_METADATA_ITEM_KEY) {
		e->level = (int)key->offset;
	} else if (e->tree) {
		e->level = btrfs_tree_block_level((const void *)(p + off));
		off += sizeof(struct btrfs_tree_block_info);
	}
	if (e->tree && off + sizeof(struct btrfs_extent_inline_ref) <= size &&
	    p[off] == BTRFS_TREE_BLOCK_REF_KEY)
		e->owner = get_unaligned_le64(p + off + 1);
}

static void collect_extents(struct btrfs_fs_info *fs_info, struct exts *x)
{
	struct btrfs_root *root = &fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	ck_assert_int_ge(ret, 0);
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY)
			collect_extent(x, path.nodes[0], path.slots[0], &key, fs_info->nodesize);
		ret = btrfs_next_item(root, &path);
	}
	ck_assert_int_eq(ret, 1);
	btrfs_release_path(&path);
}

static struct ext *find_ext(struct exts *x, u64 start)
{
	size_t lo = 0, hi = x->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->e[mid].start < start)
			lo = mid + 1;
		else if (x->e[mid].start > start)
			hi = mid;
		else
			return &x->e[mid];
	}
	return NULL;
}

/* every block of the tree under @eb has its extent */
static void walk_tree_blocks(struct exts *x, struct extent_buffer *eb, u64 *nr_blocks)
{
	struct ext *e = find_ext(x, eb->start);
	u32 i;

	(*nr_blocks)++;
	TF_CHECK(e, "tree block %llu (owner %llu) has no extent item",
		 (unsigned long long)eb->start, (unsigned long long)btrfs_eb_owner(eb));
	TF_CHECK(e->tree && e->len == eb->len, "extent %llu is not a tree block",
		 (unsigned long long)eb->start);
	TF_CHECK(!e->seen, "tree block %llu reached twice", (unsigned long long)eb->start);
	TF_CHECK(e->refs == 1, "tree block %llu: refs %llu", (unsigned long long)eb->start,
		 (unsigned long long)e->refs);
	TF_CHECK(e->owner == btrfs_eb_owner(eb), "tree block %llu: backref root %llu, owner %llu",
		 (unsigned long long)eb->start, (unsigned long long)e->owner,
		 (unsigned long long)btrfs_eb_owner(eb));
	TF_CHECK(e->level == btrfs_eb_level(eb), "tree block %llu: extent level %d, block %u",
		 (unsigned long long)eb->start, e->level, btrfs_eb_level(eb));
	e->seen = true;
	if (!btrfs_eb_level(eb))
		return;
	for (i = 0; i < btrfs_eb_nritems(eb); i++) {
		struct extent_buffer *child;
		int ret;

		child = btrfs_read_node_slot(eb, i, &ret);
		TF_CHECK(child, "block %llu slot %u unreadable: %d",
			 (unsigned long long)eb->start, i, ret);
		walk_tree_blocks(x, child, nr_blocks);
		free_extent_buffer(child);
	}
}

static void walk_root_at(struct btrfs_fs_info *fs_info, struct exts *x, u64 bytenr,
			 u64 *nr_blocks)
{
	struct tree_block_check check = { .level = -1 };
	struct extent_buffer *eb;
	int ret;

	eb = read_tree_block(fs_info, bytenr, &check, &ret);
	TF_CHECK(eb, "root block %llu unreadable: %d", (unsigned long long)bytenr, ret);
	walk_tree_blocks(x, eb, nr_blocks);
	free_extent_buffer(eb);
}

static void walk_all_trees(struct btrfs_fs_info *fs_info, struct exts *x)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	struct btrfs_root *tree_root = &fs_info->tree_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	u64 nr_blocks = 0;
	size_t i;
	int ret;

	walk_root_at(fs_info, x, btrfs_super_root(sb), &nr_blocks);
	walk_root_at(fs_info, x, btrfs_super_chunk_root(sb), &nr_blocks);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, tree_root, &key, &path, 0, 0);
	ck_assert_int_ge(ret, 0);
	ret = btrfs_path_fixup_slot(tree_root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_ROOT_ITEM_KEY) {
			const struct btrfs_root_item *ri = btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_root_item);
			u64 before = nr_blocks;

			walk_root_at(fs_info, x, btrfs_root_bytenr(ri), &nr_blocks);
			TF_CHECK(btrfs_root_bytes_used(ri) == (nr_blocks - before) * fs_info->nodesize,
				 "root %llu: bytes_used %llu, has %llu blocks",
				 (unsigned long long)key.objectid,
				 (unsigned long long)btrfs_root_bytes_used(ri),
				 (unsigned long long)(nr_blocks - before));
		}
		ret = btrfs_next_item(tree_root, &path);
	}
	btrfs_release_path(&path);
	for (i = 0; i < x->nr; i++)
		TF_CHECK(!x->e[i].tree || x->e[i].seen,
			 "tree block extent %llu (root %llu) is in no tree",
			 (unsigned long long)x->e[i].start, (unsigned long long)x->e[i].owner);
}

static void check_no_overlap(const struct exts *x)
{
	size_t i;

	for (i = 1; i < x->nr; i++)
		TF_CHECK(x->e[i - 1].start + x->e[i - 1].len <= x->e[i].start,
			 "extents %llu+%llu and %llu overlap",
			 (unsigned long long)x->e[i - 1].start,
			 (unsigned long long)x->e[i - 1].len,
			 (unsigned long long)x->e[i].start);
}

static u64 bg_item_used(struct btrfs_fs_info *fs_info, const struct btrfs_block_group *bg)
{
	struct btrfs_key key = { bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
	struct btrfs_path path;
	u64 used;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, btrfs_block_group_root(fs_info), &key, &path, 0, 0);
	TF_CHECK(ret == 0, "block group %llu has no item (%d)", (unsigned long long)bg->start,
		 ret);
	used = btrfs_block_group_used(btrfs_item_ptr(path.nodes[0], path.slots[0],
						     struct btrfs_block_group_item));
	btrfs_release_path(&path);
	return used;
}

static void check_block_groups(struct btrfs_fs_info *fs_info, const struct exts *x)
{
	size_t n = btrfs_nr_block_groups(fs_info), i, j = 0;
	u64 total = 0;

	for (i = 0; i < n; i++) {
		struct btrfs_block_group *bg = btrfs_block_group_nr(fs_info, i);
		u64 sum = 0, free = btrfs_block_group_free_bytes(bg);

		while (j < x->nr && x->e[j].start < bg->start + bg->length) {
			TF_CHECK(x->e[j].start >= bg->start, "extent %llu outside block groups",
				 (unsigned long long)x->e[j].start);
			sum += x->e[j].len;
			j++;
		}
		TF_CHECK(sum == bg->used, "block group %llu: used %llu, extents %llu",
			 (unsigned long long)bg->start, (unsigned long long)bg->used,
			 (unsigned long long)sum);
		TF_CHECK(bg_item_used(fs_info, bg) == bg->used,
			 "block group %llu: item used differs from memory",
			 (unsigned long long)bg->start);
		TF_CHECK(bg->pinned == 0, "block group %llu: %llu bytes pinned after commit",
			 (unsigned long long)bg->start, (unsigned long long)bg->pinned);
		TF_CHECK(free + bg->used + bg->super_bytes == bg->length,
			 "block group %llu: free %llu + used %llu + super %llu != length %llu",
			 (unsigned long long)bg->start, (unsigned long long)free,
			 (unsigned long long)bg->used, (unsigned long long)bg->super_bytes,
			 (unsigned long long)bg->length);
		total += bg->used;
	}
	TF_CHECK(j == x->nr, "extents beyond the last block group");
	TF_CHECK(btrfs_super_bytes_used(&fs_info->super_copy) == total,
		 "superblock bytes_used %llu, block groups %llu",
		 (unsigned long long)btrfs_super_bytes_used(&fs_info->super_copy),
		 (unsigned long long)total);
}

static void check_devices(struct btrfs_fs_info *fs_info)
{
	struct btrfs_root *root = &fs_info->dev_root;
	u64 sums[GHEE_MAX_DEVICES] = { 0 };
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret, i;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	ck_assert_int_ge(ret, 0);
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_DEV_EXTENT_KEY) {
			const struct btrfs_dev_extent *de = btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_dev_extent);

			for (i = 0; i < fs_info->num_devices; i++)
				if (fs_info->devices[i].devid == key.objectid)
					sums[i] += btrfs_dev_extent_length(de);
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	for (i = 0; i < fs_info->num_devices; i++) {
		struct btrfs_key dk = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY,
					fs_info->devices[i].devid };

		TF_CHECK(fs_info->devices[i].bytes_used == sums[i],
			 "devid %llu: bytes_used %llu, device extents %llu",
			 (unsigned long long)fs_info->devices[i].devid,
			 (unsigned long long)fs_info->devices[i].bytes_used,
			 (unsigned long long)sums[i]);
		btrfs_init_path(&path);
		ret = btrfs_search_slot(NULL, &fs_info->chunk_root, &dk, &path, 0, 0);
		TF_CHECK(ret == 0, "devid %llu has no device item",
			 (unsigned long long)fs_info->devices[i].devid);
		TF_CHECK(btrfs_device_bytes_used(btrfs_item_ptr(path.nodes[0], path.slots[0],
								struct btrfs_dev_item)) == sums[i],
			 "devid %llu: device item bytes_used differs",
			 (unsigned long long)fs_info->devices[i].devid);
		btrfs_release_path(&path);
	}
}

/* free space tree entries of @bg as ranges, compared with the extent tree */
static void check_fst_bg(struct btrfs_fs_info *fs_info, const struct btrfs_block_group *bg)
{
	struct btrfs_root *root = &fs_info->free_space_root;
	struct btrfs_key key = { bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
	u64 pos = bg->start, run_start = 0;
	struct range_list ranges;
	size_t nr, idx = 0;
	u32 count;
	bool in_run = false;
	struct btrfs_path path;
	int ret;

	ck_assert_int_eq(btrfs_block_group_free_ranges(fs_info, bg, &ranges), 0);
	nr = ranges.nr;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	TF_CHECK(ret == 0, "block group %llu has no ranges space info", (unsigned long long)bg->start);
	count = btrfs_free_space_extent_count(btrfs_item_ptr(path.nodes[0], path.slots[0],
							     struct btrfs_free_space_info));
	TF_CHECK(count == nr, "block group %llu: extent_count %u, ranges ranges %zu",
		 (unsigned long long)bg->start, count, nr);
	ret = btrfs_next_item(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid >= bg->start + bg->length)
			break;
		if (key.type == BTRFS_FREE_SPACE_EXTENT_KEY) {
			TF_CHECK(idx < nr && ranges.r[idx].start == key.objectid &&
				 ranges.r[idx].end - ranges.r[idx].start == key.offset,
				 "block group %llu: ranges space extent %llu+%llu unexpected",
				 (unsigned long long)bg->start, (unsigned long long)key.objectid,
				 (unsigned long long)key.offset);
			idx++;
		} else if (key.type == BTRFS_FREE_SPACE_BITMAP_KEY) {
			const u8 *bits = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
			u64 b, nbits = key.offset / fs_info->sectorsize;

			TF_CHECK(key.objectid == pos, "bitmap at %llu, expected %llu",
				 (unsigned long long)key.objectid, (unsigned long long)pos);
			for (b = 0; b < nbits; b++) {
				bool set = bits[b / 8] & (1U << (b % 8));
				u64 at = key.objectid + b * fs_info->sectorsize;

				if (set && !in_run) {
					run_start = at;
					in_run = true;
				} else if (!set && in_run) {
					TF_CHECK(idx < nr && ranges.r[idx].start == run_start &&
						 ranges.r[idx].end == at,
						 "bitmap run %llu+%llu unexpected",
						 (unsigned long long)run_start,
						 (unsigned long long)(at - run_start));
					idx++;
					in_run = false;
				}
			}
			pos = key.objectid + key.offset;
		}
		ret = btrfs_next_item(root, &path);
	}
	if (in_run) {
		TF_CHECK(idx < nr && ranges.r[idx].start == run_start &&
			 ranges.r[idx].end == bg->start + bg->length, "last bitmap run");
		idx++;
	}
	TF_CHECK(idx == nr, "block group %llu: %zu of %zu ranges ranges in the tree",
		 (unsigned long long)bg->start, idx, nr);
	btrfs_release_path(&path);
	range_list_release(&ranges);
}

void test_fs_verify_extents(struct test_fs *tfs)
{
	struct btrfs_fs_info *fs_info = tfs->fs;
	struct exts x = { 0 };
	size_t i;

	collect_extents(fs_info, &x);
	check_no_overlap(&x);
	walk_all_trees(fs_info, &x);
	check_block_groups(fs_info, &x);
	check_devices(fs_info);
	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
		for (i = 0; i < btrfs_nr_block_groups(fs_info); i++)
			check_fst_bg(fs_info, btrfs_block_group_nr(fs_info, i));
	}
	free(x.e);
}
