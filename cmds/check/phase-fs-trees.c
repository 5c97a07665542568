// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 7: filesystem trees.
 *
 * Every subvolume and snapshot tree (id 5 and 256.. in the tree of tree
 * roots) is streamed in key order, one inode at a time (fs-trees.h); the
 * data relocation tree gets the per-inode checks only.  Trees being
 * deleted (root refs 0) are skipped: parts of them are already gone.
 *
 * Outside the inode number range a filesystem tree holds only orphan
 * items (ORPHAN_OBJECTID, ORPHAN_ITEM, inode).  They sort after every
 * inode, so they are read first, with one search, to know which inodes
 * with no links left are being deleted.  The old inode cache
 * (FREE_INO_OBJECTID, FREE_SPACE_OBJECTID) is gone from the kernel: its
 * items are reported, once per tree.
 *
 * Most trees are streamed by phase 3 already, from the leaves it reads
 * (fs_tree_ahead_*): for those this phase only reports what was found.
 * A tree with a block holding keys past its range (TREE_KEY_RANGE) does
 * not stream in key order: it is not checked until that is repaired.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fs-trees.h"
#include "tree-walk.h"
#include "block-set.h"
#include "iter.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/tree-checker.h"
#include "array.h"

struct fs_tree_id {
	u64 id;
	u64 blocks;		/* tree blocks, for the progress line */
};

struct fs_trees {
	struct fs_tree_id *ids;
	size_t nr;
	size_t alloc;
	u64 blocks_total;
	u64 blocks_done;
};

static bool is_inode_number(u64 objectid)
{
	return objectid >= BTRFS_FIRST_FREE_OBJECTID &&
	       objectid <= BTRFS_LAST_FREE_OBJECTID;
}

static bool is_inode_cache(u64 objectid)
{
	return objectid == BTRFS_FREE_INO_OBJECTID ||
	       objectid == BTRFS_FREE_SPACE_OBJECTID;
}

/* ---- orphan items ---- */

static int load_orphans(struct fs_tree *t)
{
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, 0 };
	struct btrfs_path path;
	size_t alloc = 0;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(&t->root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != BTRFS_ORPHAN_OBJECTID || key.type != BTRFS_ORPHAN_ITEM_KEY)
			break;
		if (ARRAY_RESERVE(t->orphans, alloc, t->nr_orphans + 1, 64)) {
			ret = -ENOMEM;
			break;
		}
		t->orphans[t->nr_orphans++] = key.offset;
		ret = check_iter_next(&t->root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 && ret != -EIO ? ret : 0;
}

/* ---- the stream ---- */

/*
 * Findings phase 3 may hold for one tree.  A tree with more is checked
 * again by phase 7, which reports as it goes: memory stays bounded
 * however damaged the tree is.  Tests lower it with the environment
 * variable GHEE_CHECK_DEFERRED_MAX to take that way on small images.
 */
#define FS_DEFERRED_MAX		4096

static size_t deferred_max(void)
{
	const char *env = getenv("GHEE_CHECK_DEFERRED_MAX");
	char *end;
	unsigned long v;

	if (!env || !*env)
		return FS_DEFERRED_MAX;
	v = strtoul(env, &end, 10);
	return *end ? FS_DEFERRED_MAX : v;
}

void fs_problem(struct fs_tree *t, enum problem_code code,
		const struct problem_ctx *pctx)
{
	if (!t->deferred) {
		check_problem(t->ctx, code, pctx);
		return;
	}
	if (t->deferred_full)
		return;
	if (problem_queue_len(t->deferred) >= t->deferred_max ||
	    problem_queue_add(t->deferred, code, pctx))
		t->deferred_full = true;
}

static bool inode_key_type_known(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
	case BTRFS_XATTR_ITEM_KEY:
	case BTRFS_VERITY_DESC_ITEM_KEY:
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_EXTENT_DATA_KEY:
		return true;
	}
	return false;
}

