// SPDX-License-Identifier: GPL-2.0
/*
 * The hard-link map: only inodes the host says have more than one link
 * go in, so memory grows with the hard-linked files, not with the tree.
 * Open addressing with linear probing; the host inode number 0 marks a
 * free slot (no filesystem hands out inode 0 to a file).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rootdir.h"

void rootdir_links_init(struct rootdir_links *l)
{
	memset(l, 0, sizeof(*l));
}

void rootdir_links_free(struct rootdir_links *l)
{
	free(l->slots);
	rootdir_links_init(l);
}

static size_t slot_of(const struct rootdir_links *l, u64 dev, u64 ino)
{
	u64 h = (ino ^ (dev * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return (size_t)(h ^ (h >> 29)) & (l->alloc - 1);
}

struct rootdir_link *rootdir_links_find(struct rootdir_links *l, u64 dev, u64 ino)
{
	size_t i;

	if (!l->alloc || !ino)
		return NULL;
	for (i = slot_of(l, dev, ino); l->slots[i].ino; i = (i + 1) & (l->alloc - 1)) {
		if (l->slots[i].ino == ino && l->slots[i].dev == dev)
			return &l->slots[i];
	}
	return NULL;
}

static void put(struct rootdir_links *l, const struct rootdir_link *e)
{
	size_t i = slot_of(l, e->dev, e->ino);

	while (l->slots[i].ino)
		i = (i + 1) & (l->alloc - 1);
	l->slots[i] = *e;
}

/* keep the load at most 1/2 */
static int grow(struct rootdir_links *l)
{
	struct rootdir_link *old = l->slots;
	size_t old_alloc = l->alloc, i;
	size_t n = old_alloc ? old_alloc * 2 : 64;

	l->slots = calloc(n, sizeof(*l->slots));
	if (!l->slots) {
		l->slots = old;
		return -ENOMEM;
	}
	l->alloc = n;
	for (i = 0; i < old_alloc; i++) {
		if (old[i].ino)
			put(l, &old[i]);
	}
	free(old);
	return 0;
}

int rootdir_links_add(struct rootdir_links *l, u64 dev, u64 ino, u64 btrfs_ino)
{
	struct rootdir_link e = { dev, ino, btrfs_ino, 1 };
	int ret;

	if (!ino)
		return -EINVAL;
	if ((l->nr + 1) * 2 > l->alloc) {
		ret = grow(l);
		if (ret)
			return ret;
	}
	put(l, &e);
	l->nr++;
	return 0;
}
