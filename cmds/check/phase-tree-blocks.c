// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 3: every tree block of every tree.
 *
 * Walks the chunk tree, the root tree, every tree that has a root item
 * (subvolumes, snapshots, reloc trees and the global trees), and the log
 * trees, each distinct block once: a block shared by snapshots is read
 * and verified once (tree-walk.c).  On the way every reference a pointer
 * or a file extent item makes is summed into the extent tally, which
 * phase 5 compares with the extent tree, and the leaves of a filesystem
 * tree read whole feed phase 7's checks (fs_tree_ahead_*), so that phase
 * does not read them again.
 *
 * A short scan of the extent tree comes first: the walk needs to know
 * which blocks have FULL_BACKREF (their children hold shared refs), and
 * the block groups give the progress total and serve phases 5 and 6.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "shared.h"
#include "block-set.h"
#include "extent-tally.h"
#include "iter.h"
#include "tree-walk.h"
#include "fs-trees.h"
#include "kernel-shared/ctree.h"
#include "array.h"

struct root_list {
	struct walk_root *roots;
	size_t nr;
	size_t alloc;
};

static int root_list_add(struct root_list *l, const struct walk_root *r)
{
	if (ARRAY_RESERVE(l->roots, l->alloc, l->nr + 1, 64))
		return -ENOMEM;
	l->roots[l->nr++] = *r;
	return 0;
}

static int add_block_group(struct check_shared *shared, size_t *alloc,
			   const struct btrfs_key *key,
			   const struct btrfs_block_group_item *bgi)
{
	struct check_block_group *bg;

	if (ARRAY_RESERVE(shared->block_groups, *alloc, shared->nr_block_groups + 1, 64))
		return -ENOMEM;
	bg = &shared->block_groups[shared->nr_block_groups++];
	bg->start = key->objectid;
	bg->length = key->offset;
	bg->used = btrfs_block_group_used(bgi);
	bg->flags = btrfs_block_group_flags(bgi);
	return 0;
}

/* one extent tree item of the pre-scan */
static int scan_extent_item(struct check_shared *shared, const struct extent_buffer *leaf,
			    int slot, const struct btrfs_key *key,
			    size_t *bg_alloc, bool want_bgs)
{
	u32 size = btrfs_item_size(leaf, slot);

	if (key->type == BTRFS_EXTENT_ITEM_KEY || key->type == BTRFS_METADATA_ITEM_KEY) {
		const struct btrfs_extent_item *ei;
		u64 flags;

		shared->nr_extent_items++;
		if (size < sizeof(*ei))
			return 0;
		ei = btrfs_item_ptr(leaf, slot, struct btrfs_extent_item);
		flags = btrfs_extent_flags(ei);
		if ((flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) &&
		    (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF))
			return block_set_add(shared->full_backref, key->objectid) < 0 ?
			       -ENOMEM : 0;
		return 0;
	}
	if (want_bgs && key->type == BTRFS_BLOCK_GROUP_ITEM_KEY &&
	    size >= sizeof(struct btrfs_block_group_item))
		return add_block_group(shared, bg_alloc, key,
				       btrfs_item_ptr(leaf, slot, struct btrfs_block_group_item));
	return 0;
}

/*
 * Read the extent tree once in key order (and the block group tree when
 * there is one): FULL_BACKREF blocks, block groups, the number of extent
 * items.  Damage is not reported here; the walk reports it.
 */
