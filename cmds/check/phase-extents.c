// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 5: the extent tree against the references the trees make.
 *
 * One pass over the extent tree in key order.  Each extent item and the
 * keyed back references after it are summed the way phase 3 summed the
 * references it found while walking the trees (extent-tally.h); equal
 * counts and sums mean the extent is consistent.  On the way: the item's
 * own rules (flags, generation, level, inline reference order, refs field
 * equal to the sum of its back reference counts), overlaps, block group
 * membership and used bytes.  Afterwards, tally entries no extent item
 * claimed are extents referenced without an extent item, and the few
 * extents that differed are looked at again reference by reference.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "phase-extents.h"
#include "shared.h"
#include "block-set.h"
#include "extent-tally.h"
#include "iter.h"
#include "kernel-shared/ctree.h"

static void extent_problem(struct phase5 *p5, enum problem_code code,
			   const struct extent_info *info, const char *detail)
{
	check_problem(p5->ctx, code, &(struct problem_ctx){
		.bytenr = info->bytenr, .len = info->len, .detail = detail });
}

static void add_backref(void *data, const struct backref *ref)
{
	struct phase5 *p5 = data;

	p5->cur_sum += backref_ident(ref) * ref->count;
	p5->cur_count += ref->count;
}

static void mark_mismatch(struct phase5 *p5, u64 bytenr)
{
	if (block_set_add(p5->mismatch, bytenr) < 0)
		p5->error = -ENOMEM;
}

/* what the trees say about the extent against what its extent item says */
static void compare_with_tally(struct phase5 *p5, const struct extent_info *info,
			       struct tally_entry *t)
{
	char detail[160];

	if (info->tree_block ? !(t->flags & TALLY_TREE) : !(t->flags & TALLY_DATA)) {
		snprintf(detail, sizeof(detail), "a %s extent, but the trees point to it as %s",
			 info->tree_block ? "tree block" : "data",
			 info->tree_block ? "file data" : "a tree block");
		extent_problem(p5, PR_EXTENT_ITEM_INVALID, info, detail);
	} else if (info->tree_block && info->level >= 0 && info->level < BTRFS_MAX_LEVEL &&
		   (info->level != t->level || (t->flags & TALLY_LEVEL_MIXED))) {
		snprintf(detail, sizeof(detail), "level %d, but its parent pointers say level %u",
			 info->level, t->level);
		extent_problem(p5, PR_EXTENT_ITEM_INVALID, info, detail);
	}
	if (info->refs != t->count)
		check_problem(p5->ctx, PR_EXTENT_REF_MISMATCH, &(struct problem_ctx){
			.bytenr = info->bytenr, .len = info->len,
			.found = info->refs, .expected = t->count });
	if (p5->cur_count != t->count || p5->cur_sum != t->sum)
		mark_mismatch(p5, info->bytenr);
}

/* all back references of the current extent are in: judge it */
static void finish_extent(struct phase5 *p5)
{
	struct extent_info *info = &p5->cur;
	struct tally_entry *t;
	char detail[160];

	if (!p5->active)
		return;
	p5->active = false;
	t = tally_lookup(p5->tally, info->bytenr);
	if (t && (t->flags & TALLY_MATCHED))
		return;		/* a second item for one extent: an overlap, reported */
	if (t)
		t->flags |= TALLY_MATCHED;
	if (p5->unparsable)
		return;		/* reported; its references cannot be compared */
	if (p5->cur_count != info->refs) {
		snprintf(detail, sizeof(detail), "refs %llu, but its back references count %llu",
			 (unsigned long long)info->refs, (unsigned long long)p5->cur_count);
		extent_problem(p5, PR_EXTENT_ITEM_INVALID, info, detail);
	}
	if (!t || !t->count) {
		check_problem(p5->ctx, PR_EXTENT_ITEM_UNUSED, &(struct problem_ctx){
			.bytenr = info->bytenr, .len = info->len, .found = info->refs });
		return;
	}
	compare_with_tally(p5, info, t);
}

static void start_extent(struct phase5 *p5, const struct extent_buffer *leaf,
			 int slot, const struct btrfs_key *key)
{
	struct extent_info *info = &p5->cur;
	int ret;

	p5->active = true;
	p5->cur_sum = 0;
	p5->cur_count = 0;
	p5->extents++;
	ret = extent_item_parse(p5->fs_info, leaf, slot, key, info, add_backref, p5);
	p5->unparsable = ret < 0;
	if (info->why[0])
		extent_problem(p5, PR_EXTENT_ITEM_INVALID, info, info->why);
	if (info->bytenr < p5->prev_end)
		check_problem(p5->ctx, PR_EXTENT_OVERLAP, &(struct problem_ctx){
			.bytenr = info->bytenr, .len = info->len,
			.expected = p5->prev_end });
	if (info->bytenr + info->len > p5->prev_end && info->bytenr + info->len > info->bytenr)
		p5->prev_end = info->bytenr + info->len;
	extents_bg_account(p5, info);
}

