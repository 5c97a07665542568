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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "repair-lost-found.h"
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

#define LOST_FOUND_NAME		"lost+found"
#define LOST_FOUND_MODE		(0040000 | 0700)
/* "<ino>.<n>": how many suffixes are tried before giving up */
#define LOST_FOUND_SUFFIXES	1000

/* ---- names ---- */

struct entry_match {
	const char *name;
	size_t name_len;
	u64 match;		/* (u64)-1: any */
	u32 off;
	u32 len;
	struct btrfs_key location;
	u8 type;
};

static int match_entry(const struct btrfs_key *key, const struct btrfs_name_entry *e,
		       void *data)
{
	struct entry_match *m = data;

	/* an INODE_REF's parent is its key: any entry may match */
	if (m->match != (u64)-1 &&
	    (key->type == BTRFS_INODE_EXTREF_KEY ? e->parent != m->match :
	     key->type != BTRFS_INODE_REF_KEY && e->location.objectid != m->match))
		return 0;
	if (e->name_len != m->name_len || memcmp(e->name, m->name, m->name_len))
		return 0;
	m->off = e->off;
	m->len = e->len;
	m->location = e->location;
	m->type = e->di ? btrfs_dir_type(e->di) : 0;
	return 1;
}

/* the entry of the item at @key @m asks for: 0 found, 1 not there, <0 error */
static int find_entry(struct btrfs_root *root, const struct btrfs_key *key,
		      struct entry_match *m)
{
	int ret = btrfs_item_for_each_name(root, key, match_entry, m);

	return ret > 0 ? 0 : !ret || ret == -ENOENT ? 1 : ret;
}

int repair_find_entry(struct btrfs_root *root, const struct btrfs_key *key,
		      const char *name, size_t name_len, u64 match, u32 *off,
		      u32 *len)
{
	struct entry_match m = { .name = name, .name_len = name_len, .match = match };
	int ret = find_entry(root, key, &m);

	if (!ret) {
		*off = m.off;
		*len = m.len;
	}
	return ret;
}

int repair_lookup_name(struct btrfs_root *root, u64 dir, const char *name,
		       size_t name_len, struct btrfs_key *location, u8 *type)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, (int)name_len) };
	struct entry_match m = { .name = name, .name_len = name_len, .match = (u64)-1 };
	int ret = find_entry(root, &key, &m);

	if (!ret) {
		*location = m.location;
		*type = m.type;
	}
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

int repair_dir_size_add(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			s64 delta)
{
	struct btrfs_inode_item ii;
	u64 old, want;
	int ret;

	if (!delta)
		return 0;
	ret = btrfs_read_inode(root, dir, &ii);
	if (ret)
		return ret;
	old = btrfs_inode_size(&ii);
	want = (s64)old + delta < 0 ? 0 : (u64)((s64)old + delta);
	repair_note(r, REPAIR_OP_CHANGE, true, old, want, "root %llu (%llu INODE_ITEM 0) size",
		    (unsigned long long)root->root_key.objectid, (unsigned long long)dir);
	btrfs_set_inode_size(&ii, want);
	btrfs_set_inode_transid(&ii, r->trans->transid);
	return btrfs_update_inode(r->trans, root, dir, &ii);
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
	ret = btrfs_insert_inode_ref(r->trans, root, name, (int)len, ino, parent, index);
	if (ret)
		return ret;
	ret = btrfs_insert_dir_item(r->trans, root, name, (int)len, parent,
				    &(struct btrfs_key){ ino, BTRFS_INODE_ITEM_KEY, 0 },
				    type, index);
	if (!ret)
		ret = repair_dir_size_add(r, root, parent, 2 * (s64)len);
	return repair_fail_after_change(r, ret);
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
	ret = btrfs_next_dir_index(root, top, &index);
	if (ret)
		return ret;
	ip.mode = LOST_FOUND_MODE;
	ip.nlink = 1;
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu INODE_ITEM 0) mode 0%o nlink 1: the directory " LOST_FOUND_NAME,
		    (unsigned long long)rootid, (unsigned long long)*dir, ip.mode);
	ip.atime.sec = ip.ctime.sec = ip.mtime.sec = ip.otime.sec = (u64)time(NULL);
	ret = btrfs_insert_inode(r->trans, root, *dir, &ip);
	if (ret)
		return ret;
	return repair_fail_after_change(r, add_link(r, root, *dir, top, LOST_FOUND_NAME,
						    BTRFS_FT_DIR, index));
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
	if (is_dir && names)
		return -EEXIST;		/* a directory has one name */
	ret = get_lost_found(r, root, &dir);
	if (ret)
		return ret;
	if (dir == ino)
		return -ELOOP;
	ret = free_name(root, dir, ino, name, sizeof(name));
	if (!ret)
		ret = btrfs_next_dir_index(root, dir, &index);
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
	/* read again: the link may share its leaf and moved the item */
	ret = btrfs_read_inode(root, ino, &ii);
	if (ret)
		return ret;
	btrfs_set_inode_nlink(&ii, nlink);
	return btrfs_update_inode(r->trans, root, ino, &ii);
}
