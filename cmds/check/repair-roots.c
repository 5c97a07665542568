// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions of the uuid tree (phase 4) and of orphan items (phase
 * 7): a uuid entry pointing to a root that does not exist (or no longer
 * has that uuid) loses that root id, a subvolume's missing entry is
 * added; an inode with no link and no orphan item gets one (the kernel
 * then finishes deleting it), an orphan item that names no inode goes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/extent-tree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

static u64 le64_at(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* UUID_ITEM_STALE: drop root id @p->root from the entry at @p->key */
int repair_uuid_stale(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = &r->fs_info->uuid_root;
	struct btrfs_path path;
	char ks[96];
	u32 size, off, at = (u32)-1;
	const u8 *data;
	int ret;

	if (!root->node)
		return -ENOENT;
	btrfs_init_path(&path);
	ret = repair_search(r, root, &p->key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	data = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
	for (off = 0; off + sizeof(u64) <= size; off += sizeof(u64)) {
		if (le64_at(data + off) == p->root) {
			at = off;
			break;
		}
	}
	if (at == (u32)-1) {
		btrfs_release_path(&path);
		return 1;	/* gone already */
	}
	check_format_key(&p->key, ks, sizeof(ks));
	if (size == sizeof(u64))
		repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "uuid tree item %s (root %llu)",
			    ks, (unsigned long long)p->root);
	else
		repair_note(r, REPAIR_OP_CHANGE, false, 0, 0,
			    "uuid tree item %s: root %llu removed from it", ks,
			    (unsigned long long)p->root);
	if (size == sizeof(u64)) {
		ret = btrfs_del_item(r->trans, root, &path);
	} else {
		u32 tail = size - at - sizeof(u64);
		u8 *rest = malloc(tail ? tail : 1);

		if (!rest) {
			btrfs_release_path(&path);
			return -ENOMEM;
		}
		/* move the ids after it down, then drop the last slot */
		memcpy(rest, data + at + sizeof(u64), tail);
		btrfs_write_item_data(&path, at, rest, tail);
		free(rest);
		btrfs_truncate_item(&path, size - sizeof(u64), 1);
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	}
	btrfs_release_path(&path);
	if (!ret)
		r->fs_info->write->uuid_tree_changed = true;
	return ret;
}

static int parse_uuid(const char *s, u8 *out)
{
	int i = 0;

	while (*s && i < BTRFS_UUID_SIZE) {
		unsigned int v;

		if (*s == '-') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x", &v) != 1)
			return -EINVAL;
		out[i++] = (u8)v;
		s += 2;
	}
	return i == BTRFS_UUID_SIZE && !*s ? 0 : -EINVAL;
}

/* UUID_ITEM_MISSING: the subvolume's uuid (or received uuid) entry */
int repair_uuid_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *sub = repair_get_root(r, p->root);
	struct btrfs_key key;
	u8 uuid[BTRFS_UUID_SIZE];
	char ks[96];
	u8 type;

	if (!sub || !sub->has_root_item || !r->fs_info->uuid_root.node)
		return -ENOENT;
	if (!p->name || parse_uuid(p->name, uuid))
		return -EINVAL;
	if (!memcmp(uuid, sub->root_item.uuid, BTRFS_UUID_SIZE))
		type = BTRFS_UUID_KEY_SUBVOL;
	else if (!memcmp(uuid, sub->root_item.received_uuid, BTRFS_UUID_SIZE))
		type = BTRFS_UUID_KEY_RECEIVED_SUBVOL;
	else
		return -ESTALE;
	key.objectid = le64_at(uuid);
	key.type = type;
	key.offset = le64_at(uuid + 8);
	check_format_key(&key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0, "uuid tree item %s (root %llu)",
		    ks, (unsigned long long)p->root);
	return btrfs_uuid_tree_add(r->trans, uuid, type, p->root);
}

/*
 * INODE_NO_ORPHAN: link count 0 and no orphan item.  An inode that still
 * has names gets its link count back (INODE_NLINK's recount); one without
 * any gets the orphan item, and the kernel deletes it at the next mount
 * as it would have.
 */
int repair_inode_no_orphan(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, p->inode };
	struct btrfs_path path;
	int ret;

	if (!root)
		return -ENOENT;
	ret = repair_inode_nlink(r, p);
	if (ret != -ENOLINK)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : 1;
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (ORPHAN ORPHAN_ITEM %llu): the kernel deletes the unlinked inode",
		    (unsigned long long)p->root, (unsigned long long)p->inode);
	return btrfs_insert_item(r->trans, root, &key, NULL, 0);
}

/* ORPHAN_ITEM_INVALID: only "not an inode number": the item goes */
int repair_orphan_item(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, p->inode };
	struct btrfs_path path;
	int ret;

	if (!root)
		return -ENOENT;
	if (!p->detail || strcmp(p->detail, "not an inode number"))
		return -EOPNOTSUPP;
	btrfs_init_path(&path);
	ret = repair_search(r, root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "root %llu (ORPHAN ORPHAN_ITEM %llu)",
		    (unsigned long long)p->root, (unsigned long long)p->inode);
	ret = btrfs_del_item(r->trans, root, &path);
	btrfs_release_path(&path);
	return ret;
}

/*
 * QGROUP_COUNTS: the qgroup's info item gets the counts phase 9 computed
 * from the trees (the finding carries them): referenced and exclusive,
 * their compressed twins alike (nothing accounts compression apart).
 */
