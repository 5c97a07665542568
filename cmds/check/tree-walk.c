// SPDX-License-Identifier: GPL-2.0
/*
 * Depth-first walk of one tree: each block is read with the expectations
 * of its parent pointer, verified, its references handed out, and its
 * children walked unless another tree (a snapshot) walked them already.
 * The recursion is bounded: a child's level is always its parent's minus
 * one, and levels are below BTRFS_MAX_LEVEL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "shared.h"
#include "tree-walk.h"
#include "block-set.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/tree-checker.h"

/* what a block is expected to be, from its parent pointer or root item */
struct walk_expect {
	u64 bytenr;
	u64 parent;		/* 0 for a root node */
	u64 parent_gen;		/* generation of the parent block, 0 for a root */
	struct tree_block_check check;
	bool has_hi;		/* keys must stay below @hi */
	struct btrfs_key hi;
	u64 hi_from;		/* the node @hi is a key of */
	bool partial;		/* on the path of an interrupted snapshot drop */
};

bool tree_is_shareable(u64 objectid)
{
	return objectid == BTRFS_FS_TREE_OBJECTID ||
	       objectid == BTRFS_TREE_RELOC_OBJECTID ||
	       objectid == BTRFS_DATA_RELOC_TREE_OBJECTID ||
	       (objectid >= BTRFS_FIRST_FREE_OBJECTID &&
		objectid <= BTRFS_LAST_FREE_OBJECTID);
}

int tree_walk_init(struct tree_walk *w, struct check_ctx *ctx)
{
	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->fs_info = ctx->fs_info;
	w->super_generation = btrfs_super_generation(&ctx->fs_info->super_copy);
	w->log_seen = block_set_create();
	return w->log_seen ? 0 : -ENOMEM;
}

void tree_walk_release(struct tree_walk *w)
{
	block_set_destroy(w->log_seen);
	w->log_seen = NULL;
}

/* the part of a tree-checker message after its "corrupt leaf: ..., " prefix */
static const char *strip_checker_prefix(const char *msg)
{
	const char *p;

	if (strncmp(msg, "corrupt ", 8))
		return msg;
	p = strstr(msg, ", ");
	return p ? p + 2 : msg;
}

static void report_block(struct tree_walk *w, const struct walk_root *r,
			 enum problem_code code, u64 bytenr, const char *detail)
{
	if (!w->report)
		return;
	check_problem(w->ctx, code, &(struct problem_ctx){
		.root = r->objectid, .block = bytenr, .detail = detail });
}

static void mark_bad(struct tree_walk *w, const struct walk_root *r, u64 bytenr)
{
	w->bad++;
	if (w->bad_blocks && block_set_add(w->bad_blocks, bytenr) < 0)
		w->error = -ENOMEM;
	if (w->damaged_trees && block_set_add(w->damaged_trees, r->objectid) < 0)
		w->error = -ENOMEM;
}

/* does the damaged block @eb still match what its parent expects */
static bool header_as_expected(const struct extent_buffer *eb,
			       const struct tree_block_check *check)
{
	if (check->level >= 0 && btrfs_eb_level(eb) != check->level)
		return false;
	if (check->transid && btrfs_eb_generation(eb) != check->transid)
		return false;
	return true;
}

/* the smallest key above @key; false when there is none */
static bool key_after(const struct btrfs_key *key, struct btrfs_key *next)
{
	*next = *key;
	if (++next->offset)
		return true;
	if (++next->type)
		return true;
	return ++next->objectid != 0;
}

/*
 * The keys searches may have put in a block the walk cannot use: the
 * range its parent gives it, widened to the block's own first and last
 * keys when its content is readable (a first key below the parent's, or
 * items past the next one, are in the tree too, where no search sees
 * them).  A node's last subtree has no bound of its own.
 */
static void damaged_range(const struct walk_expect *ex, const struct extent_buffer *eb,
			  struct problem_ctx *pc)
{
	u32 nr = eb ? btrfs_eb_nritems(eb) : 0;
	struct btrfs_key first, last, next;

	pc->has_range = true;
	if (ex->check.has_first_key)
		pc->range_lo = ex->check.first_key;
	pc->has_range_hi = ex->has_hi;
	pc->range_hi = ex->hi;
	if (!nr)
		return;
	if (btrfs_eb_level(eb)) {
		btrfs_node_key_to_cpu(eb, &first, 0);
		btrfs_node_key_to_cpu(eb, &last, nr - 1);
	} else {
		btrfs_item_key_to_cpu(eb, &first, 0);
		btrfs_item_key_to_cpu(eb, &last, nr - 1);
	}
	if (btrfs_comp_cpu_keys(&first, &pc->range_lo) < 0)
		pc->range_lo = first;
	if (!pc->has_range_hi || btrfs_comp_cpu_keys(&last, &pc->range_hi) < 0)
		return;
	if (btrfs_eb_level(eb) || !key_after(&last, &next))
		pc->has_range_hi = false;
	else
		pc->range_hi = next;
}

