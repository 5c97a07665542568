// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions for names in filesystem trees (phase 7): dir items,
 * dir indexes and xattrs whose name, key or target is wrong.
 *
 * A link "dir D holds name N for inode C" is kept three times: a DIR_ITEM
 * at (D, hash(N)), a DIR_INDEX at (D, index) and an INODE_REF (C, D)
 * holding (index, N).  When one copy's name is damaged, the copies vote:
 * the name that two of them hold is the right one, and the key of a
 * DIR_ITEM counts as a vote for every name that hashes to it.  So
 *  - a DIR_INDEX whose name differs from the dir item and inode ref of
 *    its index gets their name back;
 *  - a DIR_ITEM entry under a key its name does not hash to is renamed
 *    when the inode ref names it by a name of that hash, else moved to
 *    the key of its own name (the dir index and inode ref agree with it);
 *  - an entry for an inode that has no item at all (nothing that could
 *    be recreated) is deleted, both copies, and the directory's size
 *    shrinks by the name it no longer holds;
 *  - the second of two entries with one name in a directory is renamed
 *    "NAME.dup-INO" (all three copies), so both files stay reachable.
 * Each action reads what it changes; an entry that an earlier fix of the
 * same pass already handled gives 1 (nothing to do).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-inode.h"
#include "repair-names.h"
#include "repair-lost-found.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

#define DI_SIZE		((u32)sizeof(struct btrfs_dir_item))
#define REF_SIZE	((u32)sizeof(struct btrfs_inode_ref))

static bool location_valid(const struct btrfs_dir_item *di);
static int misplaced_in_dir(struct btrfs_root *root, u64 dir, const u8 *name,
			    u32 name_len);

/* an item copied out of its leaf */
struct item_copy {
	struct btrfs_key key;
	u8 *data;
	u32 size;
};

static void item_free(struct item_copy *it)
{
	free(it->data);
	it->data = NULL;
	it->size = 0;
}

/* copy the item at @key: 0, 1 when there is none, <0 error */
static int item_read(struct btrfs_root *root, const struct btrfs_key *key,
		     struct item_copy *out)
{
	struct btrfs_path path;
	int ret;

	memset(out, 0, sizeof(*out));
	out->key = *key;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret == 0) {
		out->size = btrfs_item_size(path.nodes[0], path.slots[0]);
		out->data = malloc(out->size ? out->size : 1);
		if (!out->data)
			ret = -ENOMEM;
		else
			memcpy(out->data, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]),
			       out->size);
	}
	btrfs_release_path(&path);
	return ret;
}

/* give the item at @key the contents @data (@size bytes; 0 deletes it) */
static int item_write(struct repair_ctx *r, struct btrfs_root *root,
		      const struct btrfs_key *key, const u8 *data, u32 size)
{
	struct btrfs_path path;
	u32 old;
	int ret;

	ret = repair_search(r, root, key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	old = btrfs_item_size(path.nodes[0], path.slots[0]);
	if (size && size <= old) {
		btrfs_write_item_data(&path, 0, data, size);
		if (size < old)
			btrfs_truncate_item(&path, size, 1);
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
		btrfs_release_path(&path);
		return 0;
	}
	ret = btrfs_del_item(r->trans, root, &path);
	btrfs_release_path(&path);
	if (ret || !size)
		return ret;
	return btrfs_insert_item(r->trans, root, key, data, size);
}

/* append the entry @e (@len bytes) to the item at @key, or make the item */
static int entry_append(struct repair_ctx *r, struct btrfs_root *root,
			const struct btrfs_key *key, const u8 *e, u32 len)
{
	struct btrfs_path path;
	u32 off;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_insert_or_extend_item(r->trans, root, &path, key, len, &off);
	if (!ret) {
		btrfs_write_item_data(&path, off, e, len);
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	}
	btrfs_release_path(&path);
	return ret;
}

/* one entry of a dir item, dir index or xattr item */
struct dir_entry {
	u32 off;		/* in the item */
	u32 len;		/* header + name + data */
	u64 child;		/* location objectid */
	const u8 *name;
	u32 name_len;
};

/*
 * The entry of @it named @name (NULL: any name) pointing to @child
 * ((u64)-1: any), from the entry after @from; false when there is none
 * or the item is malformed.
 */
static bool entry_find(const struct item_copy *it, const u8 *name, u32 name_len,
		       u64 child, u32 from, struct dir_entry *e)
{
	struct btrfs_name_entry x = { .off = from };

	while (btrfs_next_name_entry(it->key.type, it->data, it->size, &x) > 0) {
		if ((!name || (x.name_len == name_len && !memcmp(x.name, name, name_len))) &&
		    (child == (u64)-1 || x.location.objectid == child)) {
			*e = (struct dir_entry){ x.off, x.len, x.location.objectid,
						 x.name, x.name_len };
			return true;
		}
	}
	return false;
}

/* the item without the entry @e: the new size (its bytes moved in place) */
static u32 entry_cut(struct item_copy *it, const struct dir_entry *e)
{
	memmove(it->data + e->off, it->data + e->off + e->len,
		it->size - e->off - e->len);
	return it->size - e->len;
}

/* a name as the notes print it (the checker's message shows the same) */
static void name_str(const u8 *name, u32 len, char *buf, size_t size)
{
	u32 i;

	for (i = 0; i < len && i + 1 < size; i++)
		buf[i] = (name[i] < 0x20 || name[i] >= 0x7f) ? '?' : (char)name[i];
	buf[i < size ? i : size - 1] = 0;
}

static const char *type_str(u8 type)
{
	switch (type) {
	case BTRFS_DIR_ITEM_KEY:
		return "DIR_ITEM";
	case BTRFS_DIR_INDEX_KEY:
		return "DIR_INDEX";
	case BTRFS_XATTR_ITEM_KEY:
		return "XATTR_ITEM";
	}
	return "?";
}

static void note_entry(struct repair_ctx *r, enum repair_op op, u64 root,
		       const struct btrfs_key *key, const u8 *name, u32 len,
		       const char *extra)
{
	char shown[BTRFS_NAME_LEN + 1];

	name_str(name, len, shown, sizeof(shown));
	repair_note(r, op, false, 0, 0, "root %llu (%llu %s %llu) name %s%s",
		    (unsigned long long)root, (unsigned long long)key->objectid,
		    type_str(key->type), (unsigned long long)key->offset, shown,
		    extra ? extra : "");
}

/* ---- the inode ref of a link ---- */

/* the name of the inode ref of @child in @dir with @index */
struct ref_name {
	u8 name[BTRFS_NAME_LEN];
	u32 name_len;
	u32 off;		/* of the entry in the INODE_REF item */
	bool extref;
};

/*
 * The entry of the INODE_REF or INODE_EXTREF item (@type, @data, @size)
 * in @dir holding @index ((u64)-1: any) named @name (NULL: any); the
 * scan stops at a name too long to be one.  true with @out filled.
 */
static bool ref_entry_find(u8 type, const void *data, u32 size, u64 dir, u64 index,
			   const u8 *name, u32 name_len, struct ref_name *out)
{
	struct btrfs_name_entry e = { 0 };

	while (btrfs_next_name_entry(type, data, size, &e) > 0 &&
	       e.name_len <= BTRFS_NAME_LEN) {
		if ((type == BTRFS_INODE_REF_KEY || e.parent == dir) &&
		    (index == (u64)-1 || e.index == index) &&
		    (!name || (e.name_len == name_len && !memcmp(e.name, name, name_len)))) {
			memcpy(out->name, e.name, e.name_len);
			out->name_len = e.name_len;
			out->off = e.off;
			out->extref = type == BTRFS_INODE_EXTREF_KEY;
			return true;
		}
	}
	return false;
}

/*
 * Find the inode ref (or extref) of @child in @dir holding @index
 * ((u64)-1: any index, and then @name must match).  0 found, 1 not, <0.
 */
static int ref_find(struct btrfs_root *root, u64 child, u64 dir, u64 index,
		    const u8 *name, u32 name_len, struct ref_name *out)
{
	struct btrfs_key key = { child, BTRFS_INODE_REF_KEY, dir };
	struct item_copy it;
	struct btrfs_path path;
	bool found;
	int ret;

	ret = item_read(root, &key, &it);
	if (ret < 0)
		return ret;
	found = !ret && ref_entry_find(key.type, it.data, it.size, dir, index, name,
				       name_len, out);
	item_free(&it);
	if (found)
		return 0;
	/* extrefs: every one of the inode is looked at (rare, small) */
	key = (struct btrfs_key){ child, BTRFS_INODE_EXTREF_KEY, 0 };
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != child || key.type != BTRFS_INODE_EXTREF_KEY)
			break;
		if (ref_entry_find(key.type, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]),
				   btrfs_item_size(path.nodes[0], path.slots[0]), dir, index,
				   name, name_len, out)) {
			btrfs_release_path(&path);
			return 0;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 1;
}

