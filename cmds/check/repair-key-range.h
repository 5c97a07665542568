/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GHEE_CHECK_REPAIR_KEY_RANGE_H
#define GHEE_CHECK_REPAIR_KEY_RANGE_H

#include "repair.h"

/* TREE_KEY_RANGE: the items past a block's range move to where they sort */
int repair_key_range(struct repair_ctx *r, const struct problem_ctx *p);

#endif
