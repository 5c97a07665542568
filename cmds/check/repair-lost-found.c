// SPDX-License-Identifier: GPL-2.0
/*
 * lost+found: where check --repair puts an inode that no name reaches
 * (its inode refs are gone, or they name a directory that is gone).  As
 * e2fsck does, the directory is /lost+found of the inode's subvolume,
 * mode 0700, made when missing; the inode is linked there under its
 * inode number, so nothing it holds is lost and the user finds it by the
 * number the repair report gives.
 *
 * A link is three entries (dir item, dir index, inode ref) plus the
 * directory's size, which counts each name twice (dir item and index).
 * The dry run writes nothing, so it remembers the directories it
 * planned to make or grow (their size and next index) to describe a
 * second link the way the real repair makes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "repair-lost-found.h"
#include "repair-inode.h"
#include "array.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

#define LOST_FOUND_NAME		"lost+found"
#define LOST_FOUND_MODE		(0040000 | 0700)
/* "<ino>.<n>": how many suffixes are tried before giving up */
#define LOST_FOUND_SUFFIXES	1000

/* an inode the dry run changed: what the tree would hold */
struct repair_planned_dir {
	u64 root;
	u64 ino;
	s64 names;		/* names planned to be added (< 0: removed) */
	bool ref_dropped;	/* a ref entry the plan replaced: */
	u64 dropped_parent;	/* its directory */
	u64 dropped_index;	/* and index */
	bool dir;		/* the fields below are valid */
	bool lost_found;	/* made by the plan as lost+found */
	u64 size;
	s64 entry_bytes;	/* name bytes of the entries planned (< 0: removed) */
	u64 next_index;
};

void repair_lost_found_release(struct repair_ctx *r)
{
	free(r->planned_dirs);
	r->planned_dirs = NULL;
	r->nr_planned_dirs = r->alloc_planned_dirs = 0;
}

static struct repair_planned_dir *planned_inode(struct repair_ctx *r, u64 root, u64 ino)
{
	size_t i;

	for (i = 0; i < r->nr_planned_dirs; i++) {
		if (r->planned_dirs[i].root == root && r->planned_dirs[i].ino == ino)
			return &r->planned_dirs[i];
	}
	return NULL;
}

static struct repair_planned_dir *planned_dir(struct repair_ctx *r, u64 root, u64 ino)
{
	struct repair_planned_dir *d = planned_inode(r, root, ino);

	return d && d->dir ? d : NULL;
}

static struct repair_planned_dir *plan_inode(struct repair_ctx *r, u64 root, u64 ino)
{
	struct repair_planned_dir *d = planned_inode(r, root, ino);

	if (d)
		return d;
	if (ARRAY_RESERVE(r->planned_dirs, r->alloc_planned_dirs, r->nr_planned_dirs + 1, 4))
		return NULL;
	d = &r->planned_dirs[r->nr_planned_dirs++];
	memset(d, 0, sizeof(*d));
	d->root = root;
	d->ino = ino;
	return d;
}

static struct repair_planned_dir *plan_dir(struct repair_ctx *r, u64 root, u64 ino,
					   u64 size, u64 next_index)
{
	struct repair_planned_dir *d = plan_inode(r, root, ino);

	if (d && !d->dir) {
		d->dir = true;
		d->size = size;
		d->next_index = next_index;
	}
	return d;
}

int repair_plan_names(struct repair_ctx *r, u64 root, u64 ino, s64 delta)
{
	struct repair_planned_dir *d;

	if (r->trans)
		return 0;
	d = plan_inode(r, root, ino);
	if (!d)
		return -ENOMEM;
	d->names += delta;
	return 0;
}

int repair_plan_ref_dropped(struct repair_ctx *r, u64 root, u64 ino, u64 parent, u64 index)
{
	struct repair_planned_dir *d;

	if (r->trans)
		return 0;
	d = plan_inode(r, root, ino);
	if (!d)
		return -ENOMEM;
	d->ref_dropped = true;
	d->dropped_parent = parent;
	d->dropped_index = index;
	return 0;
}

