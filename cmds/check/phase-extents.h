/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Phase 5 internals, shared by its files:
 *   phase-extents.c         streams the extent tree, compares each extent's
 *                           back references with the tally of phase 3
 *   phase-extents-bg.c      block group membership and used bytes,
 *                           superblock bytes_used
 *   phase-extents-detail.c  for the extents that differ, the exact
 *                           references on both sides
 */
#ifndef GHEE_CHECK_PHASE_EXTENTS_H
#define GHEE_CHECK_PHASE_EXTENTS_H

#include <stdbool.h>
#include "check.h"
#include "extent-refs.h"

struct extent_tally;
struct block_set;

struct phase5 {
	struct check_ctx *ctx;
	struct btrfs_fs_info *fs_info;
	struct extent_tally *tally;

	/* the extent item being read and its back references so far */
	bool active;
	bool unparsable;
	struct extent_info cur;
	u64 cur_sum;		/* sum of identities * counts of its backrefs */
	u64 cur_count;		/* sum of their counts (inline and keyed) */

	u64 prev_end;		/* end of the furthest extent so far */
	u64 extents;		/* extent items seen */

	/* block groups (phase-extents-bg.c) */
	size_t bg_cursor;
	u64 *bg_found_used;	/* per block group: bytes its extents cover */

	/* extents to look at again in detail (phase-extents-detail.c) */
	struct block_set *mismatch;
	struct block_set *missing;	/* referenced, but no extent item */
	int error;
};

int extents_bg_init(struct phase5 *p5);
void extents_bg_account(struct phase5 *p5, const struct extent_info *info);
void extents_bg_finish(struct phase5 *p5);
void extents_bg_release(struct phase5 *p5);

/* report the exact differences of the extents in p5->mismatch */
int extents_report_details(struct phase5 *p5);

#endif
