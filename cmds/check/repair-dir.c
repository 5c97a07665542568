// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions for directory entries (phase 7): a name is kept twice,
 * as a DIR_ITEM keyed by its hash and a DIR_INDEX keyed by its sequence
 * number; when one copy is missing it is rebuilt from the other (the
 * same location, type and name), and the directory's size is recounted
 * from the entries it has then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

/* a dir entry (header + name) copied out of a leaf */
struct dir_entry_copy {
	u8 buf[sizeof(struct btrfs_dir_item) + BTRFS_NAME_LEN];
	u32 size;
};

struct entry_copy {
	const char *name;
	struct dir_entry_copy *out;
};

static int copy_named(const struct btrfs_key *key, const struct btrfs_name_entry *e,
		      void *data)
{
	struct entry_copy *c = data;

	(void)key;
	if (e->name_len > BTRFS_NAME_LEN)
		return -ENOENT;		/* the item is damaged from here */
	if (e->name_len != strlen(c->name) || e->data_len ||
	    memcmp(e->name, c->name, e->name_len))
		return 0;
	memcpy(c->out->buf, e->di, e->len);
	c->out->size = e->len;
	return 1;
}

/*
 * Find the entry named @name in the dir item/index at @key; copy it.
 * 0 found, -ENOENT not there.
 */
static int find_entry(struct btrfs_root *root, const struct btrfs_key *key,
		      const char *name, struct dir_entry_copy *out)
{
	struct entry_copy c = { name, out };
	int ret = btrfs_item_for_each_name(root, key, copy_named, &c);

	return ret > 0 ? 0 : ret ? ret : -ENOENT;
}

/* add @e at @key: a new item, or appended to one whose hash collides */
static int add_entry(struct repair_ctx *r, struct btrfs_root *root,
		     const struct btrfs_key *key, const struct dir_entry_copy *e)
{
	struct btrfs_path path;
	u32 old;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(r->trans, root, key, &path, (int)e->size, 1);
	if (ret < 0)
		goto out;
	if (ret == 0) {
		old = btrfs_item_size(path.nodes[0], path.slots[0]);
		btrfs_extend_item(&path, e->size);
		btrfs_write_item_data(&path, old, e->buf, e->size);
	} else {
		ret = btrfs_insert_empty_item(r->trans, root, &path, key, e->size);
		if (!ret)
			btrfs_write_item_data(&path, 0, e->buf, e->size);
	}
	if (!ret)
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
out:
	btrfs_release_path(&path);
	return ret;
}

/* a name the checker could print as it is (not "(name hash ...)") */
static bool usable_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n && n <= BTRFS_NAME_LEN && name[0] != '(';
}

static int rebuild_copy(struct repair_ctx *r, const struct problem_ctx *p,
			bool want_index)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key from, to;
	struct dir_entry_copy e;
	const char *name = p->name;
	u64 hash;
	int ret;

	if (!root)
		return -ENOENT;
	if (!usable_name(name))
		return -EINVAL;
	hash = btrfs_name_hash(name, (int)strlen(name));
	/* the index a missing DIR_INDEX needs comes from the inode ref */
	if (want_index && !p->index)
		return -ENODATA;
	from = (struct btrfs_key){ p->inode, want_index ? BTRFS_DIR_ITEM_KEY : BTRFS_DIR_INDEX_KEY,
				   want_index ? hash : p->index };
	to = (struct btrfs_key){ p->inode, want_index ? BTRFS_DIR_INDEX_KEY : BTRFS_DIR_ITEM_KEY,
				 want_index ? p->index : hash };
	ret = find_entry(root, &from, name, &e);
	if (ret)
		return ret;
	if (!find_entry(root, &to, name, &(struct dir_entry_copy){ 0 }))
		return -EEXIST;
	/* a dir index holds one entry: another name at that index stays */
	if (want_index) {
		struct btrfs_path path;

		btrfs_init_path(&path);
		ret = btrfs_search_slot(NULL, root, &to, &path, 0, 0);
		btrfs_release_path(&path);
		if (ret <= 0)
			return ret < 0 ? ret : -EEXIST;
	}
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu %s %llu) name %s", (unsigned long long)p->root,
		    (unsigned long long)to.objectid,
		    want_index ? "DIR_INDEX" : "DIR_ITEM",
		    (unsigned long long)to.offset, name);
	return add_entry(r, root, &to, &e);
}

int repair_dir_index_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	return rebuild_copy(r, p, true);
}

int repair_dir_item_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	return rebuild_copy(r, p, false);
}

/*
 * A directory's size: the name lengths of its DIR_ITEM and DIR_INDEX
 * entries, each name counted once per copy (as btrfs counts).
 */
static int add_name_len(const struct btrfs_key *key, const struct btrfs_name_entry *e,
			void *size)
{
	(void)key;
	*(u64 *)size += e->name_len;
	return 0;
}

int repair_count_dir_size(struct btrfs_root *root, u64 dir, u64 *size)
{
	*size = 0;
	return btrfs_for_each_name(root, dir, BTRFS_DIR_ITEM_KEY, BTRFS_DIR_INDEX_KEY,
				   add_name_len, size);
}
