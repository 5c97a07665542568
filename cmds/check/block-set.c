// SPDX-License-Identifier: GPL-2.0
/*
 * Open-addressing set of u64.  Slot value 0 means empty, so the value 0
 * itself is kept in a separate flag (block 0 is never valid, but hostile
 * images may still point there).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "block-set.h"

#define BLOCK_SET_MIN_SLOTS 64

struct block_set {
	u64 *slots;
	size_t mask;		/* number of slots - 1, a power of two minus 1 */
	size_t count;		/* members in slots (0 not included) */
	bool has_zero;
};

static size_t slot_of(u64 value, size_t mask)
{
	/* block numbers are sector aligned: mix the high bits down */
	value ^= value >> 33;
	value *= 0xff51afd7ed558ccdULL;
	value ^= value >> 33;
	return (size_t)value & mask;
}

struct block_set *block_set_create(void)
{
	struct block_set *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	set->slots = calloc(BLOCK_SET_MIN_SLOTS, sizeof(u64));
	if (!set->slots) {
		free(set);
		return NULL;
	}
	set->mask = BLOCK_SET_MIN_SLOTS - 1;
	return set;
}

void block_set_destroy(struct block_set *set)
{
	if (!set)
		return;
	free(set->slots);
	free(set);
}

static void insert_slot(u64 *slots, size_t mask, u64 value)
{
	size_t i = slot_of(value, mask);

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = value;
}

static int grow(struct block_set *set)
{
	size_t nr = (set->mask + 1) * 2, i;
	u64 *slots = calloc(nr, sizeof(u64));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i <= set->mask; i++) {
		if (set->slots[i])
			insert_slot(slots, nr - 1, set->slots[i]);
	}
	free(set->slots);
	set->slots = slots;
	set->mask = nr - 1;
	return 0;
}

int block_set_add(struct block_set *set, u64 value)
{
	size_t i;

	if (!value) {
		if (set->has_zero)
			return 0;
		set->has_zero = true;
		return 1;
	}
	if (block_set_has(set, value))
		return 0;
	if ((set->count + 1) * 4 > (set->mask + 1) * 3 && grow(set))
		return -ENOMEM;
	i = slot_of(value, set->mask);
	while (set->slots[i])
		i = (i + 1) & set->mask;
	set->slots[i] = value;
	set->count++;
	return 1;
}

bool block_set_has(const struct block_set *set, u64 value)
{
	size_t i;

	if (!set)
		return false;
	if (!value)
		return set->has_zero;
	for (i = slot_of(value, set->mask); set->slots[i]; i = (i + 1) & set->mask) {
		if (set->slots[i] == value)
			return true;
	}
	return false;
}

size_t block_set_count(const struct block_set *set)
{
	return set ? set->count + set->has_zero : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

u64 *block_set_sorted(const struct block_set *set, size_t *nr)
{
	size_t n = block_set_count(set), i, j = 0;
	u64 *out;

	*nr = n;
	if (!n)
		return NULL;
	out = malloc(n * sizeof(u64));
	if (!out)
		return NULL;
	if (set->has_zero)
		out[j++] = 0;
	for (i = 0; i <= set->mask; i++) {
		if (set->slots[i])
			out[j++] = set->slots[i];
	}
	qsort(out, n, sizeof(u64), cmp_u64);
	return out;
}