/* does a DIR_ITEM of @dir hold @name for @child (at the name's hash)? */
static int dir_item_has(struct btrfs_root *root, u64 dir, const u8 *name,
			u32 name_len, u64 child)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash((const char *)name, (int)name_len) };
	struct item_copy it;
	struct dir_entry e;
	int ret;

	ret = item_read(root, &key, &it);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = entry_find(&it, name, name_len, child, 0, &e);
	item_free(&it);
	return ret;
}

/* the finding's name as bytes; false when the checker could not show it */
static bool finding_name(const struct problem_ctx *p, const u8 **name, u32 *len)
{
	size_t n = p->name ? strlen(p->name) : 0;

	if (!n || n > BTRFS_NAME_LEN || p->name[0] == '(' || strchr(p->name, '?'))
		return false;
	*name = (const u8 *)p->name;
	*len = (u32)n;
	return true;
}

/* a damaged DIR_INDEX and the DIR_ITEM entry it should copy */
struct index_fix {
	struct btrfs_key key;		/* of the dir index */
	struct item_copy idx;
	struct dir_entry bad;		/* its entry */
	struct item_copy item;		/* the dir item of the right name */
	struct dir_entry good;		/* the entry it should copy */
};

static void index_fix_free(struct index_fix *f)
{
	item_free(&f->idx);
	item_free(&f->item);
}

/*
 * Is the DIR_INDEX (@dir, @index) the one damaged copy of a link whose
 * dir item and inode ref agree?  Either its name is wrong (its inode has
 * a ref of that index by another name, with a dir item of that name, and
 * its own name has neither) or its inode is (the dir item of its name
 * points to another inode, whose ref holds this index and name, and its
 * own inode has no ref for it, or its location is not one at all).  1
 * with @f filled, 0 not, <0 error.
 */
static int index_damaged_copy(struct btrfs_root *root, u64 dir, u64 index,
			      struct index_fix *f)
{
	struct ref_name ref;
	bool broken;
	int ret;

	memset(f, 0, sizeof(*f));
	f->key = (struct btrfs_key){ dir, BTRFS_DIR_INDEX_KEY, index };
	ret = item_read(root, &f->key, &f->idx);
	if (ret)
		return ret < 0 ? ret : 0;
	if (!entry_find(&f->idx, NULL, 0, (u64)-1, 0, &f->bad) || f->bad.len != f->idx.size)
		goto no;
	broken = !location_valid((const void *)f->idx.data);
	/* the name: a ref of this index by another name */
	ret = broken ? 1 : ref_find(root, f->bad.child, dir, index, NULL, 0, &ref);
	if (ret < 0)
		goto out;
	if (ret == 0) {
		if (ref.name_len == f->bad.name_len &&
		    !memcmp(ref.name, f->bad.name, ref.name_len))
			goto no;	/* the index agrees with its ref */
		ret = item_read(root, &(struct btrfs_key){ dir, BTRFS_DIR_ITEM_KEY,
				btrfs_name_hash((const char *)ref.name, (int)ref.name_len) },
				&f->item);
		if (ret)
			goto out_not;
		if (!entry_find(&f->item, ref.name, ref.name_len, f->bad.child, 0, &f->good))
			goto no;
		/* the index's own name is no other copy's */
		ret = dir_item_has(root, dir, f->bad.name, f->bad.name_len, f->bad.child);
		if (ret)
			goto out_not;
		ret = ref_find(root, f->bad.child, dir, (u64)-1, f->bad.name,
			       f->bad.name_len, &ref);
		if (ret <= 0)
			goto out_not;
		return 1;
	}
	/* the inode: the dir item of this name names another one */
	ret = item_read(root, &(struct btrfs_key){ dir, BTRFS_DIR_ITEM_KEY,
			btrfs_name_hash((const char *)f->bad.name, (int)f->bad.name_len) },
			&f->item);
	if (ret)
		goto out_not;
	if (!entry_find(&f->item, f->bad.name, f->bad.name_len, (u64)-1, 0, &f->good) ||
	    (f->good.child == f->bad.child && !broken) ||
	    !location_valid((const void *)(f->item.data + f->good.off)))
		goto no;
	ret = ref_find(root, f->good.child, dir, index, f->bad.name, f->bad.name_len, &ref);
	if (ret)
		goto out_not;
	return 1;
out_not:
	if (ret > 0)
		ret = 0;
out:
	index_fix_free(f);
	return ret;
no:
	index_fix_free(f);
	return 0;
}


/*
 * DIR_INDEX_MISSING for @name at @index: when the dir index of that index
 * exists as a damaged copy of this link (above), it becomes a copy of the
 * dir item's entry again; else the dir index is rebuilt from the dir item.
 */
int repair_names_dir_index_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct index_fix f;
	const u8 *name;
	u32 name_len;
	char extra[32];
	u8 *buf;
	int ret;

	if (!root)
		return -ENOENT;
	if (!finding_name(p, &name, &name_len))
		return repair_dir_index_missing(r, p);
	if (!p->index) {
		/* an entry under a wrong hash: DIR_ITEM_HASH puts it right */
		ret = misplaced_in_dir(root, p->inode, name, name_len);
		if (ret)
			return ret;
		return repair_dir_index_missing(r, p);
	}
	ret = index_damaged_copy(root, p->inode, p->index, &f);
	if (ret <= 0)
		return ret < 0 ? ret : repair_dir_index_missing(r, p);
	if (f.good.name_len != name_len || memcmp(f.good.name, name, name_len)) {
		index_fix_free(&f);
		return repair_dir_index_missing(r, p);
	}
	snprintf(extra, sizeof(extra), " inode %llu", (unsigned long long)f.bad.child);
	note_entry(r, REPAIR_OP_DELETE, p->root, &f.key, f.bad.name, f.bad.name_len, extra);
	snprintf(extra, sizeof(extra), " inode %llu", (unsigned long long)f.good.child);
	note_entry(r, REPAIR_OP_INSERT, p->root, &f.key, name, name_len, extra);
	ret = -ENOMEM;
	buf = malloc(f.good.len);
	if (buf) {
		memcpy(buf, f.item.data + f.good.off, f.good.len);
		ret = item_write(r, root, &f.key, buf, f.good.len);
		free(buf);
	}
	/* a longer or shorter name changes what the directory's size counts */
	if (!ret && f.bad.name_len != name_len)
		ret = repair_dir_size_add(r, root, p->inode,
						(s64)name_len - (s64)f.bad.name_len);
	index_fix_free(&f);
	return ret;
}