bool repair_ref_planned_dropped(struct repair_ctx *r, u64 root, u64 ino, u64 parent,
				u64 index)
{
	struct repair_planned_dir *d = r->trans ? NULL : planned_inode(r, root, ino);

	return d && d->ref_dropped && d->dropped_parent == parent && d->dropped_index == index;
}

u64 repair_names_now(struct repair_ctx *r, u64 root, u64 on_disk, u64 ino)
{
	struct repair_planned_dir *d = r->trans ? NULL : planned_inode(r, root, ino);
	s64 n = (s64)on_disk + (d ? d->names : 0);

	return n > 0 ? (u64)n : 0;
}

/* ---- names ---- */

int repair_find_entry(struct btrfs_root *root, const struct btrfs_key *key,
		      const char *name, size_t name_len, u64 match, u32 *off,
		      u32 *len)
{
	struct btrfs_path path;
	const u8 *p;
	u32 size, cur = 0;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret) {
		btrfs_release_path(&path);
		return ret;
	}
	p = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	ret = 1;
	while (cur < size) {
		const u8 *n;
		u32 nl, step;
		bool ok;

		if (key->type == BTRFS_INODE_REF_KEY) {
			const struct btrfs_inode_ref *ref = (const void *)(p + cur);

			if (cur + sizeof(*ref) > size)
				break;
			nl = btrfs_inode_ref_name_len(ref);
			n = (const u8 *)(ref + 1);
			step = sizeof(*ref) + nl;
			ok = true;
		} else if (key->type == BTRFS_INODE_EXTREF_KEY) {
			const struct btrfs_inode_extref *ref = (const void *)(p + cur);

			if (cur + sizeof(*ref) > size)
				break;
			nl = btrfs_inode_extref_name_len(ref);
			n = ref->name;
			step = sizeof(*ref) + nl;
			ok = btrfs_inode_extref_parent(ref) == match;
		} else {
			const struct btrfs_dir_item *di = (const void *)(p + cur);
			struct btrfs_key loc;

			if (cur + sizeof(*di) > size)
				break;
			nl = btrfs_dir_name_len(di);
			n = (const u8 *)(di + 1);
			step = sizeof(*di) + nl + btrfs_dir_data_len(di);
			btrfs_disk_key_to_cpu(&loc, &di->location);
			ok = loc.objectid == match;
		}
		if (cur + step > size)
			break;
		if (ok && nl == name_len && !memcmp(n, name, name_len)) {
			*off = cur;
			*len = step;
			ret = 0;
			break;
		}
		cur += step;
	}
	btrfs_release_path(&path);
	return ret;
}

int repair_lookup_name(struct btrfs_root *root, u64 dir, const char *name,
		       size_t name_len, struct btrfs_key *location, u8 *type)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, (int)name_len) };
	struct btrfs_path path;
	const u8 *p;
	u32 size, cur = 0;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret) {
		btrfs_release_path(&path);
		return ret;
	}
	p = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	ret = 1;
	while (cur + sizeof(struct btrfs_dir_item) <= size) {
		const struct btrfs_dir_item *di = (const void *)(p + cur);
		u32 nl = btrfs_dir_name_len(di);
		u32 step = sizeof(*di) + nl + btrfs_dir_data_len(di);

		if (cur + step > size)
			break;
		if (nl == name_len && !memcmp(di + 1, name, name_len)) {
			btrfs_disk_key_to_cpu(location, &di->location);
			*type = btrfs_dir_type(di);
			ret = 0;
			break;
		}
		cur += step;
	}
	btrfs_release_path(&path);
	return ret;
}

