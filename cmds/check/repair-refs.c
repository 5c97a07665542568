// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions for the inode ref side of a name (phase 7).  A name is
 * three entries: the directory's DIR_ITEM and DIR_INDEX and the inode's
 * INODE_REF (or INODE_EXTREF).  The rules:
 *  - a dir entry without its inode ref (INODE_REF_MISSING): the ref is
 *    made from the entry (the entry is what readdir shows);
 *  - an inode ref without dir entries (INODE_REF_UNMATCHED): the entries
 *    are made from the ref when its directory exists; when the directory
 *    is gone the ref goes, and an inode left without a name goes to
 *    lost+found;
 *  - an inode ref that cannot be a name (INODE_REF_INVALID) goes; the
 *    next check sees what the inode's dir entries still say; an extref
 *    under the wrong key moves to its key;
 *  - an inode whose names are all gone (INODE_NLINK "have N expect 0",
 *    DIR_REFS 0) goes to lost+found; a directory with more than one name
 *    (DIR_REFS) keeps one, the oldest that leads to the top, and loses
 *    the others (the directory and what it holds stay);
 *  - a directory's link count is 1 (DIR_NLINK).
 * A damaged name (the same index, another name in the ref) is written
 * again from the dir entries when the dir item and dir index agree (two
 * copies against one); otherwise it is left to the dir entry actions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-refs.h"
#include "repair-inode.h"
#include "repair-lost-found.h"
#include "repair-names.h"
#include "lib/array.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/tree-checker.h"

/* steps up the tree before a parent chain counts as a loop */
#define REFS_MAX_DEPTH		4096

/*
 * A name the checker printed as it is, not "(name hash ...)"; the
 * actions then find it byte for byte in the items before using it.
 */
static bool usable_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n && n <= BTRFS_NAME_LEN && strncmp(name, "(name hash ", 11);
}

static bool is_dir_mode(const struct btrfs_inode_item *ii)
{
	return (btrfs_inode_mode(ii) & 0170000) == 0040000;
}

static u64 tree_top(struct btrfs_root *root)
{
	u64 top = root->has_root_item ? btrfs_root_dirid(&root->root_item) : 0;

	return top ? top : BTRFS_FIRST_FREE_OBJECTID;
}

/* one name of an inode, copied out of its ref item */
struct ref_name {
	u64 parent;
	u64 index;
	u8 key_type;		/* INODE_REF or INODE_EXTREF */
	u64 key_offset;		/* of the item holding it */
	u16 len;
	char name[BTRFS_NAME_LEN + 1];
};

/* called for each name; nonzero stops the walk (and is returned, > 0) */
typedef int (*name_fn)(const struct ref_name *n, void *data);

struct name_walk {
	name_fn fn;
	void *data;
};

static int walk_name(const struct btrfs_key *key, const struct btrfs_name_entry *e,
		     void *data)
{
	struct name_walk *w = data;
	struct ref_name n;

	if (!e->name_len || e->name_len > BTRFS_NAME_LEN)
		return 0;
	n.parent = e->parent;
	n.index = e->index;
	n.key_type = key->type;
	n.key_offset = key->offset;
	n.len = (u16)e->name_len;
	memcpy(n.name, e->name, e->name_len);
	n.name[e->name_len] = 0;
	return w->fn(&n, w->data);
}

/*
 * Every name of @ino, in key order.  Entries with an impossible length
 * are skipped (INODE_REF_INVALID's).  0 all seen, > 0 what @fn stopped
 * with, < 0 error.
 */
static int walk_names(struct btrfs_root *root, u64 ino, name_fn fn, void *data)
{
	struct name_walk w = { fn, data };

	return btrfs_for_each_name(root, ino, BTRFS_INODE_REF_KEY, BTRFS_INODE_EXTREF_KEY,
				   walk_name, &w);
}

struct name_list {
	struct ref_name *v;
	size_t nr;
	size_t alloc;
};

static int collect_name(const struct ref_name *n, void *data)
{
	struct name_list *l = data;

	if (ARRAY_RESERVE(l->v, l->alloc, l->nr + 1, 16))
		return -ENOMEM;
	l->v[l->nr++] = *n;
	return 0;
}

