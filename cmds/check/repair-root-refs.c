// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of the root refs (phase 4): ROOT_REF_MISSING and
 * ROOT_REF_MISMATCH.
 *
 * A subvolume below another has a pair in the root tree: ROOT_REF
 * (parent, child) and ROOT_BACKREF (child, parent), both holding the
 * directory, the dir index sequence and the name of the entry that links
 * the subvolume in its parent.  That entry (the DIR_INDEX item of the
 * parent's tree, pointing at the child's ROOT_ITEM) is the witness: a
 * half is made again, or corrected, only from contents the entry
 * confirms.  A pair the entry does not confirm is left alone.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "repair-chunks.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/transaction.h"

/* what a root ref holds, and the key of the pair's two halves */
struct ref_link {
	u64 parent;
	u64 child;
	u64 dirid;
	u64 sequence;
	u16 name_len;
	char name[BTRFS_NAME_LEN];
};

static void ref_key(const struct ref_link *l, bool backref, struct btrfs_key *key)
{
	key->objectid = backref ? l->child : l->parent;
	key->type = backref ? BTRFS_ROOT_BACKREF_KEY : BTRFS_ROOT_REF_KEY;
	key->offset = backref ? l->parent : l->child;
}

/* read the root ref at @path into @l (parent and child left as they are) */
static int read_ref(const struct btrfs_path *path, struct ref_link *l)
{
	const struct btrfs_root_ref *ref;
	u32 size = btrfs_item_size(path->nodes[0], path->slots[0]);

	if (size < sizeof(*ref))
		return -EUCLEAN;
	ref = btrfs_item_ptr(path->nodes[0], path->slots[0], struct btrfs_root_ref);
	l->name_len = btrfs_root_ref_name_len(ref);
	if (!l->name_len || l->name_len > BTRFS_NAME_LEN || sizeof(*ref) + l->name_len > size)
		return -EUCLEAN;
	l->dirid = btrfs_root_ref_dirid(ref);
	l->sequence = btrfs_root_ref_sequence(ref);
	memcpy(l->name, ref + 1, l->name_len);
	return 0;
}

/* the half @backref of the pair of @l: 0 read into @out, 1 none, <0 error */
static int lookup_half(struct btrfs_fs_info *fs, const struct ref_link *l, bool backref,
		       struct ref_link *out)
{
	struct btrfs_key key;
	struct btrfs_path path;
	int ret;

	ref_key(l, backref, &key);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs->tree_root, &key, &path, 0, 0);
	if (ret == 0) {
		*out = *l;
		ret = read_ref(&path, out);
	}
	btrfs_release_path(&path);
	return ret;
}

/*
 * The first root ref item of @type with @objectid (any offset, @match_off
 * -1) or whose offset is @match_off (any objectid): 0 found, 1 none.
 */
static int find_ref_item(struct btrfs_fs_info *fs, u8 type, u64 objectid, u64 match_off,
			 struct btrfs_key *found, struct ref_link *l)
{
	struct btrfs_root *root = &fs->tree_root;
	struct btrfs_key key = { objectid == (u64)-1 ? 0 : objectid, type, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (objectid != (u64)-1 && (key.objectid != objectid || key.type > type))
			break;
		if (key.type == type && (match_off == (u64)-1 || key.offset == match_off)) {
			*found = key;
			ret = read_ref(&path, l);
			btrfs_release_path(&path);
			return ret;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 1;
}

/*
 * Does the parent's DIR_INDEX (dirid, sequence) point to the child's root
 * by the same name?  1 yes, 0 no, <0 error.
 */
static int dir_index_confirms(struct repair_ctx *r, const struct ref_link *l)
{
	struct btrfs_root *root = repair_get_root(r, l->parent);
	struct btrfs_key key = { l->dirid, BTRFS_DIR_INDEX_KEY, l->sequence };
	const struct btrfs_dir_item *di;
	struct btrfs_path path;
	struct btrfs_key loc;
	int ret;

	if (!root)
		return -EIO;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 0;
	}
	ret = 0;
	di = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_dir_item);
	if (btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(*di) + l->name_len) {
		btrfs_disk_key_to_cpu(&loc, &di->location);
		ret = loc.objectid == l->child && loc.type == BTRFS_ROOT_ITEM_KEY &&
		      btrfs_dir_name_len(di) == l->name_len &&
		      !memcmp(di + 1, l->name, l->name_len);
	}
	btrfs_release_path(&path);
	return ret;
}