int repair_cut_entry(struct repair_ctx *r, struct btrfs_root *root,
		     const struct btrfs_key *key, u32 off, u32 len)
{
	struct btrfs_path path;
	u32 size;
	u8 *buf;
	int ret;

	ret = repair_search(r, root, key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	if (off + len > size) {
		btrfs_release_path(&path);
		return -EUCLEAN;
	}
	if (len == size) {
		ret = btrfs_del_item(r->trans, root, &path);
		btrfs_release_path(&path);
		return ret;
	}
	/* the entries after it move down over it, then the item shrinks */
	buf = malloc(size);
	if (!buf) {
		btrfs_release_path(&path);
		return -ENOMEM;
	}
	memcpy(buf, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), size);
	memmove(buf + off, buf + off + len, size - off - len);
	btrfs_write_item_data(&path, 0, buf, size - len);
	btrfs_truncate_item(&path, size - len, 1);
	btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	free(buf);
	return 0;
}

/* dry run: the plan's record of directory @dir (made on first use) */
static struct repair_planned_dir *plan_existing_dir(struct repair_ctx *r,
						    struct btrfs_root *root, u64 dir,
						    u64 size)
{
	struct repair_planned_dir *d = planned_dir(r, root->root_key.objectid, dir);
	u64 next;

	if (d)
		return d;
	if (btrfs_next_dir_index(root, dir, &next))
		return NULL;
	return plan_dir(r, root->root_key.objectid, dir, size, next);
}

int repair_dir_size_add(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			s64 delta)
{
	struct repair_planned_dir *d = r->trans ? NULL : planned_dir(r, root->root_key.objectid, dir);
	struct btrfs_inode_item ii;
	u64 old, want;
	int ret;

	if (!delta)
		return 0;
	if (d) {
		old = d->size;
	} else {
		ret = btrfs_read_inode(root, dir, &ii);
		if (ret)
			return ret;
		old = btrfs_inode_size(&ii);
	}
	want = (s64)old + delta < 0 ? 0 : (u64)((s64)old + delta);
	repair_note(r, REPAIR_OP_CHANGE, true, old, want, "root %llu (%llu INODE_ITEM 0) size",
		    (unsigned long long)root->root_key.objectid, (unsigned long long)dir);
	if (!r->trans) {
		d = d ? d : plan_existing_dir(r, root, dir, old);
		if (!d)
			return -ENOMEM;
		d->size = want;
		d->entry_bytes += delta;
		return 0;
	}
	btrfs_set_inode_size(&ii, want);
	btrfs_set_inode_transid(&ii, r->trans->transid);
	return btrfs_update_inode(r->trans, root, dir, &ii);
}

int repair_plan_dir_entries(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			    s64 delta)
{
	struct repair_planned_dir *d;
	struct btrfs_inode_item ii;
	int ret;

	if (r->trans)
		return 0;
	d = planned_dir(r, root->root_key.objectid, dir);
	if (!d) {
		ret = btrfs_read_inode(root, dir, &ii);
		if (ret)
			return ret;
		d = plan_existing_dir(r, root, dir, btrfs_inode_size(&ii));
		if (!d)
			return -ENOMEM;
	}
	d->entry_bytes += delta;
	return 0;
}

int repair_take_dir_index(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			  u64 *index)
{
	struct repair_planned_dir *d;
	struct btrfs_inode_item ii;
	int ret;

	if (r->trans)
		return btrfs_next_dir_index(root, dir, index);
	d = planned_dir(r, root->root_key.objectid, dir);
	if (!d) {
		ret = btrfs_read_inode(root, dir, &ii);
		if (ret)
			return ret;
		d = plan_existing_dir(r, root, dir, btrfs_inode_size(&ii));
		if (!d)
			return -ENOMEM;
	}
	*index = d->next_index++;
	return 0;
}

int repair_plan_dir_isize(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			  u64 counted)
{
	struct repair_planned_dir *d = r->trans ? NULL : planned_dir(r, root->root_key.objectid, dir);
	u64 want;

	if (!d)
		return -ENOENT;
	/* the entries counted on disk, and those the plan added or removed */
	want = (u64)((s64)counted + d->entry_bytes);
	if (want == d->size)
		return 1;
	repair_note(r, REPAIR_OP_CHANGE, true, d->size, want, "root %llu (%llu INODE_ITEM 0) size",
		    (unsigned long long)root->root_key.objectid, (unsigned long long)dir);
	d->size = want;
	return 0;
}

