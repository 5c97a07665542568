// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "ranges.h"
#include "array.h"

void range_list_init(struct range_list *l)
{
	l->r = NULL;
	l->nr = 0;
	l->alloc = 0;
	l->unsorted = false;
	l->oom = false;
	l->overlap = false;
	l->added = 0;
}

void range_list_release(struct range_list *l)
{
	free(l->r);
	range_list_init(l);
}

void range_list_add(struct range_list *l, uint64_t start, uint64_t len)
{
	uint64_t end = start + len;

	if (!len || end < start)
		return;
	l->added += len;
	if (l->nr) {
		struct range *last = &l->r[l->nr - 1];

		if (start >= last->start && start <= last->end) {
			if (start < last->end)
				l->overlap = true;
			if (end > last->end)
				last->end = end;
			return;
		}
		if (start < last->start)
			l->unsorted = true;
	}
	if (ARRAY_RESERVE(l->r, l->alloc, l->nr + 1, 256)) {
		l->oom = true;
		return;
	}
	l->r[l->nr].start = start;
	l->r[l->nr].end = end;
	l->nr++;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

void range_list_normalize(struct range_list *l)
{
	size_t i, out = 0;

	if (!l->unsorted)
		return;
	qsort(l->r, l->nr, sizeof(*l->r), cmp_range);
	for (i = 0; i < l->nr; i++) {
		if (out && l->r[i].start <= l->r[out - 1].end) {
			if (l->r[i].start < l->r[out - 1].end)
				l->overlap = true;
			if (l->r[i].end > l->r[out - 1].end)
				l->r[out - 1].end = l->r[i].end;
			continue;
		}
		l->r[out++] = l->r[i];
	}
	l->nr = out;
	l->unsorted = false;
}

bool range_list_covers(struct range_list *l, uint64_t start, uint64_t len)
{
	size_t lo = 0, hi;

	range_list_normalize(l);
	hi = l->nr;
	/* the last range starting at or before @start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->r[mid].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	return l->r[lo - 1].end >= start + len;
}

uint64_t range_list_total(struct range_list *l)
{
	uint64_t total = 0;
	size_t i;

	range_list_normalize(l);
	for (i = 0; i < l->nr; i++)
		total += l->r[i].end - l->r[i].start;
	return total;
}

void range_list_subtract(struct range_list *a, struct range_list *b,
			 struct range_list *out)
{
	size_t i, j = 0;

	range_list_normalize(a);
	range_list_normalize(b);
	for (i = 0; i < a->nr; i++) {
		uint64_t cur = a->r[i].start, end = a->r[i].end;

		while (j < b->nr && b->r[j].end <= cur)
			j++;
		while (cur < end) {
			size_t k = j;

			while (k < b->nr && b->r[k].end <= cur)
				k++;
			if (k == b->nr || b->r[k].start >= end) {
				range_list_add(out, cur, end - cur);
				break;
			}
			if (b->r[k].start > cur)
				range_list_add(out, cur, b->r[k].start - cur);
			cur = b->r[k].end;
		}
	}
}