/* every name of @ino (as many as its ref items hold); free l->v after */
static int list_names(struct btrfs_root *root, u64 ino, struct name_list *l)
{
	int ret = walk_names(root, ino, collect_name, l);

	return ret < 0 ? ret : 0;
}

/* the key of the ref item holding @n for inode @ino */
static struct btrfs_key ref_key(u64 ino, const struct ref_name *n)
{
	return (struct btrfs_key){ ino, n->key_type, n->key_offset };
}

static const char *key_type_name(u8 type)
{
	switch (type) {
	case BTRFS_INODE_REF_KEY:
		return "INODE_REF";
	case BTRFS_INODE_EXTREF_KEY:
		return "INODE_EXTREF";
	case BTRFS_DIR_ITEM_KEY:
		return "DIR_ITEM";
	case BTRFS_DIR_INDEX_KEY:
		return "DIR_INDEX";
	}
	return "?";
}

/* delete the entry @name (pointing at / of @match) of the item at @key */
static int drop_entry(struct repair_ctx *r, struct btrfs_root *root,
		      const struct btrfs_key *key, const char *name, u64 match,
		      bool *dropped)
{
	u32 off, len;
	int ret;

	*dropped = false;
	ret = repair_find_entry(root, key, name, strlen(name), match, &off, &len);
	if (ret)
		return ret < 0 ? ret : 0;
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "root %llu (%llu %s %llu) name %s",
		    (unsigned long long)root->root_key.objectid,
		    (unsigned long long)key->objectid, key_type_name(key->type),
		    (unsigned long long)key->offset, name);
	*dropped = true;
	return repair_cut_entry(r, root, key, off, len);
}

/* the ref entry @n of @ino goes */
static int drop_ref(struct repair_ctx *r, struct btrfs_root *root, u64 ino,
		    const struct ref_name *n)
{
	struct btrfs_key key = ref_key(ino, n);
	bool dropped;
	int ret;

	ret = drop_entry(r, root, &key, n->name, n->parent, &dropped);
	if (!ret && !dropped)
		ret = -ENOENT;
	return ret;
}

/* a whole name @n of @ino: its dir item, dir index and ref */
static int drop_name(struct repair_ctx *r, struct btrfs_root *root, u64 ino,
		     const struct ref_name *n)
{
	struct btrfs_key item = { n->parent, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(n->name, n->len) };
	struct btrfs_key index = { n->parent, BTRFS_DIR_INDEX_KEY, n->index };
	bool a = false, b = false;
	int ret;

	ret = drop_entry(r, root, &item, n->name, ino, &a);
	if (!ret)
		ret = drop_entry(r, root, &index, n->name, ino, &b);
	if (!ret)
		ret = drop_ref(r, root, ino, n);
	if (!ret && (a || b))
		ret = repair_dir_size_add(r, root, n->parent, -(s64)n->len * ((int)a + (int)b));
	return ret;
}

/* a DIR_INDEX entry alone, pointing at @ino (its DIR_ITEM is there) */
static int insert_dir_index(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			    u64 index, u64 ino, u8 type, const char *name)
{
	u8 buf[sizeof(struct btrfs_dir_item) + BTRFS_NAME_LEN];
	struct btrfs_dir_item *di = (void *)buf;
	struct btrfs_key key = { dir, BTRFS_DIR_INDEX_KEY, index };
	struct btrfs_key loc = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	size_t len = strlen(name);

	memset(buf, 0, sizeof(*di));
	btrfs_cpu_key_to_disk(&di->location, &loc);
	btrfs_set_dir_transid(di, r->trans->transid);
	btrfs_set_dir_name_len(di, (u16)len);
	btrfs_set_dir_type(di, type);
	memcpy(di + 1, name, len);
	return btrfs_insert_item(r->trans, root, &key, buf, (u32)(sizeof(*di) + len));
}

/* is there a DIR_INDEX (@dir, @index)? 1 yes, 0 no, <0 error */
static int index_taken(struct btrfs_root *root, u64 dir, u64 index)
{
	struct btrfs_key key = { dir, BTRFS_DIR_INDEX_KEY, index };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	return ret < 0 ? ret : !ret;
}

