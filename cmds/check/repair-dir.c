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

/*
 * Find the entry named @name in the dir item/index at @key; copy it.
 * 0 found, -ENOENT not there.
 */
static int find_entry(struct repair_ctx *r, struct btrfs_root *root,
		      const struct btrfs_key *key, const char *name,
		      struct dir_entry_copy *out)
{
	size_t name_len = strlen(name);
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret == 0) {
		const u8 *p = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
		u32 size = btrfs_item_size(path.nodes[0], path.slots[0]), cur = 0;

		ret = -ENOENT;
		while (cur + sizeof(struct btrfs_dir_item) <= size) {
			const struct btrfs_dir_item *di = (const void *)(p + cur);
			u32 nl = btrfs_dir_name_len(di), dl = btrfs_dir_data_len(di);
			u32 step = sizeof(*di) + nl + dl;

			if (cur + step > size || nl > BTRFS_NAME_LEN)
				break;
			if (nl == name_len && !dl && !memcmp(di + 1, name, nl)) {
				memcpy(out->buf, di, sizeof(*di) + nl);
				out->size = sizeof(*di) + nl;
				ret = 0;
				break;
			}
			cur += step;
		}
	} else if (ret > 0) {
		ret = -ENOENT;
	}
	btrfs_release_path(&path);
	(void)r;
	return ret;
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
	ret = find_entry(r, root, &from, name, &e);
	if (ret)
		return ret;
	if (!find_entry(r, root, &to, name, &(struct dir_entry_copy){ 0 }))
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
int repair_count_dir_size(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			  u64 *size)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	(void)r;
	*size = 0;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		const u8 *p;
		u32 isize, cur = 0;

		btrfs_path_key(&path, &key);
		if (key.objectid != dir || key.type > BTRFS_DIR_INDEX_KEY)
			break;
		if (key.type != BTRFS_DIR_ITEM_KEY && key.type != BTRFS_DIR_INDEX_KEY)
			goto next;
		p = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
		isize = btrfs_item_size(path.nodes[0], path.slots[0]);
		while (cur + sizeof(struct btrfs_dir_item) <= isize) {
			const struct btrfs_dir_item *di = (const void *)(p + cur);

			*size += btrfs_dir_name_len(di);
			cur += sizeof(*di) + btrfs_dir_name_len(di) + btrfs_dir_data_len(di);
		}
next:
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}