/*
 * The finding names (@name, @child) at the dir index @index: is that the
 * damaged copy the DIR_INDEX_MISSING fix rewrites?  Also true when the
 * entry is gone already (rewritten by it before).  1 yes, 0 no, <0.
 */
static int handled_by_index_fix(struct btrfs_root *root, u64 dir, u64 index,
				const u8 *name, u32 name_len, u64 child)
{
	struct item_copy idx;
	struct index_fix f;
	struct dir_entry e;
	bool there;
	int ret;

	ret = item_read(root, &(struct btrfs_key){ dir, BTRFS_DIR_INDEX_KEY, index }, &idx);
	if (ret)
		return ret < 0 ? ret : 0;
	there = entry_find(&idx, name, name_len, child, 0, &e);
	item_free(&idx);
	if (!there)
		return 0;
	ret = index_damaged_copy(root, dir, index, &f);
	if (ret > 0)
		index_fix_free(&f);
	return ret;
}

/*
 * The dir item of @name's hash holds an entry for @child under another
 * name of the same length, one that does not hash there: the damaged
 * copy DIR_ITEM_HASH renames back to @name.  1 so, 0 not, <0 error.
 */
static int misnamed_in_item(struct btrfs_root *root, u64 dir, const u8 *name,
			    u32 name_len, u64 child)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash((const char *)name, (int)name_len) };
	struct item_copy it;
	struct dir_entry e;
	u32 from = 0;
	int ret;

	ret = item_read(root, &key, &it);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = 0;
	while (entry_find(&it, NULL, 0, child, from, &e)) {
		if (e.name_len == name_len && memcmp(e.name, name, name_len) &&
		    btrfs_name_hash((const char *)e.name, (int)e.name_len) != key.offset) {
			ret = 1;
			break;
		}
		from = e.off + e.len;
	}
	item_free(&it);
	return ret;
}

/*
 * Is @name an entry of a dir item of @dir that its hash does not key (a
 * DIR_ITEM_HASH finding's entry)?  Every dir item of the directory is
 * read.  1 yes, 0 no, <0 error.
 */
static int misplaced_in_dir(struct btrfs_root *root, u64 dir, const u8 *name,
			    u32 name_len)
{
	u64 hash = btrfs_name_hash((const char *)name, (int)name_len);
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		struct item_copy it;
		struct dir_entry e;
		bool found;

		btrfs_path_key(&path, &key);
		if (key.objectid != dir || key.type != BTRFS_DIR_ITEM_KEY) {
			ret = 1;
			break;
		}
		if (key.offset != hash) {
			it.key = key;
			it.data = (u8 *)btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
			it.size = btrfs_item_size(path.nodes[0], path.slots[0]);
			found = entry_find(&it, name, name_len, (u64)-1, 0, &e);
			if (found)
				break;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	return ret == 0;
}

static bool location_broken(const struct btrfs_dir_item *di);
static int scan_dir_entries(struct btrfs_root *root, u64 dir, u8 type, const u8 *name,
			    u32 name_len, bool (*want)(const struct btrfs_dir_item *),
			    struct item_copy *it, struct dir_entry *e);

/*
 * The dir item entry of @name is missing, or there under that name but
 * with a location that is no inode: the broken entry (DIR_ENTRY_INVALID)
 * gives way to the dir index's copy; else rebuilt from the dir index.
 */
static int item_from_index(struct repair_ctx *r, struct btrfs_root *root,
			   const struct problem_ctx *p, const u8 *name, u32 name_len)
{
	struct btrfs_key key = { p->inode, BTRFS_DIR_INDEX_KEY, p->index };
	struct item_copy it, idx;
	struct dir_entry e, ie;
	u8 *buf;
	u32 size;
	int ret;

	ret = scan_dir_entries(root, p->inode, BTRFS_DIR_ITEM_KEY, name, name_len,
			       location_broken, &it, &e);
	if (ret <= 0)
		return ret < 0 ? ret : repair_dir_item_missing(r, p);
	ret = item_read(root, &key, &idx);
	if (ret || !entry_find(&idx, name, name_len, (u64)-1, 0, &ie) ||
	    !location_valid((const void *)(idx.data + ie.off))) {
		item_free(&it);
		item_free(&idx);
		return ret < 0 ? ret : -EEXIST;
	}
	note_entry(r, REPAIR_OP_DELETE, p->root, &it.key, name, name_len, " (no inode)");
	note_entry(r, REPAIR_OP_INSERT, p->root, &it.key, name, name_len, NULL);
	size = it.size - e.len + ie.len;
	buf = malloc(size);
	ret = -ENOMEM;
	if (buf) {
		memcpy(buf, it.data, e.off);
		memcpy(buf + e.off, idx.data + ie.off, ie.len);
		memcpy(buf + e.off + ie.len, it.data + e.off + e.len,
		       it.size - e.off - e.len);
		ret = item_write(r, root, &it.key, buf, size);
		free(buf);
	}
	item_free(&it);
	item_free(&idx);
	return ret;
}

/*
 * DIR_ITEM_MISSING for @name at @index, found from a dir index: when that
 * dir index is a damaged copy of another link, the fix of that link's
 * DIR_INDEX_MISSING rewrites it and nothing is added here.
 */
int repair_names_dir_item_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { p->inode, BTRFS_DIR_INDEX_KEY, p->index };
	struct item_copy idx;
	struct dir_entry e;
	const u8 *name;
	u32 name_len;
	int ret;

	if (!root)
		return -ENOENT;
	if (!p->index || !finding_name(p, &name, &name_len))
		return repair_dir_item_missing(r, p);
	ret = item_read(root, &key, &idx);
	if (ret)
		return ret < 0 ? ret : repair_dir_item_missing(r, p);
	if (!entry_find(&idx, name, name_len, (u64)-1, 0, &e)) {
		/* the index names something else now: rewritten before this */
		item_free(&idx);
		return 1;
	}
	item_free(&idx);
	ret = handled_by_index_fix(root, p->inode, p->index, name, name_len, e.child);
	if (ret)
		return ret;
	ret = misnamed_in_item(root, p->inode, name, name_len, e.child);
	if (ret)
		return ret;
	return item_from_index(r, root, p, name, name_len);
}

/* ---- a DIR_ITEM under the wrong hash ---- */

/*
 * DIR_ITEM_HASH: the entry @name of the dir item at key offset p->found
 * hashes to p->expected.  When the inode ref of its inode in this
 * directory holds a name of the same length that hashes to the key, the
 * entry's name is the damaged copy: it gets that name.  Otherwise the
 * entry moves to the item of its own hash (out of an item it may share
 * with the names that belong there).
 */