/* the next index of @dir, counting what the dry run planned */
static int next_index(struct repair_ctx *r, struct btrfs_root *root, u64 dir, u64 *index)
{
	struct repair_planned_dir *d = r->trans ? NULL : planned_dir(r, root->root_key.objectid, dir);

	if (d) {
		*index = d->next_index;
		return 0;
	}
	return btrfs_next_dir_index(root, dir, index);
}

static void index_used(struct repair_ctx *r, struct btrfs_root *root, u64 dir, u64 index)
{
	struct repair_planned_dir *d = r->trans ? NULL : planned_dir(r, root->root_key.objectid, dir);

	if (d && index + 1 > d->next_index)
		d->next_index = index + 1;
}

/*
 * One link @parent/@name -> @ino of type @type at @index: the three
 * entries and the parent's size.  The caller checked the name is free.
 */
static int add_link(struct repair_ctx *r, struct btrfs_root *root, u64 ino, u64 parent,
		    const char *name, u8 type, u64 index)
{
	u64 rootid = root->root_key.objectid;
	size_t len = strlen(name);
	int ret;

	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu DIR_ITEM %llu) name %s -> inode %llu",
		    (unsigned long long)rootid, (unsigned long long)parent,
		    (unsigned long long)btrfs_name_hash(name, (int)len), name,
		    (unsigned long long)ino);
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu DIR_INDEX %llu) name %s -> inode %llu",
		    (unsigned long long)rootid, (unsigned long long)parent,
		    (unsigned long long)index, name, (unsigned long long)ino);
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu INODE_REF %llu) index %llu name %s",
		    (unsigned long long)rootid, (unsigned long long)ino,
		    (unsigned long long)parent, (unsigned long long)index, name);
	if (r->trans) {
		struct btrfs_key loc = { ino, BTRFS_INODE_ITEM_KEY, 0 };

		ret = btrfs_insert_inode_ref(r->trans, root, name, (int)len, ino, parent, index);
		if (!ret)
			ret = btrfs_insert_dir_item(r->trans, root, name, (int)len, parent,
						    &loc, type, index);
		if (ret)
			return ret;
	}
	ret = repair_dir_size_add(r, root, parent, 2 * (s64)len);
	if (!ret)
		index_used(r, root, parent, index);
	if (!ret)
		ret = repair_plan_names(r, rootid, ino, 1);
	return ret;
}

/*
 * /lost+found of @root: found (a directory), or made.  -ENOTDIR when the
 * name is taken by something else.
 */
static int get_lost_found(struct repair_ctx *r, struct btrfs_root *root, u64 *dir)
{
	u64 rootid = root->root_key.objectid, top, index;
	struct btrfs_inode_params ip = { 0 };
	struct btrfs_inode_item ii;
	struct btrfs_key loc;
	size_t i;
	u8 type;
	int ret;

	top = root->has_root_item ? btrfs_root_dirid(&root->root_item) : BTRFS_FIRST_FREE_OBJECTID;
	if (!top)
		top = BTRFS_FIRST_FREE_OBJECTID;
	ret = repair_lookup_name(root, top, LOST_FOUND_NAME, strlen(LOST_FOUND_NAME), &loc, &type);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		if (loc.type != BTRFS_INODE_ITEM_KEY || type != BTRFS_FT_DIR)
			return -ENOTDIR;
		ret = btrfs_read_inode(root, loc.objectid, &ii);
		if (ret)
			return ret;
		if ((btrfs_inode_mode(&ii) & 0170000) != 0040000)
			return -ENOTDIR;
		*dir = loc.objectid;
		return 0;
	}
	/* the dry run made it already for an earlier inode */
	for (i = 0; !r->trans && i < r->nr_planned_dirs; i++) {
		struct repair_planned_dir *d = &r->planned_dirs[i];

		if (d->root == rootid && d->lost_found) {
			*dir = d->ino;
			return 0;
		}
	}
	ret = btrfs_read_inode(root, top, &ii);
	if (ret)
		return ret;	/* no root directory to hold it */
	if ((btrfs_inode_mode(&ii) & 0170000) != 0040000)
		return -ENOTDIR;
	ret = btrfs_find_highest_objectid(root, dir);
	if (ret)
		return ret;
	if (++*dir > BTRFS_LAST_FREE_OBJECTID)
		return -ENOSPC;
	ret = next_index(r, root, top, &index);
	if (ret)
		return ret;
	ip.mode = LOST_FOUND_MODE;
	ip.nlink = 1;
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu INODE_ITEM 0) mode 0%o nlink 1: the directory " LOST_FOUND_NAME,
		    (unsigned long long)rootid, (unsigned long long)*dir, ip.mode);
	if (r->trans) {
		ip.atime.sec = ip.ctime.sec = ip.mtime.sec = ip.otime.sec = (u64)time(NULL);
		ret = btrfs_insert_inode(r->trans, root, *dir, &ip);
		if (ret)
			return ret;
	} else {
		struct repair_planned_dir *d = plan_dir(r, rootid, *dir, 0, 2);

		if (!d)
			return -ENOMEM;
		d->lost_found = true;
	}
	return add_link(r, root, *dir, top, LOST_FOUND_NAME, BTRFS_FT_DIR, index);
}

