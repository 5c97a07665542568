/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A compact list of half-open byte ranges [start, end), kept sorted and
 * merged.  Appending in ascending order (the usual case: ranges come from
 * a B-tree walk) costs O(1) and merges with the last range; anything else
 * is appended and the list is normalized before the next query.
 */
#ifndef GHEE_RANGES_H
#define GHEE_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct range {
	uint64_t start;
	uint64_t end;
};

struct range_list {
	struct range *r;
	size_t nr;
	size_t alloc;
	bool unsorted;
	bool oom;		/* an append failed: answers may be incomplete */
	bool overlap;		/* two added ranges shared bytes (not just touched) */
	uint64_t added;		/* bytes added, shared bytes counted each time */
};

void range_list_init(struct range_list *l);
void range_list_release(struct range_list *l);
void range_list_add(struct range_list *l, uint64_t start, uint64_t len);
/* sort and merge; done by every query */
void range_list_normalize(struct range_list *l);
/* every byte of [start, start+len) is in the list */
bool range_list_covers(struct range_list *l, uint64_t start, uint64_t len);
/* bytes in the list */
uint64_t range_list_total(struct range_list *l);
/* out = a minus b */
void range_list_subtract(struct range_list *a, struct range_list *b,
			 struct range_list *out);

#endif
