// SPDX-License-Identifier: GPL-2.0
/*
 * What the walk and the read-ahead keep while they go down the tree: a
 * directory's names sorted (strcmp(), which fixes the inode numbers) and
 * the path of the entry being copied (for messages and path-based calls).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rootdir-internal.h"
#include "lib/array.h"

int rootdir_names_add(void *names, const char *name)
{
	struct rootdir_names *l = names;
	size_t len = strlen(name) + 1;

	if (l->pool_len + len > UINT32_MAX)
		return -E2BIG;
	if (ARRAY_RESERVE(l->pool, l->pool_alloc, l->pool_len + len, 4096) ||
	    ARRAY_RESERVE(l->off, l->alloc, l->nr + 1, 64))
		return -ENOMEM;
	memcpy(l->pool + l->pool_len, name, len);
	l->off[l->nr++] = (u32)l->pool_len;
	l->pool_len += len;
	return 0;
}

static int cmp_off(const void *a, const void *b, void *pool)
{
	return strcmp((const char *)pool + *(const u32 *)a, (const char *)pool + *(const u32 *)b);
}

void rootdir_names_sort(struct rootdir_names *l)
{
	if (l->nr)
		qsort_r(l->off, l->nr, sizeof(u32), cmp_off, l->pool);
}

void rootdir_names_free(struct rootdir_names *l)
{
	free(l->pool);
	free(l->off);
	memset(l, 0, sizeof(*l));
}

int rootdir_path_init(struct rootdir_path *p, const char *top)
{
	size_t len = strlen(top);

	memset(p, 0, sizeof(*p));
	if (ARRAY_RESERVE(p->s, p->alloc, len + 1, 256))
		return -ENOMEM;
	memcpy(p->s, top, len + 1);
	/* DIR without its trailing slashes: messages name DIR/sub/file */
	while (len > 1 && p->s[len - 1] == '/')
		p->s[--len] = 0;
	p->len = len;
	p->top_len = len;
	return 0;
}

int rootdir_path_push(struct rootdir_path *p, const char *name, size_t *old)
{
	size_t len = strlen(name);

	*old = p->len;
	if (ARRAY_RESERVE(p->s, p->alloc, p->len + len + 2, 256))
		return -ENOMEM;
	p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, len + 1);
	p->len += len;
	return 0;
}

void rootdir_path_pop(struct rootdir_path *p, size_t old)
{
	p->len = old;
	p->s[old] = 0;
}
