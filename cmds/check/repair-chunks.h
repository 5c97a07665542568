/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repair actions of chunks, block group items, device extents and device
 * sizes (repair-chunks.c), of the root refs (repair-root-refs.c), of the
 * quota status (repair-qgroups.c) and of the log tree (repair-log.c).
 */
#ifndef GHEE_CHECK_REPAIR_CHUNKS_H
#define GHEE_CHECK_REPAIR_CHUNKS_H

#include "repair.h"

int repair_chunk_no_block_group(struct repair_ctx *r, const struct problem_ctx *p);
int repair_block_group_no_chunk(struct repair_ctx *r, const struct problem_ctx *p);
int repair_block_group_mismatch(struct repair_ctx *r, const struct problem_ctx *p);
int repair_chunk_stripe_no_dev_extent(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dev_extent_beyond_device(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dev_total_bytes(struct repair_ctx *r, const struct problem_ctx *p);
int repair_root_ref_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_root_ref_mismatch(struct repair_ctx *r, const struct problem_ctx *p);
int repair_qgroup_invalid(struct repair_ctx *r, const struct problem_ctx *p);
int repair_log_tree_invalid(struct repair_ctx *r, const struct problem_ctx *p);

/* bytes the extent items inside [start, start + len) cover (repair-actions.c) */
int repair_sum_extents(struct btrfs_fs_info *fs, u64 start, u64 len, u64 *sum);

#endif
