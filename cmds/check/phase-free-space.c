// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 6: free space.
 *
 * The free space of a block group is its range minus its extents.  With
 * the free space tree, every block group must have a FREE_SPACE_INFO item
 * whose extent count and flags agree with the FREE_SPACE_EXTENT or
 * FREE_SPACE_BITMAP items after it, and those must describe exactly the
 * free space; items outside every block group are orphans.  Block groups,
 * the extent tree and the free space tree are all in ascending order, so
 * the three are walked together once (a sorted merge), building nothing
 * in memory.  Without the free space tree, the v1 cache is checked
 * (free-space-v1.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "phase-free-space.h"
#include "free-space-ext.h"
#include "shared.h"
#include "block-set.h"
#include "iter.h"

/* the free space tree, item by item, bitmaps bit by bit */
struct fst_iter {
	struct check_ctx *ctx;
	struct btrfs_root *root;
	struct btrfs_path path;
	bool started;
	bool done;
	bool have_item;		/* key is the current, unconsumed item */
	struct btrfs_key key;
	/* the bitmap being scanned */
	bool in_bitmap;
	u64 bm_start;
	u32 bm_bits;
	u32 bm_pos;
	u8 bitmap[BTRFS_MAX_METADATA_BLOCKSIZE];
	/* the run read ahead while merging */
	bool have_pending;
	u64 pend_start;
	u64 pend_end;
	/* per block group */
	u64 bg_start;
	u64 bg_end;
	bool saw_extents;
	bool saw_bitmaps;
	bool overlap_reported;
	char bad[200];		/* first malformed item of the block group */
};

static bool fst_peek(struct fst_iter *it)
{
	struct btrfs_key zero = { 0, 0, 0 };
	int ret;

	if (it->have_item || it->done)
		return it->have_item;
	ret = it->started ? check_iter_next(it->root, &it->path) :
			    check_iter_start(it->root, &zero, &it->path);
	it->started = true;
	if (ret) {
		it->done = true;
		return false;
	}
	btrfs_path_key(&it->path, &it->key);
	it->have_item = true;
	return true;
}

static void fst_consume(struct fst_iter *it)
{
	it->have_item = false;
}

static void note_bad(struct fst_iter *it, const char *what)
{
	char key[96];

	if (it->bad[0])
		return;
	check_format_key(&it->key, key, sizeof(key));
	snprintf(it->bad, sizeof(it->bad), "item %s: %s", key, what);
}

static bool bitmap_bit(const struct fst_iter *it, u32 bit)
{
	return it->bitmap[bit / 8] & (1U << (bit % 8));
}

/* take the bitmap item at the path; false when it is malformed */
static bool load_bitmap(struct fst_iter *it)
{
	u32 sectorsize = it->ctx->fs_info->sectorsize;
	u32 size = btrfs_item_size(it->path.nodes[0], it->path.slots[0]);
	u64 bits = it->key.offset / sectorsize;

	if (!it->key.offset || it->key.offset % sectorsize ||
	    size != (bits + 7) / 8 || size > sizeof(it->bitmap)) {
		note_bad(it, "bitmap size does not match its length");
		return false;
	}
	memcpy(it->bitmap, btrfs_item_ptr_raw(it->path.nodes[0], it->path.slots[0]), size);
	it->bm_start = it->key.objectid;
	it->bm_bits = (u32)bits;
	it->bm_pos = 0;
	it->in_bitmap = true;
	return true;
}

/* next run of set bits in the current bitmap */
static bool bitmap_run(struct fst_iter *it, u64 *start, u64 *end)
{
	u32 sectorsize = it->ctx->fs_info->sectorsize;
	u32 pos = it->bm_pos, first;

	while (pos < it->bm_bits && !(pos % 8) && !it->bitmap[pos / 8])
		pos += 8;
	while (pos < it->bm_bits && !bitmap_bit(it, pos))
		pos++;
	if (pos >= it->bm_bits) {
		it->in_bitmap = false;
		return false;
	}
	first = pos;
	while (pos < it->bm_bits && !(pos % 8) && it->bitmap[pos / 8] == 0xff &&
	       pos + 8 <= it->bm_bits)
		pos += 8;
	while (pos < it->bm_bits && bitmap_bit(it, pos))
		pos++;
	it->bm_pos = pos;
	*start = it->bm_start + (u64)first * sectorsize;
	*end = it->bm_start + (u64)pos * sectorsize;
	return true;
}

/* the next raw run of the block group: one extent item or one bitmap run */
static bool fst_raw_run(struct fst_iter *it, u64 *start, u64 *end)
{
	while (true) {
		if (it->in_bitmap && bitmap_run(it, start, end))
			return true;
		if (!fst_peek(it) || it->key.objectid >= it->bg_end ||
		    it->key.type == BTRFS_FREE_SPACE_INFO_KEY)
			return false;
		fst_consume(it);
		if (it->key.type == BTRFS_FREE_SPACE_EXTENT_KEY) {
			it->saw_extents = true;
			if (!it->key.offset ||
			    btrfs_item_size(it->path.nodes[0], it->path.slots[0])) {
				note_bad(it, "free space extent with zero length or data");
				continue;
			}
			*start = it->key.objectid;
			*end = it->key.objectid + it->key.offset;
			if (*end < *start)
				*end = (u64)-1;
			return true;
		}
		if (it->key.type == BTRFS_FREE_SPACE_BITMAP_KEY) {
			it->saw_bitmaps = true;
			load_bitmap(it);
			continue;
		}
		note_bad(it, "unexpected item type in the free space tree");
	}
}

/* the next maximal free run: adjacent raw runs merged */
static bool fst_run(struct fst_iter *it, u64 *start, u64 *end)
{
	u64 s, e;

	if (!it->have_pending && !fst_raw_run(it, &it->pend_start, &it->pend_end))
		return false;
	*start = it->pend_start;
	*end = it->pend_end;
	it->have_pending = false;
	while (fst_raw_run(it, &s, &e)) {
		if (s > *end) {
			it->pend_start = s;
			it->pend_end = e;
			it->have_pending = true;
			break;
		}
		if (s < *end && !it->overlap_reported) {
			it->overlap_reported = true;
			note_bad(it, "free space entries overlap");
		}
		if (e > *end)
			*end = e;
	}
	return true;
}

static void report_orphan(struct check_ctx *ctx, const struct btrfs_key *key,
			  const char *detail)
{
	check_problem(ctx, PR_FREE_SPACE_ORPHAN, &(struct problem_ctx){
		.key = *key, .detail = detail });
}

/*
 * mkfs.btrfs before 6.16 built the filesystem in temporary chunks below
 * the first real one and left their free space info behind: an info item
 * for a range that ends before the first block group starts (and not in
 * the first MiB, which no chunk uses).
 */
static bool is_mkfs_leftover(const struct fst_iter *it, u64 limit)
{
	const struct btrfs_key *key = &it->key;

	return !it->bg_end && limit != (u64)-1 &&
	       key->type == BTRFS_FREE_SPACE_INFO_KEY &&
	       key->objectid >= 1024 * 1024 && key->offset &&
	       key->objectid + key->offset <= limit &&
	       key->objectid + key->offset > key->objectid;
}

/*
 * Items before @limit belong to no block group.  An orphan info item is
 * reported with the extents and bitmaps of its range.
 */
static void skip_orphans(struct fst_iter *it, u64 limit)
{
	u64 orphan_end = 0;

	while (fst_peek(it) && it->key.objectid < limit) {
		if (it->key.type == BTRFS_FREE_SPACE_INFO_KEY) {
			report_orphan(it->ctx, &it->key, is_mkfs_leftover(it, limit) ?
				      "; left by mkfs.btrfs before 6.16 for its temporary chunks, harmless to the kernel; remove with ghee check --repair" :
				      "; remove with ghee check --repair");
			orphan_end = it->key.objectid + it->key.offset;
		} else if (it->key.objectid >= orphan_end) {
			report_orphan(it->ctx, &it->key, "; remove with ghee check --repair");
		}
		fst_consume(it);
	}
	it->in_bitmap = false;
	it->have_pending = false;
}

void free_run_cmp_step(struct free_run_cmp *c, bool have_a, u64 as, u64 ae,
		       bool have_b, u64 bs, u64 be, bool *adv_a, bool *adv_b)
{
	bool same = have_a && have_b && as == bs && ae == be;

	*adv_a = have_a && (!have_b || as <= bs);
	*adv_b = have_b && (!have_a || bs <= as);
	if (same || c->differs || (!have_a && !have_b))
		return;
	c->differs = true;
	if (!have_b || (have_a && as < bs))
		snprintf(c->detail, sizeof(c->detail), "[%llu, %llu) is free but the %s does not have it",
			 (unsigned long long)as,
			 (unsigned long long)(have_b && bs < ae ? bs : ae), c->store);
	else if (!have_a || bs < as)
		snprintf(c->detail, sizeof(c->detail), "[%llu, %llu) is free in the %s but extents use it",
			 (unsigned long long)bs,
			 (unsigned long long)(have_a && as < be ? as : be), c->store);
	else if (ae < be)
		snprintf(c->detail, sizeof(c->detail), "[%llu, %llu) is free in the %s but extents use it",
			 (unsigned long long)ae, (unsigned long long)be, c->store);
	else
		snprintf(c->detail, sizeof(c->detail), "[%llu, %llu) is free but the %s does not have it",
			 (unsigned long long)be, (unsigned long long)ae, c->store);
}

struct fst_info {
	bool present;
	u32 extent_count;
	u32 flags;
};

static void read_info(struct fst_iter *it, const struct check_block_group *bg,
		      struct fst_info *info)
{
	const struct btrfs_free_space_info *fsi;
	char detail[160];

	memset(info, 0, sizeof(*info));
	if (!fst_peek(it) || it->key.objectid != bg->start ||
	    it->key.type != BTRFS_FREE_SPACE_INFO_KEY) {
		check_problem(it->ctx, PR_FREE_SPACE_INFO_INVALID, &(struct problem_ctx){
			.bytenr = bg->start, .detail = "no free space info item" });
		return;
	}
	fst_consume(it);
	if (it->key.offset != bg->length) {
		snprintf(detail, sizeof(detail), "key offset %llu, the block group length is %llu",
			 (unsigned long long)it->key.offset, (unsigned long long)bg->length);
		check_problem(it->ctx, PR_FREE_SPACE_INFO_INVALID, &(struct problem_ctx){
			.bytenr = bg->start, .detail = detail });
	}
	if (btrfs_item_size(it->path.nodes[0], it->path.slots[0]) != sizeof(*fsi)) {
		check_problem(it->ctx, PR_FREE_SPACE_INFO_INVALID, &(struct problem_ctx){
			.bytenr = bg->start, .detail = "item size is not 8" });
		return;
	}
	fsi = btrfs_item_ptr(it->path.nodes[0], it->path.slots[0], struct btrfs_free_space_info);
	info->present = true;
	info->extent_count = btrfs_free_space_extent_count(fsi);
	info->flags = btrfs_free_space_flags(fsi);
}

static void check_info_item(struct fst_iter *it, const struct check_block_group *bg,
			    const struct fst_info *info, u64 runs)
{
	char detail[160];

	if (!info->present)
		return;
	detail[0] = 0;
	if (info->flags & ~BTRFS_FREE_SPACE_USING_BITMAPS)
		snprintf(detail, sizeof(detail), "unknown flags 0x%x", info->flags);
	else if (it->saw_bitmaps && !(info->flags & BTRFS_FREE_SPACE_USING_BITMAPS))
		snprintf(detail, sizeof(detail), "bitmap items but flags 0x%x lack USING_BITMAPS",
			 info->flags);
	else if (it->saw_extents && (info->flags & BTRFS_FREE_SPACE_USING_BITMAPS))
		snprintf(detail, sizeof(detail), "extent items but flags 0x%x say USING_BITMAPS",
			 info->flags);
	if (detail[0])
		check_problem(it->ctx, PR_FREE_SPACE_INFO_INVALID, &(struct problem_ctx){
			.bytenr = bg->start, .detail = detail });
	if (info->extent_count != runs) {
		snprintf(detail, sizeof(detail), "extent_count %u, the tree holds %llu free extents",
			 info->extent_count, (unsigned long long)runs);
		check_problem(it->ctx, PR_FREE_SPACE_INFO_INVALID, &(struct problem_ctx){
			.bytenr = bg->start, .detail = detail });
	}
}

static void check_block_group_fst(struct fst_iter *it, struct free_space_ext *ext,
				  const struct check_block_group *bg)
{
	struct free_run_cmp cmp = { .store = "free space tree" };
	bool have_a, have_b, adv_a = true, adv_b = true;
	u64 as = 0, ae = 0, bs = 0, be = 0, runs = 0;
	struct fst_info info;

	skip_orphans(it, bg->start);
	it->bg_start = bg->start;
	it->bg_end = bg->start + bg->length;
	it->saw_extents = it->saw_bitmaps = it->overlap_reported = false;
	it->bad[0] = 0;
	read_info(it, bg, &info);
	free_space_ext_begin(ext, bg, false);
	have_a = have_b = true;
	while (have_a || have_b) {
		if (adv_a)
			have_a = free_space_ext_next(ext, &as, &ae);
		if (adv_b) {
			have_b = fst_run(it, &bs, &be);
			runs += have_b;
		}
		free_run_cmp_step(&cmp, have_a, as, ae, have_b, bs, be, &adv_a, &adv_b);
	}
	if (it->bad[0])
		check_problem(it->ctx, PR_FREE_SPACE_MISMATCH, &(struct problem_ctx){
			.bytenr = bg->start, .detail = it->bad });
	if (cmp.differs)
		check_problem(it->ctx, PR_FREE_SPACE_MISMATCH, &(struct problem_ctx){
			.bytenr = bg->start, .detail = cmp.detail });
	check_info_item(it, bg, &info, runs);
	it->in_bitmap = false;
	it->have_pending = false;
}

static int check_free_space_tree(struct check_ctx *ctx)
{
	const struct check_shared *shared = ctx->shared;
	struct free_space_ext ext;
	struct fst_iter *it;
	size_t i;

	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->ctx = ctx;
	it->root = &ctx->fs_info->free_space_root;
	btrfs_init_path(&it->path);
	free_space_ext_init(&ext, ctx->fs_info);
	progress_start(&ctx->progress, "block groups", shared->nr_block_groups);
	for (i = 0; i < shared->nr_block_groups; i++) {
		check_block_group_fst(it, &ext, &shared->block_groups[i]);
		progress_update(&ctx->progress, i + 1);
	}
	skip_orphans(it, (u64)-1);
	if (fst_peek(it))	/* objectid (u64)-1 itself */
		report_orphan(ctx, &it->key, "; remove with ghee check --repair");
	progress_end(&ctx->progress);
	free_space_ext_release(&ext);
	btrfs_release_path(&it->path);
	free(it);
	return 0;
}

int check_phase_free_space(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs_info = ctx->fs_info;
	const struct btrfs_super_block *sb = &fs_info->super_copy;
	bool fst = btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE);
	int ret;

	if (!fs_info->extent_root.node ||
	    block_set_has(ctx->shared->damaged_trees, BTRFS_EXTENT_TREE_OBJECTID)) {
		check_info(ctx, "extent tree damaged, free space not checked");
		return 0;
	}
	if (fst && (!fs_info->free_space_root.node ||
		    block_set_has(ctx->shared->damaged_trees, BTRFS_FREE_SPACE_TREE_OBJECTID))) {
		check_info(ctx, "free space tree damaged, not checked");
	} else if (fst && !btrfs_fs_compat_ro(fs_info,
					      BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID)) {
		check_info(ctx, "free space tree not marked valid, the kernel rebuilds it; not checked");
	} else if (fst) {
		ret = check_free_space_tree(ctx);
		if (ret)
			return ret;
	}
	/* v1 cache inodes may be left over even with the free space tree */
	return check_free_space_cache_v1(ctx, !fst && btrfs_super_cache_generation(sb) &&
					 btrfs_super_cache_generation(sb) ==
					 btrfs_super_generation(sb));
}