int repair_names_dir_item_hash(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key from = { p->inode, BTRFS_DIR_ITEM_KEY, p->found };
	struct btrfs_key to = { p->inode, BTRFS_DIR_ITEM_KEY, p->expected };
	struct item_copy it;
	struct dir_entry e;
	struct ref_name ref;
	const u8 *name;
	u32 name_len;
	u8 *moved = NULL;
	bool twice;
	int ret;

	if (!root)
		return -ENOENT;
	if (!finding_name(p, &name, &name_len) ||
	    btrfs_name_hash((const char *)name, (int)name_len) != p->expected)
		return -EINVAL;
	ret = item_read(root, &from, &it);
	if (ret)
		return ret < 0 ? ret : 1;	/* moved by an earlier fix */
	if (!entry_find(&it, name, name_len, (u64)-1, 0, &e)) {
		item_free(&it);
		return 1;
	}
	/* a ref by a name of this key: the entry's name is what broke */
	ret = ref_find(root, e.child, p->inode, (u64)-1, NULL, 0, &ref);
	if (ret < 0)
		goto out;
	if (ret == 0 && ref.name_len == name_len && memcmp(ref.name, name, name_len) &&
	    btrfs_name_hash((const char *)ref.name, (int)ref.name_len) == p->found &&
	    !entry_find(&it, ref.name, ref.name_len, (u64)-1, 0, &(struct dir_entry){ 0 })) {
		/* the entry keeps its place in the item; only the name changes */
		note_entry(r, REPAIR_OP_DELETE, p->root, &from, name, name_len, NULL);
		note_entry(r, REPAIR_OP_INSERT, p->root, &from, ref.name, ref.name_len, NULL);
		memcpy(it.data + e.off + DI_SIZE, ref.name, name_len);
		ret = item_write(r, root, &from, it.data, it.size);
		goto out;
	}
	/* the right item may hold the entry already: then only one goes */
	ret = dir_item_has(root, p->inode, name, name_len, e.child);
	if (ret < 0)
		goto out;
	twice = ret;
	note_entry(r, REPAIR_OP_DELETE, p->root, &from, name, name_len, NULL);
	if (!twice)
		note_entry(r, REPAIR_OP_INSERT, p->root, &to, name, name_len, NULL);
	moved = malloc(e.len);
	if (!moved) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(moved, it.data + e.off, e.len);
	ret = item_write(r, root, &from, it.data, entry_cut(&it, &e));
	if (!ret && !twice)
		ret = entry_append(r, root, &to, moved, e.len);
	if (!ret && twice)
		ret = repair_dir_size_add(r, root, p->inode, -(s64)name_len);
	free(moved);
out:
	item_free(&it);
	return ret;
}

/* ---- xattrs ---- */

/*
 * XATTR_INVALID: an xattr under a key its name does not hash to moves to
 * the item of its hash; an xattr without a name (nothing can read it) is
 * deleted.
 */
int repair_names_xattr(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	unsigned long long keyoff;
	unsigned int hash;
	struct btrfs_key from = { p->inode, BTRFS_XATTR_ITEM_KEY, 0 }, to;
	struct item_copy it;
	struct dir_entry e;
	const u8 *name = (const u8 *)p->name;
	u32 name_len = p->name ? (u32)strlen(p->name) : 0;
	u8 *moved;
	bool empty;
	int ret;

	if (!root || !p->detail)
		return root ? -EOPNOTSUPP : -ENOENT;
	empty = !strcmp(p->detail, "empty name");
	if (!empty) {
		/* the finding shows at most 48 bytes of the name */
		if (sscanf(p->detail, "key offset %llu is not the name hash %u",
			   &keyoff, &hash) != 2 || name_len >= 48)
			return -EOPNOTSUPP;
		from.offset = keyoff;
	} else {
		name_len = 0;
	}
	if (empty) {
		/* every xattr item of the inode: the finding has no key */
		struct btrfs_path path;

		ret = btrfs_search_first(root, &from, &path);
		while (ret == 0) {
			btrfs_path_key(&path, &from);
			if (from.objectid != p->inode || from.type != BTRFS_XATTR_ITEM_KEY) {
				ret = 1;
				break;
			}
			ret = item_read(root, &from, &it);
			if (ret)
				break;
			if (entry_find(&it, (const u8 *)"", 0, (u64)-1, 0, &e))
				break;
			item_free(&it);
			ret = btrfs_next_item(root, &path);
		}
		btrfs_release_path(&path);
		if (ret)
			return ret < 0 ? ret : 1;
		note_entry(r, REPAIR_OP_DELETE, p->root, &from, (const u8 *)"", 0,
			   "(empty)");
		ret = item_write(r, root, &from, it.data, entry_cut(&it, &e));
		item_free(&it);
		return ret;
	}
	to = (struct btrfs_key){ p->inode, BTRFS_XATTR_ITEM_KEY,
				 btrfs_name_hash((const char *)name, (int)name_len) };
	if (to.offset != hash)
		return -EINVAL;
	ret = item_read(root, &from, &it);
	if (ret)
		return ret < 0 ? ret : 1;
	if (!entry_find(&it, name, name_len, (u64)-1, 0, &e)) {
		item_free(&it);
		return 1;
	}
	{
		/* the xattr there already: which value is right is not known */
		struct item_copy there;
		struct dir_entry te;

		ret = item_read(root, &to, &there);
		if (ret < 0 || (!ret && entry_find(&there, name, name_len, (u64)-1, 0, &te))) {
			item_free(&there);
			item_free(&it);
			return ret < 0 ? ret : -EEXIST;
		}
		item_free(&there);
	}
	note_entry(r, REPAIR_OP_DELETE, p->root, &from, name, name_len, NULL);
	note_entry(r, REPAIR_OP_INSERT, p->root, &to, name, name_len, NULL);
	moved = malloc(e.len);
	if (!moved) {
		item_free(&it);
		return -ENOMEM;
	}
	memcpy(moved, it.data + e.off, e.len);
	ret = item_write(r, root, &from, it.data, entry_cut(&it, &e));
	if (!ret)
		ret = entry_append(r, root, &to, moved, e.len);
	free(moved);
	item_free(&it);
	return ret;
}

/* ---- entries for inodes that do not exist ---- */

/*
 * Remove the entry @name -> @child from the item at @key: 1 when it is
 * not there, 0 removed, <0 error.
 */
static int entry_remove(struct repair_ctx *r, struct btrfs_root *root,
			const struct btrfs_key *key, const u8 *name, u32 name_len,
			u64 child)
{
	struct item_copy it;
	struct dir_entry e;
	int ret;

	ret = item_read(root, key, &it);
	if (ret)
		return ret;
	if (!entry_find(&it, name, name_len, child, 0, &e)) {
		item_free(&it);
		return 1;
	}
	note_entry(r, REPAIR_OP_DELETE, root->root_key.objectid, key, name, name_len, NULL);
	ret = item_write(r, root, key, it.data, entry_cut(&it, &e));
	item_free(&it);
	return ret;
}