struct name_at {
	u64 dir;
	u64 index;
	const char *name;	/* NULL: any name */
	struct ref_name *out;
};

static int match_name(const struct ref_name *n, void *data)
{
	struct name_at *a = data;

	if (n->parent != a->dir)
		return 0;
	if (a->name ? strcmp(n->name, a->name) : n->index != a->index)
		return 0;
	if (a->out)
		*a->out = *n;
	return 1;
}

/* does @ino have a name in @dir at @index (another spelling of one)? */
static int has_ref_at(struct btrfs_root *root, u64 ino, u64 dir, u64 index,
		      struct ref_name *out)
{
	struct name_at a = { dir, index, NULL, out };

	return walk_names(root, ino, match_name, &a);
}

/*
 * Is the item at @key damaged (phase 3 reports it)?  A name is not added
 * to it: the item is not the name's to fix.  1 damaged, 0 fine or absent.
 */
static int item_damaged(struct repair_ctx *r, struct btrfs_root *root,
			const struct btrfs_key *key)
{
	struct tree_check_error err;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret == 0)
		ret = btrfs_check_item(r->fs_info, path.nodes[0], path.slots[0], &err) ? 1 : 0;
	else if (ret > 0)
		ret = 0;
	btrfs_release_path(&path);
	return ret;
}

/*
 * The ref of @p->found at @p->index in dir @p->inode has another name
 * (@bad) than the dir entry.  When the dir item and the dir index agree
 * on the entry's name (@both) and @bad is no entry of the directory, the
 * two copies outvote the one: the ref entry is written again with the
 * entry's name.  Else it is left to the dir entry actions.
 */
static int replace_damaged_ref(struct repair_ctx *r, struct btrfs_root *root,
			       const struct problem_ctx *p, const struct ref_name *bad,
			       bool both)
{
	u64 ino = p->found, dir = p->inode;
	struct btrfs_key key = ref_key(ino, bad), loc;
	u32 off, len;
	u8 type;
	int ret;

	if (!both)
		return -EOPNOTSUPP;
	ret = repair_lookup_name(root, dir, bad->name, bad->len, &loc, &type);
	if (ret <= 0)
		return ret < 0 ? ret : -EOPNOTSUPP;	/* a name of the dir too */
	ret = repair_find_entry(root, &key, bad->name, bad->len, dir, &off, &len);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "root %llu (%llu %s %llu) name %s",
		    (unsigned long long)p->root, (unsigned long long)ino,
		    key_type_name(key.type), (unsigned long long)key.offset, bad->name);
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu INODE_REF %llu) index %llu name %s",
		    (unsigned long long)p->root, (unsigned long long)ino,
		    (unsigned long long)dir, (unsigned long long)p->index, p->name);
	ret = repair_cut_entry(r, root, &key, off, len);
	if (ret)
		return ret;
	return btrfs_insert_inode_ref(r->trans, root, p->name, (int)strlen(p->name), ino, dir,
				      p->index);
}

/*
 * INODE_REF_MISSING: dir @p->inode has entry @p->name for inode
 * @p->found, which has no ref for it: the ref is made from the entry
 * (and the DIR_INDEX, if the entry has only its DIR_ITEM).
 */