/* write @l as the half @backref: inserted, or its contents replaced */
static int put_half(struct repair_ctx *r, const struct ref_link *l, bool backref, bool exists)
{
	u8 buf[sizeof(struct btrfs_root_ref) + BTRFS_NAME_LEN];
	struct btrfs_root_ref *ref = (void *)buf;
	u32 size = sizeof(*ref) + l->name_len;
	struct btrfs_key key;
	struct btrfs_path path;
	char ks[96];
	int ret;

	ref_key(l, backref, &key);
	repair_key_str(&key, ks, sizeof(ks));
	if (exists)
		repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "root tree item %s", ks);
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root tree item %s dirid %llu sequence %llu name %.*s", ks,
		    (unsigned long long)l->dirid, (unsigned long long)l->sequence,
		    (int)l->name_len, l->name);
	btrfs_set_root_ref_dirid(ref, l->dirid);
	btrfs_set_root_ref_sequence(ref, l->sequence);
	btrfs_set_root_ref_name_len(ref, l->name_len);
	memcpy(ref + 1, l->name, l->name_len);
	if (exists) {
		ret = repair_search(r, &r->fs_info->tree_root, &key, &path);
		if (ret == 0)
			ret = btrfs_del_item(r->trans, &r->fs_info->tree_root, &path);
		btrfs_release_path(&path);
		if (ret)
			return ret < 0 ? ret : -ENOENT;
	}
	return btrfs_insert_item(r->trans, &r->fs_info->tree_root, &key, ref, size);
}

/*
 * Both halves gone: the entry that links @child is looked for in every
 * subvolume tree (a DIR_INDEX pointing at its ROOT_ITEM).  Exactly one
 * must exist.  0 found into @l, 1 none (or more than one), <0 error.
 */
static int find_linking_entry(struct repair_ctx *r, u64 child, struct ref_link *l)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_key rkey = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path rpath;
	int found = 0, ret;

	ret = btrfs_search_first(&fs->tree_root, &rkey, &rpath);
	while (ret == 0 && found < 2) {
		struct btrfs_root *root;
		struct btrfs_key key = { 0, 0, 0 };
		struct btrfs_path path;
		u64 tree;

		btrfs_path_key(&rpath, &rkey);
		if (rkey.objectid > BTRFS_LAST_FREE_OBJECTID)
			break;
		tree = rkey.objectid;
		if (rkey.type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_subvol_tree(tree) ||
		    tree == child)
			goto next_root;
		root = repair_get_root(r, tree);
		if (!root)
			goto next_root;
		ret = btrfs_search_first(root, &key, &path);
		while (ret == 0 && found < 2) {
			const struct btrfs_dir_item *di;
			struct btrfs_key loc;

			btrfs_path_key(&path, &key);
			if (key.type != BTRFS_DIR_INDEX_KEY ||
			    btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*di))
				goto next_item;
			di = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_dir_item);
			btrfs_disk_key_to_cpu(&loc, &di->location);
			if (loc.objectid != child || loc.type != BTRFS_ROOT_ITEM_KEY)
				goto next_item;
			if (!btrfs_dir_name_len(di) || btrfs_dir_name_len(di) > BTRFS_NAME_LEN ||
			    sizeof(*di) + btrfs_dir_name_len(di) >
			    btrfs_item_size(path.nodes[0], path.slots[0]))
				goto next_item;
			found++;
			l->parent = tree;
			l->child = child;
			l->dirid = key.objectid;
			l->sequence = key.offset;
			l->name_len = btrfs_dir_name_len(di);
			memcpy(l->name, di + 1, l->name_len);
