/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A compact set of u64 values (block numbers, extent starts): open
 * addressing with linear probing, 8 bytes per slot, at most 3/4 full, so
 * about 11-21 bytes per member.  Used where the checker must remember
 * some blocks (full-backref blocks, unreadable blocks, extents to look at
 * again) without a per-member allocation.
 */
#ifndef GHEE_CHECK_BLOCK_SET_H
#define GHEE_CHECK_BLOCK_SET_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format.h"

struct block_set;

/* an empty set; NULL when out of memory */
struct block_set *block_set_create(void);
void block_set_destroy(struct block_set *set);

/* 1 when @value was added, 0 when it was there already, -ENOMEM */
int block_set_add(struct block_set *set, u64 value);
bool block_set_has(const struct block_set *set, u64 value);
size_t block_set_count(const struct block_set *set);

/*
 * The members in ascending order, in a new array the caller frees; NULL
 * with *nr = 0 for an empty set, NULL with *nr != 0 when out of memory.
 */
u64 *block_set_sorted(const struct block_set *set, size_t *nr);

#endif