int repair_inode_ref_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	u64 dir = p->inode, ino = p->found, index = p->index, names;
	struct btrfs_inode_item ii;
	struct ref_name bad;
	bool has_index = false;
	int lookup;
	struct btrfs_key loc;
	size_t len;
	u32 off, elen;
	u8 type;
	int ret;

	if (!root)
		return -ENOENT;
	if (!usable_name(p->name))
		return -EINVAL;
	/* the damaged copy of another link: the names actions mend it */
	ret = repair_names_entry_is_damaged_copy(r, p);
	if (ret)
		return ret < 0 ? ret : 1;
	len = strlen(p->name);
	ret = btrfs_read_inode(root, ino, &ii);
	if (ret)
		return ret;
	if (index) {
		struct btrfs_key key = { dir, BTRFS_DIR_INDEX_KEY, index };

		ret = repair_find_entry(root, &key, p->name, len, ino, &off, &elen);
		if (ret < 0)
			return ret;
		has_index = !ret;
	}
	ret = repair_lookup_name(root, dir, p->name, len, &loc, &type);
	if (ret < 0)
		return ret;
	if (ret == 0 && loc.objectid != ino)
		return -EEXIST;		/* the name is another inode's */
	if (ret && !has_index)
		return -ENOENT;
	lookup = ret;
	if (has_index) {
		/* an inode ref at that index with another name: a damaged name */
		ret = has_ref_at(root, ino, dir, index, &bad);
		if (ret < 0)
			return ret;
		if (ret)
			return replace_damaged_ref(r, root, p, &bad, lookup == 0);
	}
	ret = item_damaged(r, root, &(struct btrfs_key){ ino, BTRFS_INODE_REF_KEY, dir });
	if (ret)
		return ret < 0 ? ret : -EUCLEAN;	/* its ref item is damaged */
	ret = repair_count_names(root, ino, &names, NULL, NULL);
	if (ret)
		return ret;
	if (is_dir_mode(&ii) && names)
		return -EEXIST;		/* a directory has one name */
	if (!has_index) {
		ret = btrfs_next_dir_index(root, dir, &index);
		if (ret)
			return ret;
		repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
			    "root %llu (%llu DIR_INDEX %llu) name %s -> inode %llu",
			    (unsigned long long)p->root, (unsigned long long)dir,
			    (unsigned long long)index, p->name, (unsigned long long)ino);
		/* the size: DIR_ISIZE recounts it */
		ret = insert_dir_index(r, root, dir, index, ino, type, p->name);
		if (ret)
			return ret;
	}
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0, "root %llu (%llu INODE_REF %llu) index %llu name %s",
		    (unsigned long long)p->root, (unsigned long long)ino,
		    (unsigned long long)dir, (unsigned long long)index, p->name);
	ret = btrfs_insert_inode_ref(r->trans, root, p->name, (int)len, ino, dir, index);
	return has_index ? ret : repair_fail_after_change(r, ret);
}

/* the ref entry of @ino named @name in @parent, copied */
static int find_ref(struct btrfs_root *root, u64 ino, u64 parent, const char *name,
		    struct ref_name *out)
{
	struct name_at a = { parent, 0, name, out };
	int ret = walk_names(root, ino, match_name, &a);

	return ret < 0 ? ret : ret ? 0 : -ENOENT;
}

/*
 * INODE_REF_UNMATCHED: inode @p->inode has a ref @p->name (index
 * @p->index) in dir @p->found, and the dir has neither entry.  The dir
 * entries come back from the ref when the directory exists; else the
 * ref goes and a nameless inode goes to lost+found.
 */