/* does any item of @objectid exist in @root?  1 yes, 0 no, <0 unreadable */
static int any_item_of(struct btrfs_root *root, u64 objectid)
{
	struct btrfs_key key = { objectid, 0, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	if (ret == 0) {
		btrfs_path_key(&path, &key);
		ret = key.objectid == objectid;
	} else if (ret > 0) {
		ret = 0;
	}
	btrfs_release_path(&path);
	return ret;
}

/*
 * DIR_ENTRY_DANGLING: the entry points to inode p->found, of which the
 * tree holds nothing (no inode item, no ref, no extent: nothing to
 * recreate it from, nothing readable behind the name).  Its dir item and
 * dir index are deleted and the directory's size shrinks by the name
 * each held.  An inode with any item left is recreated by the inode
 * item fix instead; an unreadable part of the tree where its items would
 * be stops the action (the items may only be out of reach).
 */
int repair_names_dir_entry_dangling(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	const u8 *name;
	u32 name_len;
	s64 removed = 0;
	int ret;

	if (!root)
		return -ENOENT;
	if (!finding_name(p, &name, &name_len))
		return -EINVAL;
	ret = any_item_of(root, p->found);
	if (ret)
		return ret < 0 ? ret : 1;
	/* a dir index whose inode number broke: DIR_INDEX_MISSING mends it */
	if (p->index) {
		ret = handled_by_index_fix(root, p->inode, p->index, name, name_len, p->found);
		if (ret)
			return ret;
	}
	if (p->index) {
		ret = entry_remove(r, root, &(struct btrfs_key){ p->inode, BTRFS_DIR_INDEX_KEY,
					p->index }, name, name_len, p->found);
		if (ret < 0)
			return ret;
		if (!ret)
			removed += name_len;
	}
	ret = entry_remove(r, root, &(struct btrfs_key){ p->inode, BTRFS_DIR_ITEM_KEY,
				btrfs_name_hash((const char *)name, (int)name_len) },
			   name, name_len, p->found);
	if (ret < 0)
		return ret;
	if (!ret)
		removed += name_len;
	if (!removed)
		return 1;
	return repair_dir_size_add(r, root, p->inode, -removed);
}

/* ---- two entries with one name ---- */

/* "NAME.dup-INO" (the name cut to fit), unused in @dir; false if none is */
static bool dup_name(struct btrfs_root *root, u64 dir, const u8 *name, u32 name_len,
		     u64 child, u8 *out, u32 *out_len)
{
	char suffix[48];
	int n, try;

	for (try = 0; try < 16; try++) {
		u32 keep;
		struct item_copy it;
		struct dir_entry e;
		bool used = false;

		n = try ? snprintf(suffix, sizeof(suffix), ".dup-%llu-%d",
				   (unsigned long long)child, try)
			: snprintf(suffix, sizeof(suffix), ".dup-%llu",
				   (unsigned long long)child);
		keep = name_len + (u32)n <= BTRFS_NAME_LEN ? name_len : BTRFS_NAME_LEN - (u32)n;
		memcpy(out, name, keep);
		memcpy(out + keep, suffix, (size_t)n);
		*out_len = keep + (u32)n;
		if (item_read(root, &(struct btrfs_key){ dir, BTRFS_DIR_ITEM_KEY,
				btrfs_name_hash((const char *)out, (int)*out_len) }, &it) < 0)
			return false;
		used = it.data && entry_find(&it, out, *out_len, (u64)-1, 0, &e);
		item_free(&it);
		if (!used)
			return true;
	}
	return false;
}

/* the INODE_REF item with the entry at @off renamed to @name */
static int ref_rename(struct repair_ctx *r, struct btrfs_root *root, u64 child, u64 dir,
		      u32 off, const u8 *name, u32 name_len)
{
	struct btrfs_key key = { child, BTRFS_INODE_REF_KEY, dir };
	struct item_copy it;
	const struct btrfs_inode_ref *ref;
	u32 old_len, tail, size;
	u8 *buf;
	int ret;

	ret = item_read(root, &key, &it);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	ref = (const void *)(it.data + off);
	old_len = btrfs_inode_ref_name_len(ref);
	tail = it.size - off - REF_SIZE - old_len;
	size = it.size - old_len + name_len;
	buf = malloc(size);
	if (!buf) {
		item_free(&it);
		return -ENOMEM;
	}
	memcpy(buf, it.data, off + REF_SIZE);
	btrfs_set_inode_ref_name_len((struct btrfs_inode_ref *)(buf + off), (u16)name_len);
	memcpy(buf + off + REF_SIZE, name, name_len);
	memcpy(buf + off + REF_SIZE + name_len, it.data + off + REF_SIZE + old_len, tail);
	ret = item_write(r, root, &key, buf, size);
	free(buf);
	item_free(&it);
	return ret;
}

/* the DIR_INDEX at @key (one entry) with the name @name */
static int index_rename(struct repair_ctx *r, struct btrfs_root *root,
			const struct btrfs_key *key, const struct item_copy *idx,
			const u8 *name, u32 name_len)
{
	u8 *buf = malloc(DI_SIZE + name_len);
	int ret;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, idx->data, DI_SIZE);
	btrfs_set_dir_name_len((struct btrfs_dir_item *)buf, (u16)name_len);
	btrfs_set_dir_data_len((struct btrfs_dir_item *)buf, 0);
	memcpy(buf + DI_SIZE, name, name_len);
	ret = item_write(r, root, key, buf, DI_SIZE + name_len);
	free(buf);
	return ret;
}

/*
 * Rename the link of the entry @e (in the dir item @it of @dir) whose
 * name another entry of the item has: its dir item entry moves to the
 * new name's hash, its dir index and inode ref get the new name.
 */
static int dup_rename(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
		      struct item_copy *it, const struct dir_entry *e)
{
	u8 new_name[BTRFS_NAME_LEN], *moved;
	u32 new_len, name_len = e->name_len;
	u8 name[BTRFS_NAME_LEN];
	struct btrfs_key idx_key = { dir, BTRFS_DIR_INDEX_KEY, 0 };
	struct btrfs_key to = { dir, BTRFS_DIR_ITEM_KEY, 0 };
	struct item_copy idx = { 0 };
	struct dir_entry ie;
	struct ref_name ref;
	char old[BTRFS_NAME_LEN + 1], shown[BTRFS_NAME_LEN + 1];
	s64 delta;
	int ret;

	memcpy(name, e->name, name_len);
	ret = ref_find(root, e->child, dir, (u64)-1, name, name_len, &ref);
	if (ret)
		return ret < 0 ? ret : -EOPNOTSUPP;	/* nothing says which link it is */
	if (ref.extref)
		return -EOPNOTSUPP;
	if (!dup_name(root, dir, name, name_len, e->child, new_name, &new_len))
		return -EEXIST;
	{
		struct btrfs_key rk = { e->child, BTRFS_INODE_REF_KEY, dir };
		struct item_copy rit;
		const struct btrfs_inode_ref *iref;

		ret = item_read(root, &rk, &rit);
		if (ret)
			return ret < 0 ? ret : -ENOENT;
		iref = (const void *)(rit.data + ref.off);
		idx_key.offset = btrfs_inode_ref_index(iref);
		item_free(&rit);
	}
	ret = item_read(root, &idx_key, &idx);
	if (ret < 0)
		return ret;
	if (ret == 0 && !entry_find(&idx, name, name_len, e->child, 0, &ie))
		item_free(&idx);
	to.offset = btrfs_name_hash((const char *)new_name, (int)new_len);
	note_entry(r, REPAIR_OP_DELETE, root->root_key.objectid, &it->key, name, name_len, NULL);
	note_entry(r, REPAIR_OP_INSERT, root->root_key.objectid, &to, new_name, new_len, NULL);
	if (idx.data) {
		note_entry(r, REPAIR_OP_DELETE, root->root_key.objectid, &idx_key, name,
			   name_len, NULL);
		note_entry(r, REPAIR_OP_INSERT, root->root_key.objectid, &idx_key, new_name,
			   new_len, NULL);
	}
	name_str(name, name_len, old, sizeof(old));
	name_str(new_name, new_len, shown, sizeof(shown));
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
		    "root %llu (%llu INODE_REF %llu) index %llu name %s",
		    (unsigned long long)root->root_key.objectid,
		    (unsigned long long)e->child, (unsigned long long)dir,
		    (unsigned long long)idx_key.offset, old);
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu INODE_REF %llu) index %llu name %s",
		    (unsigned long long)root->root_key.objectid,
		    (unsigned long long)e->child, (unsigned long long)dir,
		    (unsigned long long)idx_key.offset, shown);
	delta = ((s64)new_len - (s64)name_len) * (idx.data ? 2 : 1);
	moved = malloc(DI_SIZE + new_len);
	if (!moved) {
		item_free(&idx);
		return -ENOMEM;
	}
	memcpy(moved, it->data + e->off, DI_SIZE);
	btrfs_set_dir_name_len((struct btrfs_dir_item *)moved, (u16)new_len);
	btrfs_set_dir_data_len((struct btrfs_dir_item *)moved, 0);
	memcpy(moved + DI_SIZE, new_name, new_len);
	ret = item_write(r, root, &it->key, it->data, entry_cut(it, e));
	if (!ret)
		ret = entry_append(r, root, &to, moved, DI_SIZE + new_len);
	free(moved);
	if (!ret && idx.data)
		ret = index_rename(r, root, &idx_key, &idx, new_name, new_len);
	item_free(&idx);
	if (!ret)
		ret = ref_rename(r, root, e->child, dir, ref.off, new_name, new_len);
	if (!ret)
		ret = repair_dir_size_add(r, root, dir, delta);
	return ret;
}