static void report_damaged(struct tree_walk *w, const struct walk_root *r,
			   const struct walk_expect *ex, const struct extent_buffer *eb,
			   enum problem_code code, const char *why)
{
	struct problem_ctx pc = { .root = r->objectid, .block = ex->bytenr, .detail = why };

	if (!w->report)
		return;
	damaged_range(ex, eb, &pc);
	check_problem(w->ctx, code, &pc);
}

/* can what @eb holds be walked: the block its parent expects, a sound layout */
static bool walkable(const struct btrfs_fs_info *fs_info, const struct extent_buffer *eb,
		     const struct walk_expect *ex)
{
	struct tree_check_error terr;
	u32 nr = btrfs_eb_nritems(eb);

	if (!header_as_expected(eb, &ex->check))
		return false;
	if (btrfs_eb_level(eb))
		return nr >= 1 && nr <= btrfs_max_node_ptrs(eb->len);
	return !btrfs_check_leaf_layout(fs_info, eb, &terr);
}

/*
 * A block failed the full read.  Report why, then look at its header
 * alone: when the checksum and the header are sound and match the parent
 * pointer, only the layout is damaged, and what can still be walked
 * safely (the pointers of a node, the items of a leaf whose layout is
 * fine) is returned so the walk goes on below it.
 */
static struct extent_buffer *read_damaged(struct tree_walk *w,
					  const struct walk_root *r,
					  const struct walk_expect *ex)
{
	struct btrfs_fs_info *fs_info = w->fs_info;
	struct extent_buffer *eb;
	char why[sizeof(w->ctx->shared->last_engine_msg)];
	bool usable;
	int err;

	snprintf(why, sizeof(why), "%s", w->ctx->shared->last_engine_msg);
	mark_bad(w, r, ex->bytenr);
	eb = read_tree_block_header_only(fs_info, ex->bytenr, NULL, &err);
	if (!eb) {
		report_damaged(w, r, ex, NULL, PR_TREE_BLOCK_UNREADABLE, why);
		return NULL;
	}
	usable = walkable(fs_info, eb, ex);
	report_damaged(w, r, ex, usable ? eb : NULL, PR_TREE_BLOCK_INVALID, why);
	if (usable)
		return eb;
	free_extent_buffer(eb);
	return NULL;
}

static bool valid_owner(const struct walk_root *r, u64 owner, u64 *expect)
{
	*expect = r->log ? BTRFS_TREE_LOG_OBJECTID : r->objectid;
	if (r->log || !tree_is_shareable(r->objectid))
		return owner == *expect;
	return tree_is_shareable(owner);
}

/* owner, generation, emptiness and the key range the parent allows */
static void check_block_header(struct tree_walk *w, const struct walk_root *r,
			       const struct extent_buffer *eb,
			       const struct walk_expect *ex)
{
	u64 gen = btrfs_eb_generation(eb), owner = btrfs_eb_owner(eb), expect;
	u64 max_gen = w->super_generation + (r->log ? 1 : 0);
	u32 nr = btrfs_eb_nritems(eb);
	char detail[256];

	if (!valid_owner(r, owner, &expect)) {
		if (tree_is_shareable(expect))
			snprintf(detail, sizeof(detail), "owner %llu is not a subvolume or reloc tree",
				 (unsigned long long)owner);
		else
			snprintf(detail, sizeof(detail), "owner %llu, expect %llu",
				 (unsigned long long)owner, (unsigned long long)expect);
		report_block(w, r, PR_TREE_BLOCK_INVALID, eb->start, detail);
	}
	if (gen > max_gen || (ex->parent_gen && gen > ex->parent_gen)) {
		snprintf(detail, sizeof(detail),
			 "generation %llu is newer than its %s (%llu)",
			 (unsigned long long)gen,
			 gen > max_gen ? "superblock" : "parent",
			 (unsigned long long)(gen > max_gen ? max_gen : ex->parent_gen));
		report_block(w, r, PR_TREE_BLOCK_INVALID, eb->start, detail);
	}
	if (!nr && ex->parent) {
		report_block(w, r, PR_TREE_BLOCK_INVALID, eb->start,
			     "leaf has no items but is not a tree root");
		return;
	}
	if (nr && ex->has_hi) {
		struct btrfs_key last;
		char hi[96];

		if (btrfs_eb_level(eb))
			btrfs_node_key_to_cpu(eb, &last, nr - 1);
		else
			btrfs_item_key_to_cpu(eb, &last, nr - 1);
		if (btrfs_comp_cpu_keys(&last, &ex->hi) >= 0 && w->report) {
			check_format_key(&ex->hi, hi, sizeof(hi));
			snprintf(detail, sizeof(detail), "expect keys below %s (next key in %s %llu)",
				 hi, ex->hi_from == ex->parent ? "parent" : "node",
				 (unsigned long long)ex->hi_from);
			check_problem(w->ctx, PR_TREE_KEY_RANGE, &(struct problem_ctx){
				.root = r->objectid, .block = eb->start, .key = last,
				.detail = detail });
			if (w->key_range_trees &&
			    block_set_add(w->key_range_trees, r->objectid) < 0)
				w->error = -ENOMEM;
		}
	}
}