int repair_inode_ref_unmatched(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	u64 ino = p->inode, dir = p->found, names;
	struct btrfs_inode_item ii, di;
	struct ref_name n;
	struct btrfs_key loc;
	u8 type;
	int ret;

	if (!root)
		return -ENOENT;
	if (!usable_name(p->name))
		return -EINVAL;
	ret = btrfs_read_inode(root, ino, &ii);
	if (ret)
		return ret;
	ret = find_ref(root, ino, dir, p->name, &n);
	if (ret == -ENOENT)
		return 1;	/* replaced by an earlier fix */
	if (ret)
		return ret;
	ret = btrfs_read_inode(root, dir, &di);
	if (ret && ret != -ENOENT)
		return ret;
	if (!ret && is_dir_mode(&di)) {
		type = btrfs_mode_to_type(btrfs_inode_mode(&ii));
		if (type == BTRFS_FT_UNKNOWN)
			return -EINVAL;
		ret = repair_names_link_whole(root, dir, (const u8 *)n.name, n.len, n.index, ino);
		if (ret)
			return ret;	/* 1: an earlier fix mended the entries */
		ret = index_taken(root, dir, n.index);
		if (ret)
			return ret < 0 ? ret : -EEXIST;	/* another name holds it */
		ret = repair_lookup_name(root, dir, n.name, n.len, &loc, &type);
		if (ret <= 0)
			return ret < 0 ? ret : -EEXIST;	/* the name is taken there */
		ret = item_damaged(r, root, &(struct btrfs_key){ dir, BTRFS_DIR_ITEM_KEY,
					btrfs_name_hash(n.name, n.len) });
		if (ret)
			return ret < 0 ? ret : -EUCLEAN;	/* its dir item is damaged */
		type = btrfs_mode_to_type(btrfs_inode_mode(&ii));
		repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
			    "root %llu (%llu DIR_ITEM %llu) name %s -> inode %llu",
			    (unsigned long long)p->root, (unsigned long long)dir,
			    (unsigned long long)btrfs_name_hash(n.name, n.len), n.name,
			    (unsigned long long)ino);
		repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
			    "root %llu (%llu DIR_INDEX %llu) name %s -> inode %llu",
			    (unsigned long long)p->root, (unsigned long long)dir,
			    (unsigned long long)n.index, n.name, (unsigned long long)ino);
		/* the size: DIR_ISIZE recounts it */
		return btrfs_insert_dir_item(r->trans, root, n.name, n.len, dir,
					     &(struct btrfs_key){ ino, BTRFS_INODE_ITEM_KEY, 0 },
					     type, n.index);
	}
	/* no directory to hold the name */
	ret = drop_ref(r, root, ino, &n);
	if (ret)
		return ret;
	ret = repair_count_names(root, ino, &names, NULL, NULL);
	if (ret)
		return ret;
	if (names)
		return 0;
	return repair_link_to_lost_found(r, p->root, ino);
}

/*
 * DIR_INDEX_MISSING of an entry that has no inode ref either (index 0 in
 * the finding): INODE_REF_MISSING, which runs before, gave the name a new
 * index with its ref.  Else the rebuild from the dir item (repair-dir.c).
 */
int repair_dir_index_missing_ref(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct problem_ctx q = *p;
	struct btrfs_key loc;
	struct ref_name n;
	u32 off, len;
	u8 type;
	int ret;

	if (p->index || !root || !usable_name(p->name))
		return repair_names_dir_index_missing(r, p);
	ret = repair_lookup_name(root, p->inode, p->name, strlen(p->name), &loc, &type);
	if (ret)	/* > 0: the name went with an earlier fix (DIR_ITEM_HASH) */
		return ret < 0 ? ret : 1;
	ret = find_ref(root, loc.objectid, p->inode, p->name, &n);
	if (ret)
		return ret == -ENOENT ? -ENODATA : ret;
	{
		struct btrfs_key key = { p->inode, BTRFS_DIR_INDEX_KEY, n.index };

		ret = repair_find_entry(root, &key, n.name, n.len, loc.objectid, &off, &len);
		if (ret <= 0)
			return ret < 0 ? ret : 1;	/* made with the ref */
	}
	q.index = n.index;
	return repair_names_dir_index_missing(r, &q);
}

/* where in its item the entry a search found lies */
struct entry_at {
	u64 parent;
	u64 index;
	bool self;
	u32 off;
	u32 len;
	char name[BTRFS_NAME_LEN + 1];
	u32 name_len;
};

static int bad_ref_at(const struct btrfs_key *key, const struct btrfs_name_entry *e,
		      void *data)
{
	struct entry_at *a = data;

	(void)key;
	if (e->index != a->index || (!a->self && e->name_len && e->name_len <= BTRFS_NAME_LEN))
		return 0;
	a->off = e->off;
	a->len = e->len;
	return 1;
}

/* the ref entry of @ino in @parent at @index whose name cannot be one */
static int find_bad_ref(struct btrfs_root *root, u64 ino, u64 parent, u64 index,
			bool self, struct btrfs_key *key, u32 *off, u32 *len)
{
	struct entry_at a = { .index = index, .self = self };
	int ret;

	*key = (struct btrfs_key){ ino, BTRFS_INODE_REF_KEY, parent };
	ret = btrfs_item_for_each_name(root, key, bad_ref_at, &a);
	if (ret <= 0)
		return ret ? ret : -ENOENT;
	*off = a.off;
	*len = a.len;
	return 0;
}