/*
 * DIR_ENTRY_DUPLICATE: a dir item holds one name twice.  The first entry
 * keeps the name.  A later one for the same inode is a second copy of
 * the same link and is dropped; one for another inode is a second file:
 * it is renamed (see dup_rename) so both stay reachable.
 */
int repair_names_dir_entry_duplicate(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { p->inode, BTRFS_DIR_ITEM_KEY, 0 };
	struct item_copy it;
	struct dir_entry first, e;
	const u8 *name;
	u32 name_len;
	int ret;

	if (!root)
		return -ENOENT;
	if (!finding_name(p, &name, &name_len))
		return -EINVAL;
	key.offset = btrfs_name_hash((const char *)name, (int)name_len);
	ret = item_read(root, &key, &it);
	if (ret)
		return ret < 0 ? ret : 1;
	if (!entry_find(&it, name, name_len, (u64)-1, 0, &first) ||
	    !entry_find(&it, name, name_len, (u64)-1, first.off + first.len, &e)) {
		item_free(&it);
		return 1;	/* one left: done by an earlier fix */
	}
	if (e.child == first.child) {
		note_entry(r, REPAIR_OP_DELETE, p->root, &key, name, name_len,
			   " (a second copy)");
		ret = item_write(r, root, &key, it.data, entry_cut(&it, &e));
		if (!ret)
			ret = repair_dir_size_add(r, root, p->inode, -(s64)name_len);
	} else {
		ret = dup_rename(r, root, p->inode, &it, &e);
	}
	item_free(&it);
	return ret;
}

/* ---- entries that cannot be followed, types that disagree ---- */

/* what the checker accepts as the target of an entry */
static bool location_valid(const struct btrfs_dir_item *di)
{
	struct btrfs_key loc;

	btrfs_disk_key_to_cpu(&loc, &di->location);
	return (loc.type == BTRFS_INODE_ITEM_KEY || loc.type == BTRFS_ROOT_ITEM_KEY) &&
	       loc.objectid >= BTRFS_FIRST_FREE_OBJECTID &&
	       loc.objectid <= BTRFS_LAST_FREE_OBJECTID;
}

/*
 * The first entry of @dir's items of @type named @name (@name_len 0: an
 * empty name) that @want accepts; its item copied to @it.  1 found, 0
 * not, <0 error.  Dir items are looked up by hash unless the name is
 * empty; dir indexes are all read.
 */
static int scan_dir_entries(struct btrfs_root *root, u64 dir, u8 type, const u8 *name,
			    u32 name_len, bool (*want)(const struct btrfs_dir_item *),
			    struct item_copy *it, struct dir_entry *e)
{
	struct btrfs_key key = { dir, type, 0 };
	struct btrfs_path path;
	int ret;

	memset(it, 0, sizeof(*it));
	if (type == BTRFS_DIR_ITEM_KEY && name_len) {
		u32 from = 0;

		key.offset = btrfs_name_hash((const char *)name, (int)name_len);
		ret = item_read(root, &key, it);
		if (ret)
			return ret < 0 ? ret : 0;
		while (entry_find(it, name, name_len, (u64)-1, from, e)) {
			if (!want || want((const void *)(it->data + e->off)))
				return 1;
			from = e->off + e->len;
		}
		item_free(it);
		return 0;
	}
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		struct item_copy view;
		u32 from = 0;

		btrfs_path_key(&path, &key);
		if (key.objectid != dir || key.type != type) {
			ret = 1;
			break;
		}
		view.key = key;
		view.data = (u8 *)btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
		view.size = btrfs_item_size(path.nodes[0], path.slots[0]);
		while (entry_find(&view, name, name_len, (u64)-1, from, e)) {
			if (!want || want((const void *)(view.data + e->off))) {
				btrfs_release_path(&path);
				ret = item_read(root, &key, it);
				if (ret)
					return ret < 0 ? ret : 0;
				return entry_find(it, name, name_len, (u64)-1, e->off, e);
			}
			from = e->off + e->len;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static bool location_broken(const struct btrfs_dir_item *di)
{
	return !location_valid(di);
}

/*
 * The inode whose ref holds @name in dir @p->inode while no valid entry
 * of the name is left (the INODE_REF_UNMATCHED finding of this pass), 0
 * when there is none; the ref's index to @index.
 */
static u64 unmatched_ref_inode(const struct repair_ctx *r, const struct problem_ctx *p,
			       const u8 *name, u32 name_len, u64 *index)
{
	const struct repair_list *l = r->list;
	size_t i;

	for (i = 0; l && i < l->nr; i++) {
		const struct problem_ctx *q = &l->v[i].pctx;

		if (l->v[i].code == PR_INODE_REF_UNMATCHED && q->root == p->root &&
		    q->found == p->inode && q->name && strlen(q->name) == name_len &&
		    !memcmp(q->name, name, name_len)) {
			*index = q->index;
			return q->inode;
		}
	}
	return 0;
}

/*
 * Both copies of a link lost their location and the inode ref still holds
 * the link: the entry @e of @it points to the ref's inode again.  Deleting
 * both copies and making them again from the ref would commit the
 * directory's size short of the names it holds; mended, the size that
 * counts them stays right.  1 mended, 0 not such an entry, <0 error.
 */
static int location_from_ref(struct repair_ctx *r, struct btrfs_root *root,
			     const struct problem_ctx *p, struct item_copy *it,
			     const struct dir_entry *e)
{
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)(it->data + e->off);
	struct btrfs_key old, loc;
	struct ref_name ref;
	char shown[BTRFS_NAME_LEN + 1], was[96], now[96];
	u64 ino, index;
	int ret;

	ino = unmatched_ref_inode(r, p, e->name, e->name_len, &index);
	if (!ino || (it->key.type == BTRFS_DIR_INDEX_KEY && it->key.offset != index))
		return 0;
	ret = ref_find(root, ino, p->inode, index, e->name, e->name_len, &ref);
	if (ret)
		return ret < 0 ? ret : 0;
	btrfs_disk_key_to_cpu(&old, &di->location);
	loc = (struct btrfs_key){ ino, BTRFS_INODE_ITEM_KEY, 0 };
	name_str(e->name, e->name_len, shown, sizeof(shown));
	check_format_key(&old, was, sizeof(was));
	check_format_key(&loc, now, sizeof(now));
	repair_note(r, REPAIR_OP_CHANGE, false, 0, 0,
		    "root %llu (%llu %s %llu) name %s location: %s -> %s (the inode ref's)",
		    (unsigned long long)p->root, (unsigned long long)it->key.objectid,
		    type_str(it->key.type), (unsigned long long)it->key.offset, shown,
		    was, now);
	btrfs_cpu_key_to_disk(&di->location, &loc);
	ret = item_write(r, root, &it->key, it->data, it->size);
	return ret ? ret : 1;
}

/* does the item at @key hold @name for @ino, with a valid location?  1, 0, <0 */
static int holds_valid_entry(struct btrfs_root *root, const struct btrfs_key *key,
			     const u8 *name, u32 name_len, u64 ino)
{
	struct item_copy it;
	struct dir_entry e;
	int ret = item_read(root, key, &it);

	if (ret)
		return ret < 0 ? ret : 0;
	ret = entry_find(&it, name, name_len, ino, 0, &e) &&
	      location_valid((const void *)(it.data + e.off));
	item_free(&it);
	return ret;
}

int repair_names_link_whole(struct btrfs_root *root, u64 dir, const u8 *name,
			    u32 name_len, u64 index, u64 ino)
{
	int ret = holds_valid_entry(root, &(struct btrfs_key){ dir, BTRFS_DIR_INDEX_KEY, index },
				    name, name_len, ino);

	if (ret <= 0)
		return ret;
	return holds_valid_entry(root, &(struct btrfs_key){ dir, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash((const char *)name, (int)name_len) },
				 name, name_len, ino);
}

/*
 * DIR_ENTRY_INVALID: an entry with an empty name, or one whose location
 * is neither an inode nor a subvolume, leads nowhere a name could: it is
 * deleted (and the directory's size shrinks by its name).  A dir index
 * that is the one damaged copy of a link is mended by the DIR_INDEX_MISSING
 * fix instead; the link's other missing copy is rebuilt from the one left.
 * When both copies lost the location that the inode ref confirms, the
 * location is mended instead (location_from_ref()).
 */
int repair_names_dir_entry_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	const char *d = p->detail ? p->detail : "";
	struct item_copy it;
	struct dir_entry e;
	const u8 *name = (const u8 *)"";
	u32 name_len = 0;
	u8 type;
	int ret;

