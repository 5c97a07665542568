/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GHEE_CHECK_LOG_TREE_H
#define GHEE_CHECK_LOG_TREE_H

struct check_ctx;

/* phase 9, second half: the log tree, when the superblock has one */
int check_log_tree(struct check_ctx *ctx);

#endif
