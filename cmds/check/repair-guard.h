/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key guard of a repair pass (repair-guard.c): no action adds an item
 * whose key lies in the range of a tree block the check could not read or
 * found invalid, and the repair could not mend in this pass.  Searches do
 * not see the items such a block holds: an item inserted there could
 * repeat one of them (a duplicate key) or land beside them in a block
 * whose range they leave.
 */
#ifndef GHEE_CHECK_REPAIR_GUARD_H
#define GHEE_CHECK_REPAIR_GUARD_H

#include "repair.h"

struct btrfs_root;

/*
 * The check of struct btrfs_key_guard, @data the repair_ctx of the pass
 * (its list: the findings of the check before it): -EUCLEAN, with the
 * reason given to repair_why(), when @key lies in the range of such a
 * block of @root.
 */
int repair_key_guard(void *data, struct btrfs_root *root, const struct btrfs_key *key);

/* forget what the guard learned in this pass */
void repair_guard_release(struct repair_ctx *r);

#endif