/* an extref entry of @a->parent and @a->index with a name that can be one */
static int extref_at(const struct btrfs_key *key, const struct btrfs_name_entry *e,
		     void *data)
{
	struct entry_at *a = data;

	(void)key;
	if (e->parent != a->parent || e->index != a->index || !e->name_len ||
	    e->name_len > BTRFS_NAME_LEN)
		return 0;
	memcpy(a->name, e->name, e->name_len);
	a->name[e->name_len] = 0;
	a->name_len = e->name_len;
	a->off = e->off;
	a->len = e->len;
	return 1;
}

/*
 * An extref under a key offset that is not the hash of its directory and
 * name: when the directory has that name for the inode, the key is what
 * is wrong and the entry moves (as an inode ref, or an extref under the
 * right key when the ref item is full); else the name is damaged, which
 * the dir entry actions judge.
 */
static int move_extref(struct repair_ctx *r, struct btrfs_root *root,
		       const struct problem_ctx *p)
{
	struct entry_at a = { .parent = p->found, .index = p->index };
	unsigned long long off_found, off_want;
	struct btrfs_key key, loc;
	u8 type;
	int ret;

	if (sscanf(p->detail, "extref key offset %llu is not the hash %llu",
		   &off_found, &off_want) != 2)
		return -EOPNOTSUPP;
	key = (struct btrfs_key){ p->inode, BTRFS_INODE_EXTREF_KEY, off_found };
	ret = btrfs_item_for_each_name(root, &key, extref_at, &a);
	if (ret <= 0)
		return ret && ret != -ENOENT ? ret : 1;	/* gone with an earlier fix */
	if (btrfs_extref_hash(p->found, a.name, (int)a.name_len) == off_found)
		return 1;	/* an earlier fix filed the right name there */
	ret = repair_lookup_name(root, p->found, a.name, a.name_len, &loc, &type);
	if (ret < 0)
		return ret;
	if (ret || loc.objectid != p->inode)
		return -EOPNOTSUPP;	/* the name is damaged, not the key */
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
		    "root %llu (%llu INODE_EXTREF %llu) name %s", (unsigned long long)p->root,
		    (unsigned long long)p->inode, off_found, a.name);
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu inode ref of %llu in %llu index %llu name %s",
		    (unsigned long long)p->root, (unsigned long long)p->inode,
		    (unsigned long long)p->found, (unsigned long long)p->index, a.name);
	ret = repair_cut_entry(r, root, &key, a.off, a.len);
	if (ret)
		return ret;
	return repair_fail_after_change(r, btrfs_insert_inode_ref(r->trans, root, a.name,
								   (int)a.name_len, p->inode,
								   p->found, p->index));
}

/*
 * INODE_REF_INVALID: a ref with no name, a name too long, or naming the
 * inode as its own directory goes (a dir entry that still names the
 * inode gets a ref again from INODE_REF_MISSING; without any, the inode
 * goes to lost+found by INODE_NLINK); an extref under the wrong key
 * moves to the key its directory and name hash to.
 */
int repair_inode_ref_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	const char *d = p->detail ? p->detail : "";
	struct btrfs_key key;
	u32 off, len;
	int ret;

	if (!root)
		return -ENOENT;
	if (!strncmp(d, "extref key offset", 17))
		return move_extref(r, root, p);
	if (strcmp(d, "empty name") && strcmp(d, "name too long") &&
	    strcmp(d, "the inode names itself as its directory"))
		return -EOPNOTSUPP;
	ret = find_bad_ref(root, p->inode, p->found, p->index, p->found == p->inode,
			   &key, &off, &len);
	if (ret)
		return ret;
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
		    "root %llu (%llu INODE_REF %llu) entry of index %llu (%s)",
		    (unsigned long long)p->root, (unsigned long long)p->inode,
		    (unsigned long long)p->found, (unsigned long long)p->index, d);
	return repair_cut_entry(r, root, &key, off, len);
}

