/* SPDX-License-Identifier: GPL-2.0 */
/* Repair actions of the inode ref side of names and link counts (repair-refs.c). */
#ifndef GHEE_CHECK_REPAIR_REFS_H
#define GHEE_CHECK_REPAIR_REFS_H

#include "repair.h"

int repair_inode_ref_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_ref_unmatched(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_ref_invalid(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_nlink_or_lost(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dir_refs(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dir_index_missing_ref(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dir_nlink(struct repair_ctx *r, const struct problem_ctx *p);

#endif