int repair_qgroup_counts(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = &r->fs_info->quota_root;
	unsigned long long level, id, rfer, want_rfer, excl, want_excl;
	struct btrfs_qgroup_info_item *qi;
	struct btrfs_key key;
	struct btrfs_path path;
	int ret;

	if (!root->node || !p->name || !p->detail)
		return -ENOENT;
	if (sscanf(p->name, "%llu/%llu", &level, &id) != 2 ||
	    sscanf(p->detail, "counts are different: referenced %llu expect %llu, exclusive %llu expect %llu",
		   &rfer, &want_rfer, &excl, &want_excl) != 4)
		return -EINVAL;
	key = (struct btrfs_key){ 0, BTRFS_QGROUP_INFO_KEY, ((u64)level << 48) | id };
	btrfs_init_path(&path);
	ret = repair_search(r, root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*qi)) {
		btrfs_release_path(&path);
		return -EUCLEAN;
	}
	qi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_qgroup_info_item);
	if (btrfs_qgroup_info_rfer(qi) != want_rfer)
		repair_note(r, REPAIR_OP_CHANGE, true, btrfs_qgroup_info_rfer(qi), want_rfer,
			    "quota tree (0 QGROUP_INFO %s) referenced", p->name);
	if (btrfs_qgroup_info_excl(qi) != want_excl)
		repair_note(r, REPAIR_OP_CHANGE, true, btrfs_qgroup_info_excl(qi), want_excl,
			    "quota tree (0 QGROUP_INFO %s) exclusive", p->name);
	btrfs_set_qgroup_info_rfer(qi, want_rfer);
	btrfs_set_qgroup_info_rfer_cmpr(qi, want_rfer);
	btrfs_set_qgroup_info_excl(qi, want_excl);
	btrfs_set_qgroup_info_excl_cmpr(qi, want_excl);
	btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	return 0;
}

/* how many cache items are read, then deleted, at a time */
#define INODE_CACHE_BATCH	32

struct cache_item {
	struct btrfs_key key;
	u64 bytenr, len, offset;	/* the data extent it uses, bytenr 0: none */
};

/*
 * The first @max items of the inode cache left in @root (the deleted ones
 * are gone from it): how many, <0 error.
 */
static int inode_cache_batch(struct btrfs_root *root, struct cache_item *v, int max)
{
	struct btrfs_key key = { BTRFS_FREE_INO_OBJECTID, 0, 0 };
	struct btrfs_path path;
	int ret, n = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && n < max) {
		btrfs_path_key(&path, &key);
		if (key.objectid != BTRFS_FREE_INO_OBJECTID &&
		    key.objectid != BTRFS_FREE_SPACE_OBJECTID)
			break;
		v[n].key = key;
		v[n].bytenr = 0;
		if (key.type == BTRFS_EXTENT_DATA_KEY &&
		    btrfs_item_size(path.nodes[0], path.slots[0]) >=
		    sizeof(struct btrfs_file_extent_item)) {
			const struct btrfs_file_extent_item *fi =
				btrfs_item_ptr(path.nodes[0], path.slots[0],
					       struct btrfs_file_extent_item);

			if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_INLINE &&
			    btrfs_file_extent_disk_bytenr(fi)) {
				v[n].bytenr = btrfs_file_extent_disk_bytenr(fi);
				v[n].len = btrfs_file_extent_disk_num_bytes(fi);
				v[n].offset = key.offset - btrfs_file_extent_offset(fi);
			}
		}
		n++;
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : n;
}

/* delete one item of the cache and the data reference of its extent */
static int delete_cache_item(struct repair_ctx *r, struct btrfs_root *root, u64 root_id,
			     const struct cache_item *c)
{
	char ks[96];
	int ret;

	check_format_key(&c->key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "root %llu item %s",
		    (unsigned long long)root_id, ks);
	if (c->bytenr)
		repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
			    "extent tree: data ref of [%llu %llu] by root %llu inode FREE_INO",
			    (unsigned long long)c->bytenr, (unsigned long long)c->len,
			    (unsigned long long)root_id);
	ret = btrfs_delete_key(r->trans, root, &c->key);
	if (!ret && c->bytenr)
		ret = btrfs_dec_data_ref(r->trans, c->bytenr, c->len, root_id,
					 BTRFS_FREE_INO_OBJECTID, c->offset);
	return ret;
}

/*
 * INODE_CACHE_DEPRECATED: the items of the old inode number cache (the
 * FREE_INO inode and its file extents, the FREE_SPACE header) are deleted
 * from the tree, and the data extents they used lose their reference
 * (freed when it was the last).  The kernel has ignored them for years.
 * However many there are, they go a batch at a time: each batch is read
 * from the start of what is left, so memory does not grow with them.
 */
int repair_inode_cache(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct cache_item batch[INODE_CACHE_BATCH];
	bool changed = false;
	int ret, i, n;

	if (!root)
		return -ENOENT;
	do {
		n = inode_cache_batch(root, batch, INODE_CACHE_BATCH);
		for (i = 0; i < n; i++) {
			ret = delete_cache_item(r, root, p->root, &batch[i]);
			if (ret) {
				/* a reference without its item, or half a batch: not committed */
				if (changed || batch[i].bytenr)
					repair_fail_pass(r, ret);
				return ret;
			}
			changed = true;
		}
	} while (n == INODE_CACHE_BATCH);
	if (n < 0) {
		if (changed)
			repair_fail_pass(r, n);
		return n;
	}
	return changed ? 0 : 1;
}
