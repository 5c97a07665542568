// SPDX-License-Identifier: GPL-2.0
/*
 * CSUM_NO_EXTENT: checksums of a range no data extent covers are cut out
 * of the csum tree.  Items wholly inside the range are deleted, items
 * that overlap one end are shortened (the key moves up when the front
 * goes), and an item that spans the whole range is split in two.
 * CSUM_MISSING: the checksums a data extent lacks are computed from its
 * data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/file-item.h"
#include "kernel-shared/volumes.h"
#include "kernel-shared/transaction.h"

#define CSUM_ITEMS_MAX	256

struct csum_span {
	u64 start;	/* key offset: first byte covered */
	u64 end;	/* one past the last byte covered */
};

/* the csum items overlapping [start, end), ascending; at most @max */
static int overlapping_items(struct repair_ctx *r, u64 start, u64 end,
			     struct csum_span *out, int max)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_root *root = &fs->csum_root;
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, start };
	struct btrfs_path path;
	int ret, n = 0;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret > 0) {
		/* the item before may reach into the range */
		ret = btrfs_previous_item(root, &path, BTRFS_EXTENT_CSUM_OBJECTID,
					  BTRFS_EXTENT_CSUM_KEY);
		if (ret > 0) {
			btrfs_release_path(&path);
			ret = btrfs_search_first(root, &key, &path);
		}
	}
	while (ret == 0) {
		u64 len;

		btrfs_path_key(&path, &key);
		if (key.objectid != BTRFS_EXTENT_CSUM_OBJECTID ||
		    key.type != BTRFS_EXTENT_CSUM_KEY || key.offset >= end)
			break;
		len = (u64)btrfs_item_size(path.nodes[0], path.slots[0]) /
		      fs->csum_size * fs->sectorsize;
		if (key.offset + len > start) {
			if (n == max) {
				ret = -E2BIG;
				break;
			}
			out[n].start = key.offset;
			out[n].end = key.offset + len;
			n++;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : n;
}

static u32 csum_bytes(const struct btrfs_fs_info *fs, u64 len)
{
	return (u32)(len / fs->sectorsize * fs->csum_size);
}

/* cut [start, end) out of the item at @s (already known to overlap) */
static int cut_item(struct repair_ctx *r, const struct csum_span *s, u64 start,
		    u64 end)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_root *root = &fs->csum_root;
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, s->start };
	u64 cs = start > s->start ? start : s->start;
	u64 ce = end < s->end ? end : s->end;
	struct btrfs_path path;
	u8 *tail = NULL;
	u32 tail_len = 0;
	int ret;

	if (cs == s->start && ce == s->end)
		repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
			    "csum tree item (EXTENT_CSUM EXTENT_CSUM %llu) covering %llu bytes",
			    (unsigned long long)s->start,
			    (unsigned long long)(s->end - s->start));
	else
		repair_note(r, REPAIR_OP_CHANGE, false, 0, 0,
			    "csum tree item (EXTENT_CSUM EXTENT_CSUM %llu): checksums of [%llu, %llu) removed",
			    (unsigned long long)s->start, (unsigned long long)cs,
			    (unsigned long long)ce);
	ret = repair_search(r, root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (cs == s->start && ce == s->end) {
		ret = btrfs_del_item(r->trans, root, &path);
	} else if (cs == s->start) {
		/* the front goes: keep the end, the key moves to @ce */
		struct btrfs_key nk = key;

		btrfs_truncate_item(&path, csum_bytes(fs, s->end - ce), 0);
		nk.offset = ce;
		ret = btrfs_set_item_key_safe(r->trans, root, &path, &nk);
	} else {
		if (ce < s->end) {
			/* split: the part after the range becomes its own item */
			const u8 *p = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);

			tail_len = csum_bytes(fs, s->end - ce);
			tail = malloc(tail_len);
			if (!tail) {
				btrfs_release_path(&path);
				return -ENOMEM;
			}
			memcpy(tail, p + csum_bytes(fs, ce - s->start), tail_len);
		}
		btrfs_truncate_item(&path, csum_bytes(fs, cs - s->start), 1);
	}
	if (!ret)
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	if (!ret && tail) {
		key.offset = ce;
		ret = btrfs_insert_item(r->trans, root, &key, tail, tail_len);
	}
	free(tail);
	return ret;
}

int repair_csum_no_extent(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct csum_span spans[CSUM_ITEMS_MAX];
	u64 end = p->bytenr + p->len;
	int i, n, ret = 0;

	if (!r->fs_info->csum_root.node || !p->len ||
	    p->bytenr % r->fs_info->sectorsize || p->len % r->fs_info->sectorsize)
		return -EINVAL;
	n = overlapping_items(r, p->bytenr, end, spans, CSUM_ITEMS_MAX);
	if (n < 0)
		return n;
	if (!n)
		return 1;
	/* from the last: cutting one item never moves the ones before it */
	for (i = n - 1; i >= 0 && !ret; i--)
		ret = cut_item(r, &spans[i], p->bytenr, end);
	return ret;
}

#define CSUM_READ_CHUNK	(1024 * 1024)

/* checksum [start, end) from the data on disk (the first copy) */
static int csum_from_data(struct repair_ctx *r, u64 start, u64 end)
{
	u8 *buf;
	int ret = 0;

	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "csum tree: checksums of [%llu, %llu) computed from the data",
		    (unsigned long long)start, (unsigned long long)end);
	buf = malloc(CSUM_READ_CHUNK);
	if (!buf)
		return -ENOMEM;
	while (start < end && !ret) {
		u64 n = end - start > CSUM_READ_CHUNK ? CSUM_READ_CHUNK : end - start;

		ret = btrfs_read_logical(r->fs_info, start, buf, n, 0);
		if (!ret)
			ret = btrfs_csum_file_blocks(r->trans, start, buf, n);
		start += n;
	}
	free(buf);
	return ret;
}

/*
 * CSUM_MISSING: a data extent of an inode that has data checksums lacks
 * some; those of the sectors no csum item covers are computed from the
 * data as it is now (the only content there is).
 */
int repair_csum_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct csum_span spans[CSUM_ITEMS_MAX];
	u64 pos = p->bytenr, end = p->bytenr + p->len;
	int i, n, ret = 0, done = 0;

	if (!r->fs_info->csum_root.node || !p->len ||
	    p->bytenr % r->fs_info->sectorsize || p->len % r->fs_info->sectorsize)
		return -EINVAL;
	n = overlapping_items(r, p->bytenr, end, spans, CSUM_ITEMS_MAX);
	if (n < 0)
		return n;
	for (i = 0; i <= n && !ret; i++) {
		u64 gap_end = i < n ? spans[i].start : end;

		if (gap_end > end)
			gap_end = end;
		if (gap_end > pos) {
			ret = csum_from_data(r, pos, gap_end);
			done++;
		}
		if (i < n && spans[i].end > pos)
			pos = spans[i].end;
	}
	return ret ? ret : (done ? 0 : 1);
}

/* repair-csum-items.c: cut [start, end) out of the csum item [item_start, item_end) */
int repair_csum_cut(struct repair_ctx *r, u64 item_start, u64 item_end, u64 start, u64 end)
{
	struct csum_span s = { item_start, item_end };

	return cut_item(r, &s, start, end);
}