next_item:
			ret = btrfs_next_item(root, &path);
		}
		btrfs_release_path(&path);
		if (ret < 0)
			break;
next_root:
		ret = btrfs_next_item(&fs->tree_root, &rpath);
	}
	btrfs_release_path(&rpath);
	if (ret < 0)
		return ret;
	return found == 1 ? 0 : 1;
}

/*
 * ROOT_REF_MISSING: the missing half is made from the other when the
 * parent's entry confirms it; with both gone, both are made from the one
 * entry that links the subvolume.
 */
int repair_root_ref_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	bool want_backref;
	struct ref_link l = { .child = p->root }, have;
	struct btrfs_key key;
	int ret, rb, rr;

	if (!p->name)
		return -EOPNOTSUPP;
	want_backref = !strcmp(p->name, "root backref");
	if (!want_backref && strcmp(p->name, "root ref"))
		return -EOPNOTSUPP;
	/* the half that is there names the parent */
	if (want_backref)
		ret = find_ref_item(fs, BTRFS_ROOT_REF_KEY, (u64)-1, p->root, &key, &l);
	else
		ret = find_ref_item(fs, BTRFS_ROOT_BACKREF_KEY, p->root, (u64)-1, &key, &l);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		/*
		 * The check names a lost backref twice when the ref is there:
		 * for the ref (with its dirid), and for the subvolume (dirid
		 * 0).  The first one's action makes it.
		 */
		if (want_backref && !p->inode)
			return 1;
		l.parent = want_backref ? key.objectid : key.offset;
	} else {
		/* no half at all: the entry in the parent is all there is */
		ret = find_linking_entry(r, p->root, &l);
		if (ret)
			return ret < 0 ? ret : -ENOENT;
	}
	rb = lookup_half(fs, &l, true, &have);
	rr = lookup_half(fs, &l, false, &have);
	if (rb < 0 || rr < 0)
		return rb < 0 ? rb : rr;
	if (!rb && !rr)
		return 1;	/* made earlier in the pass */
	ret = dir_index_confirms(r, &l);
	if (ret <= 0)
		return ret < 0 ? ret : -EUCLEAN;	/* nothing confirms the ref */
	ret = 0;
	if (rr)
		ret = put_half(r, &l, false, false);
	if (!ret && rb)
		ret = put_half(r, &l, true, false);
	return ret;
}

/*
 * ROOT_REF_MISMATCH, "dirid, sequence or name differ": the half the
 * parent's entry confirms is copied over the other.
 */
int repair_root_ref_mismatch(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct ref_link ref = { .child = p->root }, back;
	struct btrfs_key key;
	int ret, ok_ref, ok_back;

	if (!p->detail || strcmp(p->detail, "dirid, sequence or name differ"))
		return -EOPNOTSUPP;
	ret = find_ref_item(fs, BTRFS_ROOT_BACKREF_KEY, p->root, (u64)-1, &key, &back);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	back.child = p->root;
	back.parent = key.offset;
	ref.parent = key.offset;
	ret = lookup_half(fs, &ref, false, &ref);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	if (ref.dirid == back.dirid && ref.sequence == back.sequence &&
	    ref.name_len == back.name_len && !memcmp(ref.name, back.name, ref.name_len))
		return 1;
	ok_ref = dir_index_confirms(r, &ref);
	ok_back = dir_index_confirms(r, &back);
	if (ok_ref < 0 || ok_back < 0)
		return ok_ref < 0 ? ok_ref : ok_back;
	if (ok_ref && !ok_back)
		return put_half(r, &ref, true, true);
	if (ok_back && !ok_ref)
		return put_half(r, &back, false, true);
	return -EUCLEAN;	/* the entry confirms neither (or both?) */
}
