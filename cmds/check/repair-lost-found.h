/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lost+found for check --repair (repair-lost-found.c): an inode that no
 * name reaches any more is linked under /lost+found of its subvolume,
 * which is made (a directory, mode 0700) when it is missing.  With it the
 * name helpers the inode ref actions share (repair-refs.c).
 */
#ifndef GHEE_CHECK_REPAIR_LOST_FOUND_H
#define GHEE_CHECK_REPAIR_LOST_FOUND_H

#include "repair.h"

/*
 * Link inode @ino of subvolume tree @root under /lost+found with its
 * inode number as name ("<ino>", "<ino>.1", ... when taken): dir item,
 * dir index and inode ref; the inode's link count and lost+found's size
 * follow.  Each change is described with repair_note().  0 linked, <0
 * -errno (-EEXIST: a directory that has a name already).
 */
int repair_link_to_lost_found(struct repair_ctx *r, u64 root, u64 ino);

/*
 * The entry @name of directory @dir (its DIR_ITEM): where it points and
 * its type.  0 found, 1 not there, <0 error.
 */
int repair_lookup_name(struct btrfs_root *root, u64 dir, const char *name,
		       size_t name_len, struct btrfs_key *location, u8 *type);

/*
 * Where the entry named @name lies in the item at @key: a DIR_ITEM or
 * DIR_INDEX entry pointing at @match, an INODE_REF entry, or an
 * INODE_EXTREF entry of parent @match.  0 found (*@off, *@len: its bytes
 * in the item), 1 not there, <0 error.
 */
int repair_find_entry(struct btrfs_root *root, const struct btrfs_key *key,
		      const char *name, size_t name_len, u64 match, u32 *off,
		      u32 *len);

/* delete bytes [@off, @off + @len) of the item at @key (all: the item) */
int repair_cut_entry(struct repair_ctx *r, struct btrfs_root *root,
		     const struct btrfs_key *key, u32 off, u32 len);

/* add @delta to the size of directory @dir (its entries changed) */
int repair_dir_size_add(struct repair_ctx *r, struct btrfs_root *root, u64 dir,
			s64 delta);

#endif
