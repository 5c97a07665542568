// SPDX-License-Identifier: GPL-2.0
/*
 * FILE_EXTENT_OVERLAP: a file extent item starts before the end of the
 * one before it.  Which of the two the file's bytes over the overlap come
 * from is recorded nowhere, so the repair acts only when it does not
 * matter: both are plain (uncompressed, unencoded) data extents and their
 * data over the overlap is the same bytes.  The later item then starts
 * where the earlier one ends (its key, data offset and length move by the
 * overlap); the data back reference it makes (key offset minus data
 * offset) stays the same.  Different data is left alone: either choice
 * could lose bytes a user reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "repair-overlap.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"

#define OVERLAP_CHUNK	(64 * 1024)

struct plain_extent {
	u64 start;		/* file offset (the key's) */
	u64 disk_bytenr;
	u64 offset;		/* into the extent's data */
	u64 num_bytes;
};

/* the path's item as a plain data extent; false when it is not one */
static bool read_plain(const struct btrfs_path *path, struct plain_extent *pe)
{
	const struct extent_buffer *leaf = path->nodes[0];
	int slot = path->slots[0];
	const struct btrfs_file_extent_item *fi;
	struct btrfs_key key;

	btrfs_item_key_to_cpu(leaf, &key, slot);
	if (btrfs_item_size(leaf, slot) < sizeof(*fi))
		return false;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_REG ||
	    btrfs_file_extent_compression(fi) || btrfs_file_extent_encryption(fi) ||
	    btrfs_file_extent_other_encoding(fi) || !btrfs_file_extent_disk_bytenr(fi))
		return false;
	pe->start = key.offset;
	pe->disk_bytenr = btrfs_file_extent_disk_bytenr(fi);
	pe->offset = btrfs_file_extent_offset(fi);
	pe->num_bytes = btrfs_file_extent_num_bytes(fi);
	return pe->num_bytes && pe->offset + pe->num_bytes <= btrfs_file_extent_ram_bytes(fi);
}

/* the item at @key and the one before it, both plain data extents */
static int read_pair(struct btrfs_root *root, const struct btrfs_key *key,
		     struct plain_extent *prev, struct plain_extent *later)
{
	struct btrfs_path path;
	struct btrfs_key k;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (!read_plain(&path, later)) {
		btrfs_release_path(&path);
		return -EOPNOTSUPP;
	}
	ret = btrfs_previous_item(root, &path, key->objectid, BTRFS_EXTENT_DATA_KEY);
	if (ret == 0) {
		btrfs_path_key(&path, &k);
		if (k.objectid != key->objectid || !read_plain(&path, prev))
			ret = -EOPNOTSUPP;
	}
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

/* the file extent item after (@ino EXTENT_DATA @after) starts beyond @end */
static int next_starts_after(struct btrfs_root *root, u64 ino, u64 after, u64 end)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, after + 1 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	if (ret == 0) {
		btrfs_path_key(&path, &key);
		ret = key.objectid == ino && key.type == BTRFS_EXTENT_DATA_KEY &&
		      key.offset <= end ? -EOPNOTSUPP : 0;
	}
	btrfs_release_path(&path);
	return ret > 0 ? 0 : ret;
}

/* 0: the @len bytes at the two logical addresses are the same; 1 not */
static int same_data(struct btrfs_fs_info *fs, u64 a, u64 b, u64 len)
{
	char *ba = malloc(OVERLAP_CHUNK), *bb = malloc(OVERLAP_CHUNK);
	int ret = 0;
	u64 done, n;

	if (!ba || !bb) {
		free(ba);
		free(bb);
		return -ENOMEM;
	}
	for (done = 0; done < len && !ret; done += n) {
		n = len - done < OVERLAP_CHUNK ? len - done : OVERLAP_CHUNK;
		ret = btrfs_read_logical(fs, a + done, ba, n, 0);
		if (!ret)
			ret = btrfs_read_logical(fs, b + done, bb, n, 0);
		if (!ret && memcmp(ba, bb, n))
			ret = 1;
	}
	free(ba);
	free(bb);
	return ret;
}

/* the item at @key starts @d bytes later, its data @d bytes further in */
static int trim_front(struct repair_ctx *r, struct btrfs_root *root,
		      const struct btrfs_key *key, u64 d)
{
	struct btrfs_key new_key = { key->objectid, BTRFS_EXTENT_DATA_KEY, key->offset + d };
	struct btrfs_file_extent_item *fi;
	struct btrfs_path path;
	struct extent_buffer *leaf;
	int ret;

	ret = repair_search(r, root, key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	leaf = path.nodes[0];
	fi = btrfs_item_ptr(leaf, path.slots[0], struct btrfs_file_extent_item);
	btrfs_set_file_extent_offset(fi, btrfs_file_extent_offset(fi) + d);
	btrfs_set_file_extent_num_bytes(fi, btrfs_file_extent_num_bytes(fi) - d);
	btrfs_mark_buffer_dirty(r->trans, leaf);
	ret = btrfs_set_item_key_safe(r->trans, root, &path, &new_key);
	btrfs_release_path(&path);
	return ret;
}

int repair_file_extent_overlap(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { p->inode, BTRFS_EXTENT_DATA_KEY, p->bytenr };
	struct plain_extent prev, later;
	u64 end = p->expected, d;
	int ret;

	if (!root)
		return -ENOENT;
	ret = read_pair(root, &key, &prev, &later);
	if (ret)
		return ret;
	/* the overlap is with the item just before, and only its tail */
	if (prev.start + prev.num_bytes != end || prev.start > later.start ||
	    end <= later.start)
		return -EOPNOTSUPP;
	d = end - later.start;
	/* a later extent inside the earlier one would go entirely: not here */
	if (d >= later.num_bytes)
		return -EOPNOTSUPP;
	ret = next_starts_after(root, p->inode, later.start, end);
	if (ret)
		return ret;
	ret = same_data(r->fs_info,
			prev.disk_bytenr + prev.offset + (later.start - prev.start),
			later.disk_bytenr + later.offset, d);
	if (ret)
		return ret < 0 ? ret : -EOPNOTSUPP;	/* different bytes */
	repair_note(r, REPAIR_OP_CHANGE, true, later.start, end,
		    "root %llu inode %llu file extent start (same data over the %llu bytes of overlap)",
		    (unsigned long long)p->root, (unsigned long long)p->inode,
		    (unsigned long long)d);
	return trim_front(r, root, &key, d);
}