/* "<ino>", else "<ino>.1", "<ino>.2", ...: a name free in @dir */
static int free_name(struct btrfs_root *root, u64 dir, u64 ino, char *name, size_t size)
{
	struct btrfs_key loc;
	int n, ret;
	u8 type;

	for (n = 0; n < LOST_FOUND_SUFFIXES; n++) {
		if (n)
			snprintf(name, size, "%llu.%d", (unsigned long long)ino, n);
		else
			snprintf(name, size, "%llu", (unsigned long long)ino);
		ret = repair_lookup_name(root, dir, name, strlen(name), &loc, &type);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return -EEXIST;
}

int repair_link_to_lost_found(struct repair_ctx *r, u64 rootid, u64 ino)
{
	struct btrfs_root *root = repair_get_root(r, rootid);
	struct btrfs_inode_item ii;
	u64 dir, index, names;
	char name[48];
	bool is_dir;
	u32 nlink;
	u8 type;
	int ret;

	if (!root)
		return -ENOENT;
	ret = btrfs_read_inode(root, ino, &ii);
	if (ret)
		return ret;
	type = btrfs_mode_to_type(btrfs_inode_mode(&ii));
	/* a mode without a type: what INODE_MODE_INVALID gives it (before) */
	if (type == BTRFS_FT_UNKNOWN)
		type = btrfs_mode_to_type(repair_inode_fmt(root, ino));
	if (type == BTRFS_FT_UNKNOWN)
		return -EINVAL;		/* nothing tells the file type */
	is_dir = type == BTRFS_FT_DIR;
	ret = repair_count_names(root, ino, &names, NULL, NULL);
	if (ret)
		return ret;
	names = repair_names_now(r, rootid, names, ino);
	if (is_dir && names)
		return -EEXIST;		/* a directory has one name */
	ret = get_lost_found(r, root, &dir);
	if (ret)
		return ret;
	if (dir == ino)
		return -ELOOP;
	ret = free_name(root, dir, ino, name, sizeof(name));
	if (!ret)
		ret = next_index(r, root, dir, &index);
	if (!ret)
		ret = add_link(r, root, ino, dir, name, type, index);
	if (ret)
		return ret;
	nlink = is_dir ? 1 : (u32)(names + 1);
	if (btrfs_inode_nlink(&ii) == nlink)
		return 0;
	repair_note(r, REPAIR_OP_CHANGE, true, btrfs_inode_nlink(&ii), nlink,
		    "root %llu (%llu INODE_ITEM 0) nlink", (unsigned long long)rootid,
		    (unsigned long long)ino);
	if (!r->trans)
		return 0;
	/* read again: the link may share its leaf and moved the item */
	ret = btrfs_read_inode(root, ino, &ii);
	if (ret)
		return ret;
	btrfs_set_inode_nlink(&ii, nlink);
	return btrfs_update_inode(r->trans, root, ino, &ii);
}