	if (!root)
		return -ENOENT;
	if (!strcmp(d, "empty name in a dir item")) {
		type = BTRFS_DIR_ITEM_KEY;
		ret = scan_dir_entries(root, p->inode, type, name, 0, NULL, &it, &e);
	} else if (!strcmp(d, "empty name in a dir index")) {
		type = BTRFS_DIR_INDEX_KEY;
		ret = scan_dir_entries(root, p->inode, type, name, 0, NULL, &it, &e);
	} else if (!strncmp(d, "location (", 10)) {
		if (!finding_name(p, &name, &name_len))
			return -EINVAL;
		type = BTRFS_DIR_ITEM_KEY;
		ret = scan_dir_entries(root, p->inode, type, name, name_len,
				       location_broken, &it, &e);
		if (ret == 0) {
			type = BTRFS_DIR_INDEX_KEY;
			ret = scan_dir_entries(root, p->inode, type, name, name_len,
					       location_broken, &it, &e);
		}
	} else {
		return -EOPNOTSUPP;
	}
	if (ret <= 0)
		return ret < 0 ? ret : 1;	/* gone: an earlier fix did it */
	if (name_len) {
		ret = location_from_ref(r, root, p, &it, &e);
		if (ret) {
			item_free(&it);
			return ret < 0 ? ret : 0;
		}
	}
	if (type == BTRFS_DIR_INDEX_KEY) {
		ret = handled_by_index_fix(root, p->inode, it.key.offset, e.name,
					   e.name_len, e.child);
		if (ret) {
			item_free(&it);
			return ret;
		}
	} else if (name_len) {
		/* a good dir index and inode ref: DIR_ITEM_MISSING's copy replaces it */
		struct item_copy idx;
		struct dir_entry ie;
		struct ref_name ref;

		ret = scan_dir_entries(root, p->inode, BTRFS_DIR_INDEX_KEY, name, name_len,
				       location_valid, &idx, &ie);
		if (ret > 0) {
			ret = ref_find(root, ie.child, p->inode, idx.key.offset, name,
				       name_len, &ref);
			item_free(&idx);
			ret = ret < 0 ? ret : !ret;
		}
		if (ret) {
			item_free(&it);
			return ret;
		}
	}
	note_entry(r, REPAIR_OP_DELETE, p->root, &it.key, e.name, e.name_len,
		   e.name_len ? NULL : "(empty)");
	ret = item_write(r, root, &it.key, it.data, entry_cut(&it, &e));
	item_free(&it);
	if (!ret && name_len)
		ret = repair_dir_size_add(r, root, p->inode, -(s64)name_len);
	return ret;
}

/* set the type of the entry @name -> @child in the item at @key */
static int set_entry_type(struct repair_ctx *r, struct btrfs_root *root,
			  const struct btrfs_key *key, const u8 *name, u32 name_len,
			  u64 child, u8 want, int *changed)
{
	struct item_copy it;
	struct btrfs_dir_item *di;
	struct dir_entry e;
	char what[64];
	u8 old;
	int ret;

	ret = item_read(root, key, &it);
	if (ret)
		return ret < 0 ? ret : 0;
	if (!entry_find(&it, name, name_len, child, 0, &e)) {
		item_free(&it);
		return 0;
	}
	di = (struct btrfs_dir_item *)(it.data + e.off);
	old = btrfs_dir_type(di);
	ret = 0;
	if ((old & ~BTRFS_FT_ENCRYPTED) != want) {
		char shown[BTRFS_NAME_LEN + 1];

		name_str(name, name_len, shown, sizeof(shown));
		snprintf(what, sizeof(what), "%s", type_str(key->type));
		repair_note(r, REPAIR_OP_CHANGE, true, old & ~BTRFS_FT_ENCRYPTED, want,
			    "root %llu (%llu %s %llu) name %s type",
			    (unsigned long long)root->root_key.objectid,
			    (unsigned long long)key->objectid, what,
			    (unsigned long long)key->offset, shown);
		(*changed)++;
		btrfs_set_dir_type(di, (u8)((old & BTRFS_FT_ENCRYPTED) | want));
		ret = item_write(r, root, key, it.data, it.size);
	}
	item_free(&it);
	return ret;
}

/*
 * DIR_ENTRY_MISMATCH of the file type: the copy the finding is about (the
 * dir item, the dir index, both for a subvolume) gets the type of the
 * inode's mode (a subvolume: a directory).  Indexes that disagree with
 * the inode ref are not handled here.
 */
int repair_names_dir_entry_mismatch(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	const char *d = p->detail ? p->detail : "";
	struct btrfs_key key = { p->inode, BTRFS_DIR_ITEM_KEY, 0 };
	struct btrfs_inode_item ii;
	struct item_copy it;
	struct dir_entry e;
	struct btrfs_key loc;
	struct ref_name ref;
	const u8 *name;
	u32 name_len;
	int ret, changed = 0;
	bool only_item, subvol;
	u8 want;

	if (!root)
		return -ENOENT;
	if (strncmp(d, "dir item type ", 14) && strncmp(d, "type ", 5) &&
	    strcmp(d, "points to a subvolume but its type is not dir"))
		return -EOPNOTSUPP;	/* an index the inode ref disagrees with */
	if (!finding_name(p, &name, &name_len))
		return -EINVAL;
	/*
	 * One finding per wrong copy: "dir item type X, dir index type Y" is
	 * the dir item's (the index's type is compared with the inode in its
	 * own finding), "type X, but inode N is a Y" the dir index's.
	 */
	only_item = !strncmp(d, "dir item type ", 14);
	subvol = !strncmp(d, "points to", 9);
	/* the target: the dir item's, else the dir index's */
	ret = scan_dir_entries(root, p->inode, BTRFS_DIR_ITEM_KEY, name, name_len,
			       location_valid, &it, &e);
	if (ret == 0)
		ret = scan_dir_entries(root, p->inode, BTRFS_DIR_INDEX_KEY, name, name_len,
				       location_valid, &it, &e);
	if (ret <= 0)
		return ret < 0 ? ret : -ENOENT;
	btrfs_disk_key_to_cpu(&loc, &((const struct btrfs_dir_item *)(it.data + e.off))->location);
	item_free(&it);
	if (loc.type == BTRFS_ROOT_ITEM_KEY) {
		want = BTRFS_FT_DIR;
	} else {
		ret = btrfs_read_inode(root, loc.objectid, &ii);
		if (ret)
			return ret;
		/* entries under a non-directory: INODE_INVALID's fix decides */
		if ((btrfs_inode_mode(&ii) & 0170000) != 0040000) {
			ret = repair_names_has_dir_entries(root, loc.objectid);
			if (ret)
				return ret < 0 ? ret : 1;
		}
		want = btrfs_mode_to_type(btrfs_inode_mode(&ii));
		if (want == BTRFS_FT_UNKNOWN)
			return -EOPNOTSUPP;	/* the mode is the question */
	}
	key.offset = btrfs_name_hash((const char *)name, (int)name_len);
	if (only_item) {
		ret = set_entry_type(r, root, &key, name, name_len, loc.objectid, want,
				     &changed);
		return ret ? ret : changed ? 0 : 1;
	}
	/* the dir index: by the inode ref's index, else by reading them all */
	if (loc.type == BTRFS_INODE_ITEM_KEY &&
	    !ref_find(root, loc.objectid, p->inode, (u64)-1, name, name_len, &ref)) {
		struct item_copy rit;

		ret = item_read(root, &(struct btrfs_key){ loc.objectid, ref.extref ?
				BTRFS_INODE_EXTREF_KEY : BTRFS_INODE_REF_KEY, p->inode }, &rit);
		if (ret < 0)
			return ret;
		key.offset = 0;
		if (!ret && !ref.extref)
			key.offset = btrfs_inode_ref_index((const void *)(rit.data + ref.off));
		item_free(&rit);
	} else {
		key.offset = 0;
	}
	if (!key.offset) {
		ret = scan_dir_entries(root, p->inode, BTRFS_DIR_INDEX_KEY, name, name_len,
				       location_valid, &it, &e);
		if (ret < 0)
			return ret;
		if (ret)
			key.offset = it.key.offset;
		item_free(&it);
	}
	if (key.offset) {
		key.type = BTRFS_DIR_INDEX_KEY;
		ret = set_entry_type(r, root, &key, name, name_len, loc.objectid, want,
				     &changed);
		if (ret)
			return ret;
	}
	/* the entry's type is the dir item's when it has no index, and a
	 * subvolume's entry has one finding for both copies */
	if (!key.offset || subvol) {
		key = (struct btrfs_key){ p->inode, BTRFS_DIR_ITEM_KEY,
					  btrfs_name_hash((const char *)name, (int)name_len) };
		ret = set_entry_type(r, root, &key, name, name_len, loc.objectid, want,
				     &changed);
		if (ret)
			return ret;
	}
	return changed ? 0 : 1;
}