static bool is_full_backref(const struct tree_walk *w, const struct extent_buffer *eb)
{
	if (btrfs_header_backref_rev(eb_header(eb)) < BTRFS_MIXED_BACKREF_REV)
		return true;
	return block_set_has(w->full_backref, eb->start);
}

static void emit(struct tree_walk *w, const struct walk_ref *ref)
{
	if (w->ref)
		w->ref(w, ref);
}

/* the reference of one file extent item, if it makes one */
static void emit_file_extent(struct tree_walk *w, const struct walk_root *r,
			     const struct extent_buffer *leaf, int slot,
			     const struct btrfs_key *key, bool full)
{
	const struct btrfs_file_extent_item *fi;
	struct walk_ref ref;
	u8 type;

	if (btrfs_item_size(leaf, slot) < sizeof(*fi))
		return;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	type = btrfs_file_extent_type(fi);
	if (type != BTRFS_FILE_EXTENT_REG && type != BTRFS_FILE_EXTENT_PREALLOC)
		return;
	if (!btrfs_file_extent_disk_bytenr(fi))
		return;
	memset(&ref, 0, sizeof(ref));
	ref.bytenr = btrfs_file_extent_disk_bytenr(fi);
	ref.len = btrfs_file_extent_disk_num_bytes(fi);
	ref.from = leaf->start;
	ref.slot = slot;
	ref.tree = r->objectid;
	if (full) {
		ref.type = BTRFS_SHARED_DATA_REF_KEY;
		ref.root_or_parent = leaf->start;
	} else {
		ref.type = BTRFS_EXTENT_DATA_REF_KEY;
		ref.root_or_parent = btrfs_eb_owner(leaf);
		ref.objectid = key->objectid;
		ref.offset = key->offset - btrfs_file_extent_offset(fi);
	}
	emit(w, &ref);
}

static void walk_leaf_items(struct tree_walk *w, const struct walk_root *r,
			    const struct extent_buffer *leaf)
{
	u32 nr = btrfs_eb_nritems(leaf), i;
	bool full = !r->log && is_full_backref(w, leaf);
	struct tree_check_error terr;
	bool items_ok = w->report;
	struct btrfs_key key;

	for (i = 0; i < nr; i++) {
		btrfs_item_key_to_cpu(leaf, &key, i);
		if (w->report && btrfs_check_item(w->fs_info, leaf, i, &terr)) {
			check_problem(w->ctx, PR_TREE_ITEM_INVALID, &(struct problem_ctx){
				.root = r->objectid, .block = leaf->start,
				.slot = (int)i, .key = key,
				.detail = strip_checker_prefix(terr.msg) });
			items_ok = false;
		}
		if (!r->log && key.type == BTRFS_EXTENT_DATA_KEY)
			emit_file_extent(w, r, leaf, i, &key, full);
	}
	if (w->leaf)
		w->leaf(w, r, leaf, items_ok);
}

static bool first_visit(struct tree_walk *w, const struct walk_root *r, u64 bytenr)
{
	if (r->log) {
		int ret = block_set_add(w->log_seen, bytenr);

		if (ret < 0)
			w->error = ret;
		return ret > 0;
	}
	return w->first_visit(w, r, bytenr);
}

/*
 * For a tree whose drop was interrupted: is the child at @slot of the
 * path node @eb gone (-1), on the drop path (0), or intact (1).  The drop
 * frees subtrees in key order; drop_key at drop_level is the first slot
 * not yet freed, and the nodes on the search path to it are still live.
 */
