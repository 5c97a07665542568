/* SPDX-License-Identifier: GPL-2.0 */
/* Repair actions of phase 7's inode item findings (repair-inode.c). */
#ifndef GHEE_CHECK_REPAIR_INODE_H
#define GHEE_CHECK_REPAIR_INODE_H

#include "repair.h"

int repair_inode_nlink(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_nbytes(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dir_isize(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_flags(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_generation(struct repair_ctx *r, const struct problem_ctx *p);

#endif