/* an item outside the inode number range */
static void other_item(struct fs_tree *t, const struct btrfs_key *key)
{
	if (key->objectid == BTRFS_ORPHAN_OBJECTID && key->type == BTRFS_ORPHAN_ITEM_KEY) {
		/* read up front; an orphan item whose inode is gone is harmless */
		if (!is_inode_number(key->offset))
			fs_problem(t, PR_ORPHAN_ITEM_INVALID, &(struct problem_ctx){
				.root = t->root_id, .inode = key->offset,
				.detail = "not an inode number" });
		return;
	}
	if (is_inode_cache(key->objectid)) {
		if (!t->cache_items++)
			t->cache_key = *key;
		return;
	}
	fs_problem(t, PR_FS_TREE_UNKNOWN_KEY, &(struct problem_ctx){
		.root = t->root_id, .key = *key });
}

/* @verified: the item passed the tree-checker already (phase 3) */
static void inode_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		       const struct btrfs_key *key, bool verified)
{
	struct tree_check_error err;

	if (!inode_key_type_known(key->type)) {
		fs_problem(t, PR_FS_TREE_UNKNOWN_KEY, &(struct problem_ctx){
			.root = t->root_id, .key = *key });
		return;
	}
	if (!verified && btrfs_check_item(t->ctx->fs_info, leaf, slot, &err)) {
		/* phase 3 reported the item; what it would say is unknown */
		t->ino.damaged = true;
		return;
	}
	switch (key->type) {
	case BTRFS_INODE_ITEM_KEY:
		fs_inode_item(t, leaf, slot);
		break;
	case BTRFS_INODE_REF_KEY:
		fs_inode_ref(t, leaf, slot, key);
		break;
	case BTRFS_INODE_EXTREF_KEY:
		fs_inode_extref(t, leaf, slot, key);
		break;
	case BTRFS_XATTR_ITEM_KEY:
		fs_xattr_item(t, leaf, slot, key);
		break;
	case BTRFS_DIR_ITEM_KEY:
		fs_dir_item(t, leaf, slot, key);
		break;
	case BTRFS_DIR_INDEX_KEY:
		fs_dir_index(t, leaf, slot, key);
		break;
	case BTRFS_EXTENT_DATA_KEY:
		fs_file_extent(t, leaf, slot, key);
		break;
	}
}

static void stream_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
			const struct btrfs_key *key, bool verified)
{
	if (key->objectid != t->ino.ino) {
		fs_inode_finish(t);
		fs_inode_begin(t, is_inode_number(key->objectid) ? key->objectid : 0);
	}
	if (!t->ino.ino)
		other_item(t, key);
	else
		inode_item(t, leaf, slot, key, verified);
}

/* before the first item: the orphans, which sort last */
static int stream_begin(struct fs_tree *t)
{
	fs_inode_begin(t, 0);
	return load_orphans(t);
}

/* after the last item: what only the whole tree tells */
static void stream_end(struct fs_tree *t)
{
	fs_inode_finish(t);
	if (!t->root_dir_seen && is_inode_number(t->root_dirid))
		fs_problem(t, PR_INODE_ITEM_MISSING, &(struct problem_ctx){
			.root = t->root_id, .inode = t->root_dirid,
			.detail = "the root directory of the tree" });
	if (t->cache_items)
		fs_problem(t, PR_INODE_CACHE_DEPRECATED, &(struct problem_ctx){
			.root = t->root_id, .key = t->cache_key, .found = t->cache_items });
	fs_links_merge(t);
}

static void progress_leaf(struct fs_tree *t, struct fs_trees *all,
			  const struct extent_buffer *leaf)
{
	if (leaf->start == t->last_leaf)
		return;
	t->last_leaf = leaf->start;
	all->blocks_done++;
	progress_update(&t->ctx->progress, all->blocks_done);
}

