/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable arrays: the caller keeps a typed pointer, a count and the
 * allocated length; array_reserve() makes room before an append, doubling
 * the allocation so that appends cost O(1) amortized.
 */
#ifndef GHEE_ARRAY_H
#define GHEE_ARRAY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make the array at *@arrayp (the address of the caller's typed pointer)
 * hold at least @need elements of @size bytes, growing it to twice its
 * length *@alloc, or to @min elements, or to @need, whichever is most.
 * 0, or -ENOMEM with the array and *@alloc unchanged.  The pointer is
 * read and written with memcpy: it may be of any object pointer type.
 */
static inline int array_reserve(void *arrayp, size_t *alloc, size_t need,
				size_t size, size_t min)
{
	void *old, *p;
	size_t n;

	if (need <= *alloc)
		return 0;
	n = *alloc > SIZE_MAX / 2 ? need : *alloc * 2;
	if (n < min)
		n = min;
	if (n < need)
		n = need;
	if (!size || n > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&old, arrayp, sizeof(old));
	p = realloc(old, n * size);
	if (!p)
		return -ENOMEM;
	memcpy(arrayp, &p, sizeof(p));
	*alloc = n;
	return 0;
}

/* e.g. if (ARRAY_RESERVE(l->v, l->alloc, l->nr + 1, 64)) return -ENOMEM; */
#define ARRAY_RESERVE(v, alloc, need, min) \
	array_reserve(&(v), &(alloc), (need), sizeof(*(v)), (min))

#endif
