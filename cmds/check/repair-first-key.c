// SPDX-License-Identifier: GPL-2.0
/*
 * TREE_BLOCK_INVALID "first key mismatch": the first key of a block is
 * not the key its parent holds for it, all else about the block sound.
 *
 * A parent's key only routes searches: the keys from it up to the next
 * one (of the parent, or of a node higher up for a parent's last slot) go
 * to the block.  When every key of the block lies in that range, above
 * the parent's key and below the next one, every search for an item of
 * the block reaches it, and the parent's key is raised to the block's
 * first key, as the engine does after deleting a block's first item: the
 * keys between the two then go to the block before it, and no block holds
 * any of them.  For a parent's first slot the nodes above follow.  The
 * parent is copied on write; the block itself is not touched.  A block
 * that snapshots share is fixed in every subvolume tree that reaches it.
 *
 * A first key below the parent's key (the block holds items that searches
 * send to its left neighbour) or a key at or past the next one is refused:
 * which of the items there is right cannot be told.  The finding then
 * stands, and the key guard keeps the other fixes out of the block's
 * range (repair-guard.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "repair-tree-block.h"
#include "repair-place.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/transaction.h"

/* the pointer to a block in its parent */
struct parent_ref {
	struct block_place place;	/* the block's */
	u64 parent;			/* the parent's address */
	int slot;			/* the block's slot in it */
	u64 ptr_gen;
	struct btrfs_key key;		/* the parent's key for the block */
};

/* the parent of @bytenr in @root: 0, -ENOENT when no node points to it */
static int find_parent(struct btrfs_root *root, u64 bytenr, struct parent_ref *pr)
{
	struct btrfs_path path;
	struct block_place up;
	struct extent_buffer *node;
	int ret;

	ret = repair_find_place(root, bytenr, &pr->place);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	up = pr->place;
	up.level++;
	ret = repair_path_to_place(NULL, root, &up, &path);
	if (!ret) {
		node = path.nodes[up.level];
		pr->slot = pr->place.slots[up.level];
		pr->parent = node->start;
		pr->ptr_gen = btrfs_node_ptr_generation(node, pr->slot);
		btrfs_node_key_to_cpu(node, &pr->key, pr->slot);
	}
	btrfs_release_path(&path);
	return ret;
}

static void first_last_keys(const struct extent_buffer *eb, struct btrfs_key *first,
			    struct btrfs_key *last)
{
	u32 nr = btrfs_eb_nritems(eb);

	if (btrfs_eb_level(eb)) {
		btrfs_node_key_to_cpu(eb, first, 0);
		btrfs_node_key_to_cpu(eb, last, nr - 1);
	} else {
		btrfs_item_key_to_cpu(eb, first, 0);
		btrfs_item_key_to_cpu(eb, last, nr - 1);
	}
}

/*
 * The block's first key in @first when the block is sound but for it and
 * all its keys lie in the range its parent gives it; else -EUCLEAN and
 * why not (repair_why()).
 */
static int judge_block(struct repair_ctx *r, u64 bytenr, const struct parent_ref *pr,
		       struct btrfs_key *first)
{
	struct tree_block_check check = { .transid = pr->ptr_gen, .level = pr->place.level };
	struct extent_buffer *eb;
	struct btrfs_key last;
	char k1[96], k2[96];
	int ret = -EUCLEAN, err;

	/*
	 * Checksum, address, fsid, level and generation only: a full read
	 * would fail on the first key (or be mended by the fixer) and keep
	 * the block in the cache as verified.
	 */
	eb = read_tree_block_header_only(r->fs_info, bytenr, &check, &err);
	if (!eb) {
		repair_why(r, "key pointer not changed: block %llu cannot be read",
			   (unsigned long long)bytenr);
		return err;
	}
	if (!btrfs_eb_nritems(eb) || !repair_block_content_sound(r->fs_info, eb)) {
		repair_why(r, "key pointer not changed: block %llu is damaged beyond its first key",
			   (unsigned long long)bytenr);
		goto out;
	}
	first_last_keys(eb, first, &last);
	repair_key_str(first, k1, sizeof(k1));
	if (btrfs_comp_cpu_keys(first, &pr->key) < 0) {
		repair_key_str(&pr->key, k2, sizeof(k2));
		repair_why(r, "key pointer not changed: the first key %s of block %llu lies below its parent's key %s",
			   k1, (unsigned long long)bytenr, k2);
		goto out;
	}
	if (pr->place.has_hi && btrfs_comp_cpu_keys(&last, &pr->place.hi) >= 0) {
		repair_key_str(&last, k1, sizeof(k1));
		repair_key_str(&pr->place.hi, k2, sizeof(k2));
		repair_why(r, "key pointer not changed: key %s of block %llu is not below %s, the next key in node %llu",
			   k1, (unsigned long long)bytenr, k2,
			   (unsigned long long)pr->place.hi_from);
		goto out;
	}
	ret = 0;
out:
	free_extent_buffer(eb);
	return ret;
}

/* the parent's key for @bytenr raised in @root: 0, 1 right already, <0 error */
static int fix_in_tree(struct repair_ctx *r, struct btrfs_root *root, u64 bytenr)
{
	struct parent_ref pr;
	struct btrfs_key first;
	struct btrfs_path path;
	struct block_place up;
	char from[96], to[96];
	int ret;

	ret = find_parent(root, bytenr, &pr);
	if (!ret)
		ret = judge_block(r, bytenr, &pr, &first);
	if (ret)
		return ret;
	if (!btrfs_comp_cpu_keys(&first, &pr.key))
		return 1;
	repair_key_str(&pr.key, from, sizeof(from));
	repair_key_str(&first, to, sizeof(to));
	repair_note(r, REPAIR_OP_CHANGE, false, 0, 0,
		    "tree %llu node %llu slot %d key %s -> %s, the first key of block %llu",
		    (unsigned long long)root->root_key.objectid,
		    (unsigned long long)pr.parent, pr.slot, from, to,
		    (unsigned long long)bytenr);
	up = pr.place;
	up.level++;
	ret = repair_path_to_place(r->trans, root, &up, &path);
	if (!ret) {
		path.slots[up.level] = pr.slot;
		ret = btrfs_set_node_key_safe(r->trans, &path, up.level, &first);
	}
	btrfs_release_path(&path);
	/* a path copied half way must not be committed */
	if (ret)
		repair_fail_pass(r, ret);
	return ret;
}

int repair_first_key(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	bool changed;
	u64 *ids = NULL;
	size_t nr = 0, i;
	int ret;

	if (!root)
		return -ENOENT;
	ret = fix_in_tree(r, root, p->block);
	if (ret < 0 || !btrfs_is_subvol_tree(p->root))
		return ret;
	changed = !ret;
	ret = repair_other_subvol_trees(r, p->root, &ids, &nr);
	for (i = 0; !ret && i < nr; i++) {
		root = repair_get_root(r, ids[i]);
		if (!root)
			continue;
		ret = fix_in_tree(r, root, p->block);
		if (!ret)
			changed = true;
		/* a tree that does not reach the block, or reaches it rightly */
		if (ret == 1 || ret == -ENOENT)
			ret = 0;
	}
	free(ids);
	/* an earlier tree changed: this block is not fixed in every tree */
	if (ret && changed)
		return repair_fail_after_change(r, ret);
	return ret ? ret : changed ? 0 : 1;
}