/*
 * For the inode ref actions: an entry with no inode ref (INODE_REF_MISSING:
 * dir p->inode, name, index p->index, inode p->found) that is the damaged
 * copy of another link — a dir index mended by DIR_INDEX_MISSING, a dir
 * item entry under a wrong hash renamed or moved by DIR_ITEM_HASH — or
 * that such a fix already replaced, needs no inode ref.
 */
int repair_names_entry_is_damaged_copy(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	const u8 *name;
	u32 name_len;
	int ret;

	if (!root)
		return -ENOENT;
	if (!finding_name(p, &name, &name_len))
		return 0;
	if (!p->index) {
		ret = misplaced_in_dir(root, p->inode, name, name_len);
		if (ret)
			return ret;
		/* not under its own hash either: renamed or moved before */
		ret = dir_item_has(root, p->inode, name, name_len, p->found);
		return ret < 0 ? ret : !ret;
	}
	ret = handled_by_index_fix(root, p->inode, p->index, name, name_len, p->found);
	if (ret)
		return ret;
	/* gone from the dir index and from the dir items: mended before */
	{
		struct item_copy idx;
		struct dir_entry e;
		bool there;

		ret = item_read(root, &(struct btrfs_key){ p->inode, BTRFS_DIR_INDEX_KEY,
				p->index }, &idx);
		if (ret < 0)
			return ret;
		there = !ret && entry_find(&idx, name, name_len, p->found, 0, &e);
		item_free(&idx);
		if (there)
			return 0;
	}
	ret = dir_item_has(root, p->inode, name, name_len, p->found);
	return ret < 0 ? ret : !ret;
}

/* ---- an inode with entries that is not a directory ---- */

/* does @ino hold dir items or dir indexes?  1 yes, 0 no, <0 error */
int repair_names_has_dir_entries(struct btrfs_root *root, u64 ino)
{
	struct btrfs_key key = { ino, BTRFS_DIR_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	if (ret == 0) {
		btrfs_path_key(&path, &key);
		ret = key.objectid == ino &&
		      (key.type == BTRFS_DIR_ITEM_KEY || key.type == BTRFS_DIR_INDEX_KEY);
	} else if (ret > 0) {
		ret = 0;
	}
	btrfs_release_path(&path);
	return ret;
}

/* does @ino have an item of @type?  1 yes, 0 no, <0 error */
static int has_item_type(struct btrfs_root *root, u64 ino, u8 type)
{
	struct btrfs_key key = { ino, type, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	if (ret == 0) {
		btrfs_path_key(&path, &key);
		ret = key.objectid == ino && key.type == type;
	} else if (ret > 0) {
		ret = 0;
	}
	btrfs_release_path(&path);
	return ret;
}

/* the file type the dir index of @ino's first name gives it (0: none) */
static int type_by_first_name(struct btrfs_root *root, u64 ino, u8 *type)
{
	struct btrfs_key key = { ino, BTRFS_INODE_REF_KEY, 0 };
	struct btrfs_path path;
	struct item_copy idx;
	struct dir_entry e;
	u64 parent, index;
	int ret;

	*type = 0;
	ret = btrfs_search_first(root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 0;
	}
	btrfs_path_key(&path, &key);
	if (key.objectid != ino || key.type != BTRFS_INODE_REF_KEY ||
	    btrfs_item_size(path.nodes[0], path.slots[0]) < REF_SIZE) {
		btrfs_release_path(&path);
		return 0;
	}
	parent = key.offset;
	index = btrfs_inode_ref_index(btrfs_item_ptr(path.nodes[0], path.slots[0],
						     struct btrfs_inode_ref));
	btrfs_release_path(&path);
	ret = item_read(root, &(struct btrfs_key){ parent, BTRFS_DIR_INDEX_KEY, index }, &idx);
	if (ret)
		return ret < 0 ? ret : 0;
	if (entry_find(&idx, NULL, 0, ino, 0, &e))
		*type = btrfs_dir_type((const void *)(idx.data + e.off)) & ~BTRFS_FT_ENCRYPTED;
	item_free(&idx);
	return 0;
}

/*
 * INODE_INVALID "has dir entries but is not a directory" (and the tree's
 * root directory with another mode): when the inode has no file extent
 * and the dir index of its first name calls it a directory (the root
 * directory needs no name), its mode's file type is what broke: it
 * becomes a directory, permission bits kept.  Otherwise which is wrong
 * (the mode or the entries) is not known and nothing is changed.
 */
int repair_names_inode_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	const char *d = p->detail ? p->detail : "";
	struct btrfs_inode_item ii;
	bool root_dir = !strcmp(d, "the tree's root directory is not a directory");
	u32 mode, want;
	u8 type;
	int ret;

	if (!root)
		return -ENOENT;
	if (!root_dir && strcmp(d, "has dir entries but is not a directory"))
		return -EOPNOTSUPP;
	ret = btrfs_read_inode(root, p->inode, &ii);
	if (ret)
		return ret;
	mode = btrfs_inode_mode(&ii);
	if ((mode & 0170000) == 0040000)
		return 1;
	ret = has_item_type(root, p->inode, BTRFS_EXTENT_DATA_KEY);
	if (ret)
		return ret < 0 ? ret : -EOPNOTSUPP;	/* data: a file after all? */
	if (!root_dir) {
		ret = type_by_first_name(root, p->inode, &type);
		if (ret)
			return ret;
		if (type != BTRFS_FT_DIR)
			return -EOPNOTSUPP;
	}
	want = 0040000 | (mode & 07777);
	repair_note(r, REPAIR_OP_CHANGE, true, mode, want, "root %llu (%llu INODE_ITEM 0) mode",
		    (unsigned long long)p->root, (unsigned long long)p->inode);
	btrfs_set_inode_mode(&ii, want);
	return btrfs_update_inode(r->trans, root, p->inode, &ii);
}
