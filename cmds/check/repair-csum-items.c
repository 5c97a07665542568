// SPDX-License-Identifier: GPL-2.0
/*
 * Repairs of the csum tree's items themselves.
 *
 * CSUM_OVERLAP: two items hold checksums of the same sectors.  Where both
 * say the same, the later item's copy is a duplicate and is cut off it.
 * Where they differ the data decides: the item whose checksums match the
 * data (its first copy) keeps the sectors, the other loses them, and the
 * whole of it when none of its checksums matches the data (it was moved:
 * its checksums are of other data; the re-check finds the ones missing
 * then); when neither matches on every sector nothing is cut (which one
 * is right cannot be known).
 *
 * CSUM_ITEM_INVALID: an item whose offset is not sector aligned goes back
 * to the sector below when all its checksums match the data there (the
 * key's low bits went wrong).  Else an item that is not an EXTENT_CSUM
 * item, or is unaligned, holds no checksum the kernel can use: it is
 * deleted.  An item whose size is not a whole number of checksums
 * loses the partial one at its end.  The checksums the data then lacks
 * are found by the re-check (CSUM_MISSING).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"

/* the overlap is read and compared at most this many bytes at a time */
#define OVERLAP_MAX	(4U << 20)

struct csum_item_copy {
	u64 start, end;		/* the bytes its checksums cover */
	u8 *sums;
};

static int copy_item(struct btrfs_fs_info *fs, const struct btrfs_path *path,
		     struct csum_item_copy *c)
{
	struct btrfs_key key;
	u32 size = btrfs_item_size(path->nodes[0], path->slots[0]);

	btrfs_path_key(path, &key);
	if (key.objectid != BTRFS_EXTENT_CSUM_OBJECTID || key.type != BTRFS_EXTENT_CSUM_KEY ||
	    !size || size % fs->csum_size || key.offset % fs->sectorsize)
		return -EUCLEAN;	/* CSUM_ITEM_INVALID first */
	c->start = key.offset;
	c->end = key.offset + (u64)(size / fs->csum_size) * fs->sectorsize;
	c->sums = malloc(size);
	if (!c->sums)
		return -ENOMEM;
	memcpy(c->sums, btrfs_item_ptr_raw(path->nodes[0], path->slots[0]), size);
	return 0;
}

/* the item at @key and the one before it */
static int read_pair(struct btrfs_fs_info *fs, const struct btrfs_key *key,
		     struct csum_item_copy *prev, struct csum_item_copy *later)
{
	struct btrfs_root *root = &fs->csum_root;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret)
		ret = copy_item(fs, &path, later);
	if (!ret) {
		ret = btrfs_prev_item(root, &path);
		if (ret > 0)
			ret = -ENOENT;
	}
	if (!ret)
		ret = copy_item(fs, &path, prev);
	btrfs_release_path(&path);
	return ret;
}

static const u8 *sum_at(const struct btrfs_fs_info *fs, const struct csum_item_copy *c,
			u64 bytenr)
{
	return c->sums + (bytenr - c->start) / fs->sectorsize * fs->csum_size;
}

enum keeper { KEEP_PREV = 1, KEEP_LATER = 2, KEEP_EITHER = 3 };

/* which item's checksums of [start, end) may stay: KEEP_* bits, 0 neither */
static int judge_overlap(struct btrfs_fs_info *fs, const struct csum_item_copy *prev,
			 const struct csum_item_copy *later, u64 start, u64 end)
{
	u8 sum[BTRFS_CSUM_SIZE];
	int keep = KEEP_EITHER, ret = 0;
	u8 *buf = NULL;
	u64 pos, chunk;

	for (pos = start; pos < end; pos += fs->sectorsize) {
		if (memcmp(sum_at(fs, prev, pos), sum_at(fs, later, pos), fs->csum_size))
			break;
	}
	if (pos == end)
		return KEEP_EITHER;	/* the same checksums twice */
	buf = malloc(OVERLAP_MAX);
	if (!buf)
		return -ENOMEM;
	for (chunk = start; chunk < end && keep && !ret; chunk += OVERLAP_MAX) {
		u64 n = end - chunk < OVERLAP_MAX ? end - chunk : OVERLAP_MAX;

		ret = btrfs_read_logical(fs, chunk, buf, n, 0);
		for (pos = chunk; !ret && pos < chunk + n; pos += fs->sectorsize) {
			if (!memcmp(sum_at(fs, prev, pos), sum_at(fs, later, pos),
				    fs->csum_size))
				continue;	/* a duplicate: either copy is as good */
			ret = btrfs_csum_data(fs->csum_type, buf + (pos - chunk),
					      fs->sectorsize, sum);
			if (ret)
				break;
			if (memcmp(sum, sum_at(fs, prev, pos), fs->csum_size))
				keep &= ~KEEP_PREV;
			if (memcmp(sum, sum_at(fs, later, pos), fs->csum_size))
				keep &= ~KEEP_LATER;
		}
	}
	free(buf);
	return ret ? ret : keep;
}

/* does any sector of [start, end) match its checksum in @c? 1 yes, 0 no */
static int matches_any(struct btrfs_fs_info *fs, const struct csum_item_copy *c,
		       u64 start, u64 end)
{
	u8 sum[BTRFS_CSUM_SIZE];
	u8 *buf = malloc(fs->sectorsize);
	int ret = 0;
	u64 pos;

	if (!buf)
		return -ENOMEM;
	for (pos = start; pos < end && !ret; pos += fs->sectorsize) {
		ret = btrfs_read_logical(fs, pos, buf, fs->sectorsize, 0);
		if (!ret)
			ret = btrfs_csum_data(fs->csum_type, buf, fs->sectorsize, sum);
		if (!ret && !memcmp(sum, sum_at(fs, c, pos), fs->csum_size))
			ret = 1;
	}
	free(buf);
	return ret;
}

