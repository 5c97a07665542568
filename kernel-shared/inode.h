/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Item helpers for filesystem trees and the tree of tree roots: inode
 * items, inode refs and extrefs, dir items and dir indexes (with the
 * btrfs name hash), root items, root refs and backrefs, uuid tree
 * entries.  Implemented in inode.c, dir-item.c and root-tree.c.
 */
#ifndef GHEE_INODE_H
#define GHEE_INODE_H

#include <stdbool.h>
#include <sys/types.h>
#include "format.h"
#include "disk-io.h"

struct btrfs_trans_handle;

struct btrfs_inode_params {
	u64 generation;		/* 0: the transaction id */
	u64 transid;
	u64 size;
	u64 nbytes;
	u32 nlink;
	u32 uid;
	u32 gid;
	u32 mode;		/* S_IFxxx | permissions */
	u64 rdev;
	u64 flags;		/* BTRFS_INODE_* */
	u64 sequence;
	struct { u64 sec; u32 nsec; } atime, ctime, mtime, otime;
};

/* insert an INODE_ITEM for @ino */
int btrfs_insert_inode(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		       u64 ino, const struct btrfs_inode_params *params);
/* copy @ino's inode item out / in (the item must exist) */
int btrfs_read_inode(struct btrfs_root *root, u64 ino, struct btrfs_inode_item *out);
int btrfs_update_inode(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		       u64 ino, const struct btrfs_inode_item *item);

/*
 * INODE_REF (@ino, @parent) holding (@index, @name); when the item would
 * not fit a leaf and EXTENDED_IREF is on, an INODE_EXTREF instead.
 */
int btrfs_insert_inode_ref(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   const char *name, int name_len, u64 ino, u64 parent,
			   u64 index);

/* the hash btrfs keys DIR_ITEMs with: crc32c seeded with ~1 of the name */
u64 btrfs_name_hash(const char *name, int len);
/* the key offset of an INODE_EXTREF: crc32c seeded with @parent */
u64 btrfs_extref_hash(u64 parent, const char *name, int len);

/*
 * DIR_ITEM (@dir, hash(name)) — appended to an existing item when the
 * hash collides — and DIR_INDEX (@dir, @index), both pointing at
 * @location with file type @type.  @index 0 skips the DIR_INDEX (the
 * root tree's "default" entry has none).
 */
int btrfs_insert_dir_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const char *name, int name_len, u64 dir,
			  const struct btrfs_key *location, u8 type, u64 index);

/*
 * XATTR_ITEM (@ino, hash(name)) holding @name and @value (appended to the
 * item of a colliding hash); -E2BIG when the entry cannot fit a leaf.
 */
int btrfs_insert_xattr_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    u64 ino, const char *name, int name_len,
			    const void *value, u32 value_len);

/*
 * A whole link: inode ref + dir item + dir index, and the parent
 * directory's size grows by twice the name length (what btrfs counts).
 */
int btrfs_add_link(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		   u64 ino, u64 parent, const char *name, int name_len, u8 type,
		   u64 index);

/* one past directory @dir's highest DIR_INDEX (2 when it has none) */
int btrfs_next_dir_index(struct btrfs_root *root, u64 dir, u64 *index);

/* directory inode @ino (nlink 1, "..") as the root of a tree */
int btrfs_make_root_dir(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, const struct btrfs_inode_params *params);

/* file type (BTRFS_FT_*) of a mode */
u8 btrfs_mode_to_type(u32 mode);

/* the highest objectid in use in @root (for the next free inode number) */
int btrfs_find_highest_objectid(struct btrfs_root *root, u64 *objectid);

/* root items */
int btrfs_insert_root_item(struct btrfs_trans_handle *trans, u64 objectid,
			   const struct btrfs_root_item *item);
int btrfs_update_root_item(struct btrfs_trans_handle *trans, u64 objectid,
			   const struct btrfs_root_item *item);
/* ROOT_REF (@parent -> @child) and ROOT_BACKREF (@child -> @parent) */
int btrfs_add_root_ref(struct btrfs_trans_handle *trans, u64 parent, u64 child,
		       u64 dirid, u64 sequence, const char *name, int name_len);
/* an entry of the uuid tree: @uuid of @type (UUID_KEY_SUBVOL...) -> @subvol */
int btrfs_uuid_tree_add(struct btrfs_trans_handle *trans, const u8 *uuid,
			u8 type, u64 subvol);

#endif
