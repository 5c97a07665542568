/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Back references as the extent tree stores them: the inline references
 * of an EXTENT_ITEM / METADATA_ITEM and the keyed reference items that
 * follow it.  Parsing checks every bound against the item, so any item
 * can be fed in; what is wrong is described, never trusted.
 */
#ifndef GHEE_CHECK_EXTENT_REFS_H
#define GHEE_CHECK_EXTENT_REFS_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format.h"

struct extent_buffer;
struct btrfs_fs_info;

/* one back reference (or one reference found by walking the trees) */
struct backref {
	u64 a;		/* root (keyed) or parent block (shared) */
	u64 b;		/* keyed data refs: inode */
	u64 c;		/* keyed data refs: offset */
	u64 len;	/* data extents: length; tree blocks: 0 */
	u64 count;
	u8 type;	/* BTRFS_*_REF_KEY */
};

/* what an extent item says about its extent */
struct extent_info {
	u64 bytenr;
	u64 len;		/* bytes the extent covers */
	u64 refs;		/* the item's refs field */
	u64 generation;
	u64 flags;
	bool tree_block;
	bool skinny;		/* METADATA_ITEM */
	int level;		/* tree blocks: level recorded, -1 when unknown */
	u64 ref_count;		/* sum of the counts of its back references */
	char why[200];		/* the first thing wrong with the item, "" if none */
};

typedef void (*backref_fn)(void *data, const struct backref *ref);

/*
 * Parse the extent item at @slot of @leaf (key @key) and hand each inline
 * reference to @fn.  Fills @info; info->why describes the first problem
 * (bad size, flags, level, unknown or misplaced reference type, references
 * out of order, ...).  Returns 0, or -EUCLEAN when the item cannot be
 * parsed at all (then nothing is handed out).
 */
int extent_item_parse(const struct btrfs_fs_info *fs_info,
		      const struct extent_buffer *leaf, int slot,
		      const struct btrfs_key *key, struct extent_info *info,
		      backref_fn fn, void *data);

/*
 * A keyed reference item (TREE_BLOCK_REF, SHARED_BLOCK_REF,
 * EXTENT_DATA_REF, SHARED_DATA_REF) as a struct backref.  Returns 0, or
 * -EUCLEAN with @why filled in when its size or key is wrong (@ref is
 * still filled in as far as it could be read).
 */
int keyed_backref_parse(const struct extent_buffer *leaf, int slot,
			const struct btrfs_key *key, u64 extent_len,
			struct backref *ref, char *why, size_t why_len);

/* true for the key types of keyed back references */
bool is_keyed_backref_type(u8 type);

/* the key offset btrfs uses for a keyed data ref, a hash of its identity */
u64 extent_data_ref_hash(u64 root, u64 objectid, u64 offset);

/* "data ref root 5 inode 257 offset 0" and the like */
void backref_describe(const struct backref *ref, char *buf, size_t len);

/* the identity mix of extent-tally.h for @ref */
u64 backref_ident(const struct backref *ref);

/* order backrefs by identity (type, a, b, c, len), for sorting */
int backref_cmp(const struct backref *x, const struct backref *y);

#endif
