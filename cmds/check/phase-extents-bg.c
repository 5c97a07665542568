// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 5, block groups: every extent lies inside one block group of the
 * matching type, the bytes of a block group's extents add up to its
 * `used`, and the block groups add up to the superblock's bytes_used.
 * Extents arrive in ascending order, so one cursor over the sorted block
 * groups finds each extent's block group.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "phase-extents.h"
#include "shared.h"
#include "kernel-shared/volumes.h"

int extents_bg_init(struct phase5 *p5)
{
	size_t nr = p5->ctx->shared->nr_block_groups;

	p5->bg_cursor = 0;
	p5->bg_found_used = calloc(nr ? nr : 1, sizeof(u64));
	return p5->bg_found_used ? 0 : -ENOMEM;
}

void extents_bg_release(struct phase5 *p5)
{
	free(p5->bg_found_used);
	p5->bg_found_used = NULL;
}

static void outside(struct phase5 *p5, const struct extent_info *info,
		    const char *detail)
{
	check_problem(p5->ctx, PR_EXTENT_OUTSIDE_BLOCK_GROUP, &(struct problem_ctx){
		.bytenr = info->bytenr, .len = info->len, .detail = detail });
}

/* tree blocks must not cross a 64KiB stripe: the kernel cannot read them */
static void check_stripe_crossing(struct phase5 *p5, const struct extent_info *info)
{
	u64 first = info->bytenr / BTRFS_STRIPE_LEN;
	u64 last = (info->bytenr + p5->fs_info->nodesize - 1) / BTRFS_STRIPE_LEN;

	if (p5->fs_info->nodesize >= BTRFS_STRIPE_LEN || first == last)
		return;
	check_problem(p5->ctx, PR_EXTENT_ITEM_INVALID, &(struct problem_ctx){
		.bytenr = info->bytenr, .len = info->len,
		.detail = "tree block crosses a 64KiB stripe boundary" });
}

void extents_bg_account(struct phase5 *p5, const struct extent_info *info)
{
	const struct check_shared *shared = p5->ctx->shared;
	const struct check_block_group *bg;
	u64 want, len = info->len, end;
	char detail[160];

	if (info->tree_block)
		check_stripe_crossing(p5, info);
	while (p5->bg_cursor < shared->nr_block_groups) {
		bg = &shared->block_groups[p5->bg_cursor];
		if (bg->start + bg->length > info->bytenr)
			break;
		p5->bg_cursor++;
	}
	if (p5->bg_cursor >= shared->nr_block_groups ||
	    shared->block_groups[p5->bg_cursor].start > info->bytenr) {
		outside(p5, info, "no block group holds it");
		return;
	}
	bg = &shared->block_groups[p5->bg_cursor];
	end = bg->start + bg->length;
	if (len > end - info->bytenr) {
		snprintf(detail, sizeof(detail), "it crosses the end of block group %llu length %llu",
			 (unsigned long long)bg->start, (unsigned long long)bg->length);
		outside(p5, info, detail);
		len = end - info->bytenr;
	}
	want = info->tree_block ? BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM :
				  BTRFS_BLOCK_GROUP_DATA;
	if (!(bg->flags & want)) {
		snprintf(detail, sizeof(detail), "a %s extent in block group %llu of type 0x%llx",
			 info->tree_block ? "tree block" : "data",
			 (unsigned long long)bg->start, (unsigned long long)bg->flags);
		outside(p5, info, detail);
	}
	p5->bg_found_used[p5->bg_cursor] += len;
}

void extents_bg_finish(struct phase5 *p5)
{
	const struct check_shared *shared = p5->ctx->shared;
	u64 total = 0, super_used;
	size_t i;

	for (i = 0; i < shared->nr_block_groups; i++) {
		const struct check_block_group *bg = &shared->block_groups[i];
		const struct map_lookup *ml = chunk_map_lookup(&p5->fs_info->chunk_map, bg->start);

		/* a block group item is the accounting of one chunk, exactly */
		if (!ml || ml->logical != bg->start || ml->length != bg->length) {
			check_problem(p5->ctx, PR_BLOCK_GROUP_NO_CHUNK, &(struct problem_ctx){
				.bytenr = bg->start, .len = bg->length });
			continue;
		}
		total += p5->bg_found_used[i];
		if (bg->used == p5->bg_found_used[i])
			continue;
		check_problem(p5->ctx, PR_BLOCK_GROUP_USED, &(struct problem_ctx){
			.bytenr = bg->start, .len = bg->length, .found = bg->used,
			.expected = p5->bg_found_used[i] });
	}
	super_used = btrfs_super_bytes_used(&p5->fs_info->super_copy);
	if (shared->nr_block_groups && super_used != total)
		check_problem(p5->ctx, PR_SUPER_BYTES_USED, &(struct problem_ctx){
			.found = super_used, .expected = total });
}
