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

/*
 * One entry of an item that packs several names: a DIR_ITEM, DIR_INDEX
 * or XATTR_ITEM entry (struct btrfs_dir_item, the name, then the data),
 * an INODE_REF entry (index, name) or an INODE_EXTREF entry (parent,
 * index, name).
 */
struct btrfs_name_entry {
	u32 off;			/* of the entry in the item */
	u32 len;			/* its bytes inside the item */
	const u8 *name;
	u32 name_len;			/* as stored */
	u32 name_avail;			/* bytes of the name inside the item */
	const u8 *data;			/* the dir item types: an xattr's value */
	u32 data_len;
	u32 data_avail;
	u64 index;			/* INODE_REF, INODE_EXTREF */
	u64 parent;			/* INODE_EXTREF; INODE_REF (leaf walk): key offset */
	const struct btrfs_dir_item *di;	/* the dir item types, else NULL */
	struct btrfs_key location;	/* the dir item types */
};

/*
 * Step @e to the next entry of the item of key type @type (@item, @size:
 * its bytes): the first for a zeroed @e, the one at @e->off when @e->len
 * is 0.  1 @e is that entry, 0 the item ends there, -EUCLEAN an entry
 * that does not fit the item (or @type packs no names); @e is left as it
 * was then.  What reads names uses this one.
 */
int btrfs_next_name_entry(u8 type, const void *item, u32 size, struct btrfs_name_entry *e);
/*
 * The same for showing a damaged item: an entry whose name or data run
 * past the item is given cut short to what is inside (name_avail,
 * data_avail; the last entry), -EUCLEAN only for an entry header that
 * does not fit, at @e->off + @e->len.
 */
int btrfs_walk_name_entry(u8 type, const void *item, u32 size, struct btrfs_name_entry *e);
/*
 * btrfs_next_name_entry() in the item at @slot of @leaf, packed as its
 * key type says (an INODE_REF's parent: the key offset)
 */
int btrfs_next_item_name(const struct extent_buffer *leaf, int slot,
			 struct btrfs_name_entry *e);

/*
 * What the name walks below call for each entry, the leaf held (what @e
 * points to is valid until it returns); nonzero stops the walk.
 */
typedef int (*btrfs_name_fn)(const struct btrfs_key *key, const struct btrfs_name_entry *e,
			     void *data);
/*
 * @fn for every entry of the items (@objectid, @first ... @last, any
 * offset) of @root in key order: the names of an inode (INODE_REF ...
 * INODE_EXTREF), the entries of a directory (DIR_ITEM ... DIR_INDEX).
 * The walk of an item ends at an entry that does not fit it.  0 all
 * seen, what @fn stopped with, or <0 a read error.
 */
int btrfs_for_each_name(struct btrfs_root *root, u64 objectid, u8 first, u8 last,
			btrfs_name_fn fn, void *data);
/* the same over the one item at @key; -ENOENT when there is none */
int btrfs_item_for_each_name(struct btrfs_root *root, const struct btrfs_key *key,
			     btrfs_name_fn fn, void *data);

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