static int drop_state(const struct walk_root *r, const struct extent_buffer *eb,
		      int slot)
{
	u32 nr = btrfs_eb_nritems(eb);
	struct btrfs_key key, next;

	btrfs_node_key_to_cpu(eb, &key, slot);
	if (btrfs_comp_cpu_keys(&key, &r->drop_key) >= 0)
		return 1;
	if (btrfs_eb_level(eb) <= r->drop_level)
		return -1;
	if ((u32)slot + 1 < nr) {
		btrfs_node_key_to_cpu(eb, &next, slot + 1);
		if (btrfs_comp_cpu_keys(&next, &r->drop_key) <= 0)
			return -1;
	}
	return 0;
}

static void walk_block(struct tree_walk *w, const struct walk_root *r,
		       const struct walk_expect *ex);

static void walk_node_children(struct tree_walk *w, const struct walk_root *r,
			       const struct extent_buffer *eb,
			       const struct walk_expect *ex)
{
	u32 nr = btrfs_eb_nritems(eb), i;
	bool full = !r->log && is_full_backref(w, eb);
	int level = btrfs_eb_level(eb);

	for (i = 0; i < nr && !w->error; i++) {
		struct walk_expect child;
		struct walk_ref ref;
		int state = ex->partial ? drop_state(r, eb, i) : 1;

		if (state < 0)
			continue;
		memset(&child, 0, sizeof(child));
		child.bytenr = btrfs_node_blockptr(eb, i);
		child.parent = eb->start;
		child.parent_gen = btrfs_eb_generation(eb);
		child.check.transid = btrfs_node_ptr_generation(eb, i);
		child.check.level = level - 1;
		child.check.has_first_key = true;
		btrfs_node_key_to_cpu(eb, &child.check.first_key, i);
		if (i + 1 < nr) {
			child.has_hi = true;
			btrfs_node_key_to_cpu(eb, &child.hi, i + 1);
			child.hi_from = eb->start;
		} else if (ex->has_hi) {
			child.has_hi = true;
			child.hi = ex->hi;
			child.hi_from = ex->hi_from;
		}
		child.partial = state == 0;
		if (!r->log) {
			memset(&ref, 0, sizeof(ref));
			ref.bytenr = child.bytenr;
			ref.type = full ? BTRFS_SHARED_BLOCK_REF_KEY : BTRFS_TREE_BLOCK_REF_KEY;
			ref.root_or_parent = full ? eb->start : btrfs_eb_owner(eb);
			ref.level = level - 1;
			ref.from = eb->start;
			ref.slot = i;
			ref.tree = r->objectid;
			emit(w, &ref);
		}
		if (first_visit(w, r, child.bytenr))
			walk_block(w, r, &child);
	}
}

static void walk_block(struct tree_walk *w, const struct walk_root *r,
		       const struct walk_expect *ex)
{
	struct extent_buffer *eb;
	int err;

	eb = read_tree_block(w->fs_info, ex->bytenr, &ex->check, &err);
	if (!eb)
		eb = read_damaged(w, r, ex);
	if (!eb)
		return;
	w->blocks++;
	if (w->report)
		progress_update(&w->ctx->progress, w->blocks);
	if (w->report)
		check_block_header(w, r, eb, ex);
	if (btrfs_eb_level(eb) == 0)
		walk_leaf_items(w, r, eb);
	else
		walk_node_children(w, r, eb, ex);
	free_extent_buffer(eb);
}

int tree_walk_root(struct tree_walk *w, const struct walk_root *r)
{
	struct walk_expect ex;
	struct walk_ref ref;

	if (!r->bytenr)
		return 0;
	memset(&ex, 0, sizeof(ex));
	ex.bytenr = r->bytenr;
	ex.check.transid = r->generation;
	ex.check.level = r->level;
	ex.partial = r->has_drop;
	if (!r->log) {
		memset(&ref, 0, sizeof(ref));
		ref.bytenr = r->bytenr;
		ref.level = r->level;
		ref.tree = r->objectid;
		if (r->objectid == BTRFS_TREE_RELOC_OBJECTID) {
			ref.type = BTRFS_SHARED_BLOCK_REF_KEY;
			ref.root_or_parent = r->bytenr;
		} else {
			ref.type = BTRFS_TREE_BLOCK_REF_KEY;
			ref.root_or_parent = r->objectid;
		}
		emit(w, &ref);
	}
	if (first_visit(w, r, r->bytenr))
		walk_block(w, r, &ex);
	return w->error;
}