static int prescan(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs_info = ctx->fs_info;
	struct check_shared *shared = ctx->shared;
	bool bg_tree = fs_info->block_group_root.node != NULL;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	size_t bg_alloc = 0;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(&fs_info->extent_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		ret = scan_extent_item(shared, path.nodes[0], path.slots[0], &key,
				       &bg_alloc, !bg_tree);
		if (ret)
			break;
		ret = check_iter_next(&fs_info->extent_root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0 && ret != -EIO)
		return ret;
	if (!bg_tree)
		return 0;
	memset(&key, 0, sizeof(key));
	ret = check_iter_start(&fs_info->block_group_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_BLOCK_GROUP_ITEM_KEY &&
		    btrfs_item_size(path.nodes[0], path.slots[0]) >=
		    sizeof(struct btrfs_block_group_item)) {
			ret = add_block_group(shared, &bg_alloc, &key,
					      btrfs_item_ptr(path.nodes[0], path.slots[0],
							     struct btrfs_block_group_item));
			if (ret)
				break;
		}
		ret = check_iter_next(&fs_info->block_group_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 && ret != -EIO ? ret : 0;
}

static u64 metadata_blocks_estimate(const struct check_ctx *ctx)
{
	const struct check_shared *shared = ctx->shared;
	u64 used = 0;
	size_t i;

	for (i = 0; i < shared->nr_block_groups; i++) {
		if (shared->block_groups[i].flags &
		    (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM))
			used += shared->block_groups[i].used;
	}
	return used / ctx->fs_info->nodesize;
}

/* ---- the walk ---- */

struct phase3 {
	struct check_ctx *ctx;
	struct root_list roots;		/* collected from the root tree */
	struct root_list log_roots;	/* collected from the log root tree */
	struct root_list *collect;	/* where root items go while walking */
	struct fs_tree *ahead;		/* filesystem tree streamed while walked */
	bool ahead_whole;		/* no block of it walked before */
	int error;
};

static bool tally_first_visit(struct tree_walk *w, const struct walk_root *r,
			      u64 bytenr)
{
	struct tally_entry *e = tally_insert(w->ctx->shared->tally, bytenr);

	(void)r;
	if (!e) {
		w->error = -ENOMEM;
		return false;
	}
	if (e->flags & TALLY_VISITED) {
		((struct phase3 *)w->data)->ahead_whole = false;
		return false;
	}
	e->flags |= TALLY_VISITED;
	return true;
}

static void tally_ref(struct tree_walk *w, const struct walk_ref *ref)
{
	struct tally_entry *e = tally_insert(w->ctx->shared->tally, ref->bytenr);
	bool tree = ref->type == BTRFS_TREE_BLOCK_REF_KEY ||
		    ref->type == BTRFS_SHARED_BLOCK_REF_KEY;

	if (!e) {
		w->error = -ENOMEM;
		return;
	}
	if (tree) {
		if ((e->flags & TALLY_TREE) && e->level != ref->level)
			e->flags |= TALLY_LEVEL_MIXED;
		e->flags |= TALLY_TREE;
		e->level = ref->level;
	} else {
		e->flags |= TALLY_DATA;
	}
	tally_entry_add(e, tally_ref_ident(ref->type, ref->root_or_parent,
					   ref->objectid, ref->offset, ref->len), 1);
}

/* a root item seen while walking the root tree (or the log root tree) */
static void collect_root(struct phase3 *p3, const struct extent_buffer *leaf,
			 int slot, const struct btrfs_key *key, bool log)
{
	const struct btrfs_root_item *ri;
	struct walk_root r;

	if (btrfs_item_size(leaf, slot) < BTRFS_ROOT_ITEM_V1_SIZE)
		return;
	ri = btrfs_item_ptr(leaf, slot, struct btrfs_root_item);
	memset(&r, 0, sizeof(r));
	r.objectid = key->objectid;
	r.offset = key->offset;
	r.bytenr = btrfs_root_bytenr(ri);
	r.generation = btrfs_root_generation(ri);
	r.level = btrfs_root_level(ri);
	r.log = log;
	r.dead = btrfs_root_refs(ri) == 0;
	btrfs_disk_key_to_cpu(&r.drop_key, &ri->drop_progress);
	r.drop_level = btrfs_root_drop_level(ri);
	r.has_drop = r.drop_key.objectid != 0;
	if (!r.bytenr || r.level >= BTRFS_MAX_LEVEL)
		return;	/* phase 4 reports the root item */
	if (!log && (r.objectid == BTRFS_ROOT_TREE_OBJECTID ||
		     r.objectid == BTRFS_CHUNK_TREE_OBJECTID))
		return;	/* walked from the superblock */
	if (root_list_add(p3->collect, &r))
		p3->error = -ENOMEM;
}

static void collect_roots_leaf(struct tree_walk *w, const struct walk_root *r,
			       const struct extent_buffer *leaf, bool items_ok)
{
	struct phase3 *p3 = w->data;
	u32 nr = btrfs_eb_nritems(leaf), i;
	struct btrfs_key key;

	(void)items_ok;
	for (i = 0; i < nr; i++) {
		btrfs_item_key_to_cpu(leaf, &key, i);
		if (key.type == BTRFS_ROOT_ITEM_KEY)
			collect_root(p3, leaf, i, &key, r->log);
	}
}

static int walk_list(struct tree_walk *w, const struct root_list *l)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < l->nr && !ret; i++)
		ret = tree_walk_root(w, &l->roots[i]);
	return ret;
}