/*
 * The item whose checksums in the overlap are wrong loses them; when none
 * of its other checksums matches the data either, they are of other data
 * (the item was moved): it goes whole.
 */
static int cut_loser(struct repair_ctx *r, const struct csum_item_copy *c, u64 start,
		     u64 end)
{
	int front, back;

	front = c->start < start ? matches_any(r->fs_info, c, c->start, start) : 0;
	if (front < 0)
		return front;
	back = !front && end < c->end ? matches_any(r->fs_info, c, end, c->end) : front;
	if (back < 0)
		return back;
	if (!front && !back)
		return repair_csum_cut(r, c->start, c->end, c->start, c->end);
	return repair_csum_cut(r, c->start, c->end, start, end);
}

int repair_csum_overlap(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct csum_item_copy prev = { 0 }, later = { 0 };
	u64 start, end;
	int ret;

	if (!fs->csum_root.node)
		return -ENOENT;
	ret = read_pair(fs, &p->key, &prev, &later);
	if (ret)
		goto out;
	start = later.start;
	end = prev.end < later.end ? prev.end : later.end;
	if (prev.end != p->expected || start >= end || start < prev.start) {
		/* the overlap is with an item further back: not this pair */
		ret = start >= prev.end ? 1 : -EOPNOTSUPP;
		goto out;
	}
	ret = judge_overlap(fs, &prev, &later, start, end);
	if (ret < 0)
		goto out;
	if (ret == KEEP_EITHER)
		ret = repair_csum_cut(r, later.start, later.end, start, end);
	else if (ret & KEEP_PREV)
		ret = cut_loser(r, &later, start, end);
	else if (ret & KEEP_LATER)
		ret = cut_loser(r, &prev, start, end);
	else
		ret = -EUCLEAN;	/* neither matches the data: which is right is unknown */
out:
	free(prev.sums);
	free(later.sums);
	return ret;
}

/* every sector of the item at @c matches the data there */
static int matches_all(struct btrfs_fs_info *fs, const struct csum_item_copy *c)
{
	u8 sum[BTRFS_CSUM_SIZE];
	u8 *buf = malloc(fs->sectorsize);
	int ret = 1;
	u64 pos;

	if (!buf)
		return -ENOMEM;
	for (pos = c->start; pos < c->end && ret == 1; pos += fs->sectorsize) {
		if (btrfs_read_logical(fs, pos, buf, fs->sectorsize, 0) ||
		    btrfs_csum_data(fs->csum_type, buf, fs->sectorsize, sum) ||
		    memcmp(sum, sum_at(fs, c, pos), fs->csum_size))
			ret = 0;
	}
	free(buf);
	return ret;
}

/*
 * An unaligned offset whose checksums all match the data at the sector
 * below it: only the key's low bits went wrong; the key goes back.
 */
static int realign(struct repair_ctx *r, struct btrfs_path *path, const struct btrfs_key *key)
{
	struct btrfs_fs_info *fs = r->fs_info;
	u32 size = btrfs_item_size(path->nodes[0], path->slots[0]);
	struct csum_item_copy c;
	struct btrfs_key nk = *key;
	char ks[96];
	int ret;

	nk.offset = key->offset - key->offset % fs->sectorsize;
	c.start = nk.offset;
	c.end = nk.offset + (u64)(size / fs->csum_size) * fs->sectorsize;
	c.sums = malloc(size);
	if (!c.sums)
		return -ENOMEM;
	memcpy(c.sums, btrfs_item_ptr_raw(path->nodes[0], path->slots[0]), size);
	ret = matches_all(fs, &c);
	free(c.sums);
	if (ret <= 0)
		return ret ? ret : 1;
	check_format_key(key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_CHANGE, true, key->offset, nk.offset,
		    "csum tree item %s key offset (its checksums match the data there)", ks);
	return btrfs_set_item_key_safe(r->trans, &fs->csum_root, path, &nk);
}

int repair_csum_item_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_root *root = &fs->csum_root;
	struct btrfs_path path;
	char ks[96];
	u32 size, keep;
	int ret;

	if (!root->node)
		return -ENOENT;
	btrfs_init_path(&path);
	ret = repair_search(r, root, &p->key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 1;
	}
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	keep = fs->csum_size ? size / fs->csum_size * fs->csum_size : 0;
	check_format_key(&p->key, ks, sizeof(ks));
	if (p->key.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
	    p->key.type == BTRFS_EXTENT_CSUM_KEY && (p->key.offset % fs->sectorsize) &&
	    keep && keep == size) {
		ret = realign(r, &path, &p->key);
		if (ret <= 0) {
			btrfs_release_path(&path);
			return ret;
		}
		ret = 0;	/* not the sector below: the item goes */
	}
	if (p->key.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
	    p->key.type == BTRFS_EXTENT_CSUM_KEY && !(p->key.offset % fs->sectorsize) &&
	    keep && keep != size) {
		repair_note(r, REPAIR_OP_CHANGE, true, size, keep,
			    "csum tree item %s size (the partial checksum at its end)", ks);
		btrfs_truncate_item(&path, keep, 1);
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	} else if (p->key.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
		   p->key.type == BTRFS_EXTENT_CSUM_KEY && keep == size &&
		   !(p->key.offset % fs->sectorsize)) {
		ret = 1;	/* a valid item now */
	} else {
		repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
			    "csum tree item %s of %u bytes (no checksum the kernel can use)",
			    ks, size);
		ret = btrfs_del_item(r->trans, root, &path);
	}
	btrfs_release_path(&path);
	return ret;
}