static int stream_tree(struct fs_tree *t, struct fs_trees *all)
{
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(&t->root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		progress_leaf(t, all, path.nodes[0]);
		stream_item(t, path.nodes[0], path.slots[0], &key, false);
		ret = check_iter_next(&t->root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 && ret != -EIO ? ret : 0;
}

static void fs_tree_free(struct fs_tree *t)
{
	problem_queue_destroy(t->deferred);
	fs_links_release(t);
	free(t->pend);
	free(t->orphans);
	btrfs_release_root(&t->root);
	free(t);
}

/*
 * The tree @root_id, ready to stream; NULL with *err 0 when there is
 * nothing to check: phases 3 and 4 report unreadable trees, and trees
 * being deleted (root refs 0) are partly gone already.
 */
static struct fs_tree *fs_tree_open(struct check_ctx *ctx, u64 root_id, bool defer,
				    int *err)
{
	struct fs_tree *t;

	*err = 0;
	t = calloc(1, sizeof(*t));
	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	t->ctx = ctx;
	t->root_id = root_id;
	t->light = root_id == BTRFS_DATA_RELOC_TREE_OBJECTID;
	t->no_holes = btrfs_fs_incompat(ctx->fs_info, BTRFS_FEATURE_INCOMPAT_NO_HOLES);
	t->super_gen = btrfs_super_generation(&ctx->fs_info->super_copy);
	t->sectorsize = ctx->fs_info->sectorsize;
	t->last_leaf = (u64)-1;
	if (btrfs_read_root(ctx->fs_info, root_id, &t->root)) {
		free(t);
		return NULL;
	}
	if (!btrfs_root_refs(&t->root.root_item) || !t->root.node) {
		fs_tree_free(t);
		return NULL;
	}
	if (defer) {
		t->deferred_max = deferred_max();
		t->deferred = problem_queue_create();
		if (!t->deferred) {
			*err = -ENOMEM;
			fs_tree_free(t);
			return NULL;
		}
	}
	t->root_dirid = btrfs_root_dirid(&t->root.root_item);
	*err = stream_begin(t);
	if (*err) {
		fs_tree_free(t);
		return NULL;
	}
	return t;
}

static int check_one_tree(struct check_ctx *ctx, struct fs_trees *all, u64 root_id)
{
	struct fs_tree *t;
	int ret;

	t = fs_tree_open(ctx, root_id, false, &ret);
	if (!t)
		return ret;
	ret = stream_tree(t, all);
	if (!ret)
		stream_end(t);
	fs_tree_free(t);
	return ret;
}

/* ---- which trees ---- */

static bool is_checked_tree(u64 objectid)
{
	return objectid == BTRFS_FS_TREE_OBJECTID || is_inode_number(objectid) ||
	       objectid == BTRFS_DATA_RELOC_TREE_OBJECTID;
}

static int add_tree_id(struct check_ctx *ctx, struct fs_trees *all,
		       struct extent_buffer *leaf, int slot, u64 objectid)
{
	const struct btrfs_root_item *ri;
	struct fs_tree_id *id;
	u64 blocks = 1;

	if (btrfs_item_size(leaf, slot) >= BTRFS_ROOT_ITEM_V1_SIZE) {
		ri = btrfs_item_ptr(leaf, slot, struct btrfs_root_item);
		if (!btrfs_root_refs(ri))
			return 0;	/* being deleted */
		blocks = btrfs_root_bytes_used(ri) / ctx->fs_info->nodesize;
	}
	if (all->nr && all->ids[all->nr - 1].id == objectid)
		return 0;
	if (ARRAY_RESERVE(all->ids, all->alloc, all->nr + 1, 64))
		return -ENOMEM;
	id = &all->ids[all->nr++];
	id->id = objectid;
	id->blocks = blocks;
	all->blocks_total += blocks;
	return 0;
}

static int collect_trees(struct check_ctx *ctx, struct fs_trees *all)
{
	struct btrfs_root *tree_root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(tree_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_ROOT_ITEM_KEY && is_checked_tree(key.objectid)) {
			ret = add_tree_id(ctx, all, path.nodes[0], path.slots[0], key.objectid);
			if (ret)
				break;
		}
		ret = check_iter_next(tree_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 && ret != -EIO ? ret : 0;
}

/* ---- trees phase 3 checks while it reads them ---- */

static int cmp_checked_root(const void *key, const void *elem)
{
	u64 root = *(const u64 *)key;
	const struct fs_tree_checked *c = elem;

	return root < c->root ? -1 : root > c->root;
}

static const struct fs_tree_checked *fs_checked_find(const struct check_shared *shared,
						     u64 root)
{
	if (!shared->nr_fs_checked)
		return NULL;
	return bsearch(&root, shared->fs_checked, shared->nr_fs_checked,
		       sizeof(*shared->fs_checked), cmp_checked_root);
}

/* keeps the array ascending; phase 3 walks the trees in that order anyway */
static int fs_checked_add(struct check_shared *shared, u64 root,
			  struct problem_queue *findings)
{
	size_t i;

	if (ARRAY_RESERVE(shared->fs_checked, shared->alloc_fs_checked,
			  shared->nr_fs_checked + 1, 16))
		return -ENOMEM;
	for (i = shared->nr_fs_checked; i > 0 && shared->fs_checked[i - 1].root > root; i--)
		shared->fs_checked[i] = shared->fs_checked[i - 1];
	shared->fs_checked[i].root = root;
	shared->fs_checked[i].findings = findings;
	shared->nr_fs_checked++;
	return 0;
}

struct fs_tree *fs_tree_ahead_start(struct check_ctx *ctx, const struct walk_root *r,
				    int *err)
{
	struct fs_tree *t;

	*err = 0;
	if (r->log || r->dead || r->has_drop || !is_checked_tree(r->objectid) ||
	    fs_checked_find(ctx->shared, r->objectid))
		return NULL;
	t = fs_tree_open(ctx, r->objectid, true, err);
	if (t && t->root.node->start != r->bytenr) {
		/* not the root item phase 7 would pick */
		fs_tree_free(t);
		return NULL;
	}
	return t;
}

void fs_tree_ahead_leaf(struct fs_tree *t, const struct extent_buffer *leaf,
			bool items_verified)
{
	u32 nr = btrfs_eb_nritems(leaf), i;
	struct btrfs_key key;

	for (i = 0; i < nr; i++) {
		btrfs_item_key_to_cpu(leaf, &key, i);
		stream_item(t, leaf, i, &key, items_verified);
	}
}

int fs_tree_ahead_end(struct fs_tree *t, bool whole)
{
	int ret = 0;

	if (whole && !t->deferred_full)
		stream_end(t);
	if (whole && !t->deferred_full) {
		ret = fs_checked_add(t->ctx->shared, t->root_id, t->deferred);
		if (!ret)
			t->deferred = NULL;
	}
	fs_tree_free(t);
	return ret;
}

int check_phase_fs_trees(struct check_ctx *ctx)
{
	struct fs_trees all = { 0 };
	size_t i;
	int ret;

	ret = collect_trees(ctx, &all);
	if (ret)
		goto out;
	for (i = 0; i < all.nr; i++) {
		if (fs_checked_find(ctx->shared, all.ids[i].id))
			all.blocks_total -= all.ids[i].blocks;
	}
	/* nothing to show when phase 3 checked every tree */
	if (all.blocks_total)
		progress_start(&ctx->progress, "tree blocks", all.blocks_total);
	for (i = 0; i < all.nr && !ret; i++) {
		const struct fs_tree_checked *done = fs_checked_find(ctx->shared, all.ids[i].id);

		/*
		 * Its items are not in key order: what a missing or repeated
		 * item means is unknown, and a repair acting on it would
		 * judge what the kernel (which finds an item only within
		 * its block's range) does not see.
		 */
		if (block_set_has(ctx->shared->key_range_trees, all.ids[i].id)) {
			check_info(ctx, "root %llu: keys outside their block's range (TREE_KEY_RANGE), not checked",
				   (unsigned long long)all.ids[i].id);
			continue;
		}
		if (done)
			problem_queue_report(ctx, done->findings);
		else
			ret = check_one_tree(ctx, &all, all.ids[i].id);
	}
out:
	free(all.ids);
	return ret;
}