/* a keyed back reference item */
static void keyed_backref(struct phase5 *p5, const struct extent_buffer *leaf,
			  int slot, const struct btrfs_key *key)
{
	char why[160], what[96], detail[300];
	struct backref ref;
	int ret;

	if (!p5->active || p5->cur.bytenr != key->objectid) {
		check_problem(p5->ctx, PR_EXTENT_BACKREF_NO_ITEM, &(struct problem_ctx){
			.bytenr = key->objectid, .key = *key });
		return;
	}
	ret = keyed_backref_parse(leaf, slot, key, p5->cur.len, &ref, why, sizeof(why));
	backref_describe(&ref, what, sizeof(what));
	if (ret) {
		snprintf(detail, sizeof(detail), "%s: %s", what, why);
		extent_problem(p5, PR_EXTENT_ITEM_INVALID, &p5->cur, detail);
		if (key->type != BTRFS_EXTENT_DATA_REF_KEY || ref.count == 0)
			return;
	}
	if (ref.type == BTRFS_TREE_BLOCK_REF_KEY || ref.type == BTRFS_SHARED_BLOCK_REF_KEY ?
	    !p5->cur.tree_block : p5->cur.tree_block) {
		snprintf(detail, sizeof(detail), "%s does not belong to a %s extent", what,
			 p5->cur.tree_block ? "tree block" : "data");
		extent_problem(p5, PR_EXTENT_ITEM_INVALID, &p5->cur, detail);
	}
	add_backref(p5, &ref);
}

static int stream_extent_tree(struct phase5 *p5)
{
	struct btrfs_root *root = &p5->fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0 && !p5->error) {
		const struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];

		btrfs_item_key_to_cpu(leaf, &key, slot);
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			finish_extent(p5);
			start_extent(p5, leaf, slot, &key);
			progress_update(&p5->ctx->progress, p5->extents);
		} else if (is_keyed_backref_type(key.type)) {
			keyed_backref(p5, leaf, slot, &key);
		} else if (key.type == BTRFS_EXTENT_REF_V0_KEY) {
			check_problem(p5->ctx, PR_EXTENT_BACKREF_NO_ITEM, &(struct problem_ctx){
				.bytenr = key.objectid, .key = key });
		}
		ret = check_iter_next(root, &path);
	}
	finish_extent(p5);
	btrfs_release_path(&path);
	if (ret < 0 && ret != -EIO)
		return ret;
	return p5->error;
}

/* tally entries no extent item claimed: referenced, but no extent item */
static int collect_missing(struct phase5 *p5)
{
	struct tally_entry *t;
	size_t pos = 0;

	while ((t = tally_next(p5->tally, &pos))) {
		if ((t->flags & TALLY_MATCHED) || !t->count)
			continue;
		if (block_set_add(p5->missing, t->bytenr) < 0 ||
		    block_set_add(p5->mismatch, t->bytenr) < 0)
			return -ENOMEM;
	}
	return 0;
}

int check_phase_extents(struct check_ctx *ctx)
{
	struct phase5 p5;
	int ret;

	if (!ctx->shared->walk_complete)
		return -ENOENT;	/* phase 3 stopped early: nothing to compare with */
	if (!ctx->fs_info->extent_root.node) {
		check_info(ctx, "extent tree unreadable, references not checked");
		return 0;
	}
	memset(&p5, 0, sizeof(p5));
	p5.ctx = ctx;
	p5.fs_info = ctx->fs_info;
	p5.tally = ctx->shared->tally;
	p5.mismatch = block_set_create();
	p5.missing = block_set_create();
	ret = (!p5.mismatch || !p5.missing) ? -ENOMEM : extents_bg_init(&p5);
	if (ret)
		goto out;
	progress_start(&ctx->progress, "extents", ctx->shared->nr_extent_items);
	ret = stream_extent_tree(&p5);
	progress_end(&ctx->progress);
	if (block_set_has(ctx->shared->damaged_trees, BTRFS_EXTENT_TREE_OBJECTID)) {
		/* items in unreadable leaves would all look missing */
		check_info(ctx, "extent tree damaged: block group usage and extents without items not checked");
	} else {
		if (!ret)
			extents_bg_finish(&p5);
		if (!ret)
			ret = collect_missing(&p5);
	}
	if (!ret && block_set_count(p5.mismatch))
		ret = extents_report_details(&p5);
out:
	extents_bg_release(&p5);
	block_set_destroy(p5.mismatch);
	block_set_destroy(p5.missing);
	return ret;
}
