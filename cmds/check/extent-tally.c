// SPDX-License-Identifier: GPL-2.0
/*
 * Per-extent reference accumulators in one open-addressing table (linear
 * probing, keyed by bytenr, bytenr 0 marks an empty slot and the extent 0
 * lives in its own entry).  The table size is not a power of two: a slot
 * is picked by scaling the hash to the size, so the table can be sized to
 * the number of extents (3/4 full) instead of to the next power of two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extent-tally.h"

#define TALLY_MIN_SLOTS 1024

struct extent_tally {
	struct tally_entry *slots;
	size_t nr_slots;
	size_t count;		/* entries in slots */
	struct tally_entry zero;	/* the entry of bytenr 0 */
	bool has_zero;
};

static size_t slot_of(u64 bytenr, size_t nr_slots)
{
	bytenr ^= bytenr >> 31;
	bytenr *= 0x9E3779B97F4A7C15ULL;
	bytenr ^= bytenr >> 29;
	return (size_t)(((unsigned __int128)bytenr * nr_slots) >> 64);
}

static size_t next_slot(size_t i, size_t nr_slots)
{
	return i + 1 < nr_slots ? i + 1 : 0;
}

/* a strong 64-bit finalizer: every input bit affects every output bit */
static u64 mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

u64 tally_ref_ident(u8 type, u64 a, u64 b, u64 c, u64 len)
{
	u64 h = mix64(0x6a09e667f3bcc908ULL ^ type);

	h = mix64(h ^ a);
	h = mix64(h + b);
	h = mix64(h ^ c);
	h = mix64(h + len);
	/* never 0: a reference must always change the sum */
	return h | 1;
}

struct extent_tally *tally_create(void)
{
	struct extent_tally *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->slots = calloc(TALLY_MIN_SLOTS, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	t->nr_slots = TALLY_MIN_SLOTS;
	return t;
}

void tally_destroy(struct extent_tally *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

struct tally_entry *tally_lookup(struct extent_tally *t, u64 bytenr)
{
	size_t i;

	if (!bytenr)
		return t->has_zero ? &t->zero : NULL;
	for (i = slot_of(bytenr, t->nr_slots); t->slots[i].bytenr; i = next_slot(i, t->nr_slots)) {
		if (t->slots[i].bytenr == bytenr)
			return &t->slots[i];
	}
	return NULL;
}

static int rehash(struct extent_tally *t, size_t nr)
{
	size_t i;
	struct tally_entry *slots = calloc(nr, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nr_slots; i++) {
		size_t j;

		if (!t->slots[i].bytenr)
			continue;
		j = slot_of(t->slots[i].bytenr, nr);
		while (slots[j].bytenr)
			j = next_slot(j, nr);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->nr_slots = nr;
	return 0;
}

struct tally_entry *tally_insert(struct extent_tally *t, u64 bytenr)
{
	struct tally_entry *e = tally_lookup(t, bytenr);
	size_t i;

	if (e)
		return e;
	if (!bytenr) {
		t->has_zero = true;
		return &t->zero;
	}
	if ((t->count + 1) * 4 > t->nr_slots * 3 &&
	    rehash(t, t->nr_slots + t->nr_slots / 2))
		return NULL;
	i = slot_of(bytenr, t->nr_slots);
	while (t->slots[i].bytenr)
		i = next_slot(i, t->nr_slots);
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->slots[i].bytenr = bytenr;
	t->count++;
	return &t->slots[i];
}

void tally_reserve(struct extent_tally *t, size_t nr)
{
	size_t slots = nr + nr / 3 + 1;

	if (nr > ((size_t)1 << 40) || slots <= t->nr_slots)
		return;
	rehash(t, slots);
}

size_t tally_count(const struct extent_tally *t)
{
	return t ? t->count + t->has_zero : 0;
}

size_t tally_memory(const struct extent_tally *t)
{
	return t ? t->nr_slots * sizeof(*t->slots) + sizeof(*t) : 0;
}

struct tally_entry *tally_next(struct extent_tally *t, size_t *pos)
{
	/* position 0 is the zero entry, then slot i at position i + 1 */
	if (*pos == 0) {
		*pos = 1;
		if (t->has_zero)
			return &t->zero;
	}
	while (*pos - 1 < t->nr_slots) {
		struct tally_entry *e = &t->slots[*pos - 1];

		(*pos)++;
		if (e->bytenr)
			return e;
	}
	return NULL;
}
