/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Iteration for the checker: walk a tree's items in key order and step
 * over subtrees that cannot be read (phase 3 reports those), so one bad
 * block never hides the rest of a tree.
 */
#ifndef GHEE_CHECK_ITER_H
#define GHEE_CHECK_ITER_H

#include "kernel-shared/ctree.h"

/* position at the first item >= @key: 0 ok, 1 no such item, <0 no root */
int check_iter_start(struct btrfs_root *root, const struct btrfs_key *key,
		     struct btrfs_path *path);
/* the next item: 0 ok, 1 no more */
int check_iter_next(struct btrfs_root *root, struct btrfs_path *path);

#endif
