/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GHEE_CHECK_LOG_TREE_H
#define GHEE_CHECK_LOG_TREE_H

struct check_ctx;
struct range_list;

/* phase 9, second half: the log tree, when the superblock has one */
int check_log_tree(struct check_ctx *ctx);
/*
 * Add the disk extents the log's file extent items point to (replay gives
 * them extent items; their checksums may already be in the csum tree).
 * Silent: phase 9 reports a log it cannot read.
 */
void log_tree_data_extents(struct check_ctx *ctx, struct range_list *extents);

#endif