static void ahead_leaf(struct tree_walk *w, const struct walk_root *r,
		       const struct extent_buffer *leaf, bool items_ok)
{
	struct phase3 *p3 = w->data;

	(void)r;
	fs_tree_ahead_leaf(p3->ahead, leaf, items_ok);
}

/*
 * The tree of one root item.  A filesystem tree is also checked from the
 * leaves read here (phase 7's checks), unless part of it was walked
 * before (a snapshot) or is damaged: phase 7 reads it again then.
 */
static int walk_item_root(struct tree_walk *w, struct phase3 *p3,
			  const struct walk_root *r)
{
	u64 bad = w->bad;
	bool whole;
	int ret, end;

	p3->ahead = fs_tree_ahead_start(w->ctx, r, &ret);
	if (!p3->ahead)
		return ret ? ret : tree_walk_root(w, r);
	p3->ahead_whole = true;
	w->leaf = ahead_leaf;
	ret = tree_walk_root(w, r);
	w->leaf = NULL;
	whole = !ret && p3->ahead_whole && w->bad == bad;
	end = fs_tree_ahead_end(p3->ahead, whole);
	p3->ahead = NULL;
	return ret ? ret : end;
}

static int walk_log_trees(struct tree_walk *w, struct phase3 *p3)
{
	const struct btrfs_super_block *sb = &w->fs_info->super_copy;
	struct walk_root r;
	int ret;

	if (!btrfs_super_log_root(sb))
		return 0;
	memset(&r, 0, sizeof(r));
	r.objectid = BTRFS_TREE_LOG_OBJECTID;
	r.bytenr = btrfs_super_log_root(sb);
	r.level = btrfs_super_log_root_level(sb);
	r.log = true;
	p3->collect = &p3->log_roots;
	w->leaf = collect_roots_leaf;
	ret = tree_walk_root(w, &r);
	w->leaf = NULL;
	if (!ret)
		ret = root_list_add(&p3->roots, &r);
	if (!ret)
		ret = walk_list(w, &p3->log_roots);
	return ret;
}

static struct walk_root root_of_node(u64 objectid, const struct extent_buffer *eb)
{
	struct walk_root r;

	memset(&r, 0, sizeof(r));
	r.objectid = objectid;
	r.bytenr = eb->start;
	r.generation = btrfs_eb_generation(eb);
	r.level = btrfs_eb_level(eb);
	return r;
}