/*
 * INODE_NLINK: an inode without any name left ("expect 0") goes to
 * lost+found; otherwise the link count is recounted (repair-inode.c).
 */
int repair_inode_nlink_or_lost(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	u64 names;
	int ret;

	if (!root)
		return -ENOENT;
	ret = repair_count_names(root, p->inode, &names, NULL, NULL);
	if (ret)
		return ret;
	if (!names)
		return repair_link_to_lost_found(r, p->root, p->inode);
	return repair_inode_nlink(r, p);
}

/* does the chain of first names from @dir reach the top without @ino? */
static bool leads_to_top(struct btrfs_root *root, u64 dir, u64 ino)
{
	u64 top = tree_top(root), cur = dir;
	int depth;

	for (depth = 0; depth < REFS_MAX_DEPTH; depth++) {
		u64 count, parent = 0, index;

		if (cur == top)
			return true;
		if (cur == ino)
			return false;
		if (repair_count_names(root, cur, &count, &parent, &index) || !count)
			return false;
		cur = parent;
	}
	return false;
}

/* the transid of @n's DIR_INDEX entry, (u64)-1 without one */
static u64 entry_transid(struct btrfs_root *root, u64 ino, const struct ref_name *n)
{
	struct btrfs_key key = { n->parent, BTRFS_DIR_INDEX_KEY, n->index };
	struct btrfs_path path;
	u64 transid = (u64)-1;
	u32 off, len;

	if (repair_find_entry(root, &key, n->name, n->len, ino, &off, &len))
		return transid;
	btrfs_init_path(&path);
	if (btrfs_search_slot(NULL, root, &key, &path, 0, 0) == 0) {
		const struct btrfs_dir_item *di =
			btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_dir_item);

		transid = btrfs_dir_transid(di);
	}
	btrfs_release_path(&path);
	return transid;
}

/*
 * DIR_REFS: a directory without a name goes to lost+found; one with
 * several keeps the name that leads to the top and was made first (its
 * dir index has the lowest transid), the others go (all of them, and the
 * directory to lost+found, when none leads to the top).
 */
int repair_dir_refs(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct name_list l = { 0 };
	struct ref_name *names;
	size_t nr, i, keep;
	u64 best = 0;
	int ret;

	if (!root)
		return -ENOENT;
	ret = list_names(root, p->inode, &l);
	names = l.v;
	nr = l.nr;
	keep = nr;	/* none yet */
	if (ret)
		goto out;
	if (nr == 0) {
		ret = repair_link_to_lost_found(r, p->root, p->inode);
		goto out;
	}
	if (nr == 1) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		u64 t;

		if (!leads_to_top(root, names[i].parent, p->inode))
			continue;
		t = entry_transid(root, p->inode, &names[i]);
		if (keep == nr || t < best) {
			keep = i;
			best = t;
		}
	}
	/*
	 * No name leads to the top (the directory sits in a loop of
	 * directories): all go, and the directory with what it holds goes to
	 * lost+found.
	 */
	for (i = 0; i < nr && !ret; i++) {
		if (i != keep)
			ret = drop_name(r, root, p->inode, &names[i]);
	}
	if (!ret && keep == nr)
		ret = repair_link_to_lost_found(r, p->root, p->inode);
out:
	free(names);
	return ret;
}

/* DIR_NLINK: a directory's link count is 1, whatever its names */
int repair_dir_nlink(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_inode_item ii;
	int ret;

	if (!root)
		return -ENOENT;
	ret = btrfs_read_inode(root, p->inode, &ii);
	if (ret)
		return ret;
	if (!is_dir_mode(&ii))
		return -ENOTDIR;
	if (btrfs_inode_nlink(&ii) == 1)
		return 1;
	repair_note(r, REPAIR_OP_CHANGE, true, btrfs_inode_nlink(&ii), 1,
		    "root %llu (%llu INODE_ITEM 0) nlink", (unsigned long long)p->root,
		    (unsigned long long)p->inode);
	btrfs_set_inode_nlink(&ii, 1);
	return btrfs_update_inode(r->trans, root, p->inode, &ii);
}