static int walk_all(struct tree_walk *w, struct phase3 *p3)
{
	struct btrfs_fs_info *fs_info = w->fs_info;
	struct walk_root r;
	int ret = 0;

	/* roots open_ctree read (and verified against the superblock) */
	if (fs_info->chunk_root.node) {
		r = root_of_node(BTRFS_CHUNK_TREE_OBJECTID, fs_info->chunk_root.node);
		ret = tree_walk_root(w, &r);
		if (!ret)
			ret = root_list_add(&p3->roots, &r);
	}
	if (!ret && fs_info->tree_root.node) {
		r = root_of_node(BTRFS_ROOT_TREE_OBJECTID, fs_info->tree_root.node);
		p3->collect = &p3->roots;
		w->leaf = collect_roots_leaf;
		ret = tree_walk_root(w, &r);
		w->leaf = NULL;
		if (!ret)
			ret = root_list_add(&p3->roots, &r);
	}
	/* the trees of the root items; roots[0..1] are chunk and root tree */
	if (!ret) {
		size_t i;

		for (i = 0; i < p3->roots.nr && !ret; i++) {
			if (p3->roots.roots[i].objectid == BTRFS_CHUNK_TREE_OBJECTID ||
			    p3->roots.roots[i].objectid == BTRFS_ROOT_TREE_OBJECTID)
				continue;
			ret = walk_item_root(w, p3, &p3->roots.roots[i]);
		}
	}
	if (!ret)
		ret = walk_log_trees(w, p3);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* subvolume trees for the later phases: live fs trees and the data reloc tree */
static int save_fs_roots(struct check_shared *shared)
{
	size_t i, n = 0;

	shared->fs_roots = calloc(shared->nr_roots + 1, sizeof(u64));
	if (!shared->fs_roots)
		return -ENOMEM;
	for (i = 0; i < shared->nr_roots; i++) {
		const struct walk_root *r = &shared->roots[i];

		if (r->log || r->dead || r->objectid == BTRFS_TREE_RELOC_OBJECTID ||
		    !tree_is_shareable(r->objectid))
			continue;
		shared->fs_roots[n++] = r->objectid;
	}
	qsort(shared->fs_roots, n, sizeof(u64), cmp_u64);
	shared->nr_fs_roots = 0;
	for (i = 0; i < n; i++) {
		if (!i || shared->fs_roots[i] != shared->fs_roots[i - 1])
			shared->fs_roots[shared->nr_fs_roots++] = shared->fs_roots[i];
	}
	return 0;
}

int check_phase_tree_blocks(struct check_ctx *ctx)
{
	struct check_shared *shared = ctx->shared;
	struct phase3 p3;
	struct tree_walk w;
	int ret;

	memset(&p3, 0, sizeof(p3));
	p3.ctx = ctx;
	shared->tally = tally_create();
	shared->bad_blocks = block_set_create();
	shared->full_backref = block_set_create();
	shared->damaged_trees = block_set_create();
	shared->key_range_trees = block_set_create();
	if (!shared->tally || !shared->bad_blocks || !shared->full_backref ||
	    !shared->damaged_trees || !shared->key_range_trees)
		return -ENOMEM;
	ret = prescan(ctx);
	if (ret)
		return ret;
	tally_reserve(shared->tally, shared->nr_extent_items +
		      shared->nr_extent_items / 64 + 64);
	ret = tree_walk_init(&w, ctx);
	if (ret)
		return ret;
	w.report = true;
	w.full_backref = shared->full_backref;
	w.bad_blocks = shared->bad_blocks;
	w.damaged_trees = shared->damaged_trees;
	w.key_range_trees = shared->key_range_trees;
	w.data = &p3;
	w.first_visit = tally_first_visit;
	w.ref = tally_ref;
	progress_start(&ctx->progress, "tree blocks", metadata_blocks_estimate(ctx));
	ret = walk_all(&w, &p3);
	if (!ret)
		ret = p3.error;
	progress_end(&ctx->progress);
	shared->tree_blocks_seen = w.blocks;
	tree_walk_release(&w);
	/* the log trees go last: phase 5 re-walks only the others */
	if (!ret) {
		size_t i;

		for (i = 0; i < p3.log_roots.nr && !ret; i++)
			ret = root_list_add(&p3.roots, &p3.log_roots.roots[i]);
	}
	free(p3.log_roots.roots);
	shared->roots = p3.roots.roots;
	shared->nr_roots = p3.roots.nr;
	if (!ret)
		ret = save_fs_roots(shared);
	shared->walk_complete = !ret;
	return ret;
}
