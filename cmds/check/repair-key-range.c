// SPDX-License-Identifier: GPL-2.0
/*
 * TREE_KEY_RANGE: a tree block holds keys at or above the key its parent
 * gives the next block, so the two blocks' key ranges overlap.  Every
 * search for such a key follows the parents' keys to the next block and
 * does not find it: to the kernel and to every reader that searches, the
 * item is not there.
 *
 * Raising the parent's key cannot help (the next block's first items would
 * fall out of its range), so the items past the boundary, the stray ones,
 * leave the block and are inserted again where they sort, through the
 * engine's copy-on-write search and insert in the repair's transaction;
 * the engine keeps the parents' keys right.  A stray item whose key is
 * already where it sorts is a second copy: with the same bytes it is
 * dropped; with others, which copy is right cannot be told, and the action
 * refuses before anything is written.  In a node the stray part is the key
 * pointers past the boundary: the items of every leaf under them move the
 * same way, and the emptied blocks leave the tree (each item stays
 * reachable exactly once, no subtree is kept under a range it does not
 * fit).
 *
 * The block is found by its address, walking the nodes from the root: a
 * search by key follows the parents' keys, which are what is wrong.  Its
 * path is copied on write slot by slot.  Every stray item is looked up
 * where it sorts before anything is written, and all of them are taken
 * out before the first is inserted, so the inserts run on a tree whose
 * keys are consistent again.  A block that snapshots share is repaired in
 * every subvolume tree that reaches it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-key-range.h"
#include "repair-place.h"
#include "repair-tree-block.h"
#include "array.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"

/* the most bytes of stray items one action holds (leaves under a node's stray pointers) */
#define STRAY_BYTES_MAX		(64u << 20)

struct stray_item {
	struct btrfs_key key;
	u64 from;		/* the leaf it was in */
	u64 to;			/* the leaf holding it (or its copy) after the repair */
	size_t off;		/* its bytes in stray_set.data */
	u32 size;
	bool copy;		/* the same bytes are where it sorts: dropped */
};

/* the stray part of one block in one tree */
struct stray_set {
	struct btrfs_root *root;
	u64 bytenr;
	struct block_place place;
	u32 first;		/* its first stray slot */
	u32 nritems;		/* its slots, stray ones included */
	struct stray_item *v;	/* in key order */
	size_t nr;
	size_t alloc;
	u8 *data;
	size_t len;
	size_t data_alloc;
};

static void stray_set_release(struct stray_set *s)
{
	free(s->v);
	free(s->data);
	memset(s, 0, sizeof(*s));
}

/* why the action refuses, added to the finding's message */
__attribute__((format(printf, 2, 3)))
static void refusal(struct repair_ctx *r, const char *fmt, ...)
{
	char why[320], *msg;
	size_t len;
	va_list ap;

	if (!r->cur || !r->cur->message)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	len = strlen(r->cur->message) + strlen(why) + 16;
	msg = malloc(len);
	if (!msg)
		return;
	snprintf(msg, len, "%s; not moved: %s", r->cur->message, why);
	free(r->cur->message);
	r->cur->message = msg;
}

/* ---- the stray items ---- */

static int add_item(struct stray_set *s, const struct extent_buffer *leaf, u32 slot)
{
	struct stray_item *it;
	u32 size = btrfs_item_size(leaf, slot);

	if (s->len + size > STRAY_BYTES_MAX)
		return -E2BIG;
	if (ARRAY_RESERVE(s->v, s->alloc, s->nr + 1, 16) ||
	    ARRAY_RESERVE(s->data, s->data_alloc, s->len + size, 4096))
		return -ENOMEM;
	it = &s->v[s->nr++];
	memset(it, 0, sizeof(*it));
	btrfs_item_key_to_cpu(leaf, &it->key, slot);
	it->from = leaf->start;
	it->off = s->len;
	it->size = size;
	if (size)
		memcpy(s->data + s->len, btrfs_item_ptr(leaf, slot, u8), size);
	s->len += size;
	return 0;
}

/* every item of the leaves under @node from @slot on, in key order */
static int add_subtrees(struct stray_set *s, struct extent_buffer *node, u32 slot)
{
	u32 i, nr = btrfs_eb_nritems(node);
	int ret = 0, err;

	for (i = slot; i < nr && !ret; i++) {
		struct extent_buffer *child = btrfs_read_node_slot(node, i, &err);
		u32 j;

		if (!child)
			return err;
		if (btrfs_eb_level(child)) {
			ret = add_subtrees(s, child, 0);
		} else {
			for (j = 0; j < btrfs_eb_nritems(child) && !ret; j++)
				ret = add_item(s, child, j);
		}
		free_extent_buffer(child);
	}
	return ret;
}

/* the first slot of @eb whose key is at or above @hi (nritems when none) */
static u32 first_stray_slot(const struct extent_buffer *eb, const struct btrfs_key *hi)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	struct btrfs_key key;

	for (i = 0; i < nr; i++) {
		if (btrfs_eb_level(eb))
			btrfs_node_key_to_cpu(eb, &key, i);
		else
			btrfs_item_key_to_cpu(eb, &key, i);
		if (btrfs_comp_cpu_keys(&key, hi) >= 0)
			break;
	}
	return i;
}

/*
 * The stray part of block @s->bytenr in @s->root: 0 there is one (its
 * items in @s), 1 the tree does not reach the block or it holds nothing
 * past its range, <0 error.
 */
static int collect(struct stray_set *s)
{
	struct btrfs_root *root = s->root;
	struct extent_buffer *eb;
	struct btrfs_path path;
	u32 i;
	int ret;

	/* a root has no parent to disagree with */
	ret = repair_find_place(root, s->bytenr, &s->place);
	if (ret || !s->place.has_hi)
		return ret ? ret : 1;
	ret = repair_path_to_place(NULL, root, &s->place, &path);
	if (ret)
		goto out;
	eb = path.nodes[s->place.level];
	s->nritems = btrfs_eb_nritems(eb);
	s->first = first_stray_slot(eb, &s->place.hi);
	ret = s->first < s->nritems ? 0 : 1;
	if (!ret && s->place.level)
		ret = add_subtrees(s, eb, s->first);
	for (i = s->first; !ret && !s->place.level && i < s->nritems; i++)
		ret = add_item(s, eb, i);
out:
	btrfs_release_path(&path);
	return ret;
}

/*
 * Where each stray item sorts: a free key (it moves), the same bytes (a
 * second copy, dropped) or other bytes (-EEXIST: which one is right cannot
 * be told).  A search for a key at or above the boundary never reaches
 * the stray block, whose parents' keys send it further right.
 */
static int look_where_they_sort(struct repair_ctx *r, struct stray_set *s)
{
	struct btrfs_path path;
	char ks[96];
	size_t i;
	int ret;

	for (i = 0; i < s->nr; i++) {
		struct stray_item *it = &s->v[i];
		const struct extent_buffer *leaf;

		btrfs_init_path(&path);
		ret = btrfs_search_slot(NULL, s->root, &it->key, &path, 0, 0);
		if (ret < 0) {
			btrfs_release_path(&path);
			return ret;
		}
		leaf = path.nodes[0];
		if (!ret && (btrfs_item_size(leaf, path.slots[0]) != it->size ||
			     (it->size && memcmp(btrfs_item_ptr(leaf, path.slots[0], u8),
						 s->data + it->off, it->size)))) {
			repair_key_str(&it->key, ks, sizeof(ks));
			refusal(r, "tree %llu item %s of block %llu differs from the item of that key in leaf %llu, where it sorts",
				(unsigned long long)s->root->root_key.objectid, ks,
				(unsigned long long)it->from, (unsigned long long)leaf->start);
			btrfs_release_path(&path);
			return -EEXIST;
		}
		it->copy = !ret;
		btrfs_release_path(&path);
	}
	return 0;
}

/* ---- taking them out and putting them back ---- */

/* the keys of leaf @eb from @slot on are those of @s->v from @at on */
static bool same_keys(const struct stray_set *s, size_t at,
		      const struct extent_buffer *eb, u32 slot)
{
	u32 nr = btrfs_eb_nritems(eb);
	struct btrfs_key key;

	if (at + (nr - slot) > s->nr)
		return false;
	for (; slot < nr; slot++, at++) {
		btrfs_item_key_to_cpu(eb, &key, slot);
		if (btrfs_comp_cpu_keys(&key, &s->v[at].key))
			return false;
	}
	return true;
}

/* a leaf: its stray items are deleted from its copy */
static int take_out_of_leaf(struct repair_ctx *r, struct stray_set *s)
{
	struct btrfs_path path;
	int ret;

	ret = repair_path_to_place(r->trans, s->root, &s->place, &path);
	if (!ret && (btrfs_eb_nritems(path.nodes[0]) != s->nritems ||
		     !same_keys(s, 0, path.nodes[0], s->first)))
		ret = -EIO;
	if (!ret)
		ret = btrfs_del_items(r->trans, s->root, &path, (int)s->first,
				      (int)(s->nritems - s->first));
	btrfs_release_path(&path);
	return ret;
}

/*
 * A node: the last leaf under its last stray pointer is emptied, which
 * takes the leaf (and every node it empties) out of the tree; again until
 * no stray pointer is left.  The leaves go from the right, so the items
 * still to take out are always the first ones of @s->v.
 */
static int take_out_of_node(struct repair_ctx *r, struct stray_set *s)
{
	struct btrfs_path path;
	size_t left = s->nr;
	int ret, level, err;

	while (left) {
		struct extent_buffer *b, *child;
		u32 nr;

		ret = repair_path_to_place(r->trans, s->root, &s->place, &path);
		level = s->place.level;
		b = ret ? NULL : path.nodes[level];
		/* no stray pointer left while items are: not the node planned */
		if (b && btrfs_eb_nritems(b) <= s->first)
			ret = -EIO;
		while (!ret && level > 0) {
			int slot = (int)btrfs_eb_nritems(b) - 1;

			path.slots[level] = slot;
			child = btrfs_read_node_slot(b, slot, &err);
			if (!child) {
				ret = err;
				break;
			}
			ret = btrfs_cow_block(r->trans, s->root, child, b, slot, &b);
			free_extent_buffer(child);
			if (!ret)
				path.nodes[--level] = b;
		}
		nr = ret ? 0 : btrfs_eb_nritems(b);
		if (!ret && (!nr || nr > left || !same_keys(s, left - nr, b, 0)))
			ret = -EIO;
		if (!ret)
			ret = btrfs_del_items(r->trans, s->root, &path, 0, (int)nr);
		btrfs_release_path(&path);
		if (ret)
			return ret;
		left -= nr;
	}
	return 0;
}

/* the leaf that holds @key now */
static int leaf_of(struct btrfs_root *root, const struct btrfs_key *key, u64 *leaf)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (!ret)
		*leaf = path.nodes[0]->start;
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

static int put_back(struct repair_ctx *r, struct stray_set *s)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < s->nr && !ret; i++) {
		if (!s->v[i].copy)
			ret = btrfs_insert_item(r->trans, s->root, &s->v[i].key,
						s->v[i].size ? s->data + s->v[i].off : NULL,
						s->v[i].size);
	}
	for (i = 0; i < s->nr && !ret; i++)
		ret = leaf_of(s->root, &s->v[i].key, &s->v[i].to);
	return ret;
}

/* ---- the report ---- */

/* the items of @s from @i on that share what the report says of them */
static size_t run_end(const struct stray_set *s, size_t i)
{
	size_t j;

	for (j = i + 1; j < s->nr; j++) {
		if (s->v[j].copy != s->v[i].copy || s->v[j].from != s->v[i].from ||
		    s->v[j].to != s->v[i].to)
			break;
	}
	return j;
}

static void note_moves(struct repair_ctx *r, const struct stray_set *s)
{
	unsigned long long tree = s->root->root_key.objectid;
	char first[96], last[96], what[220];
	size_t i, j;

	if (s->place.level) {
		repair_key_str(&s->place.hi, first, sizeof(first));
		repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
			    "tree %llu node %llu key pointers %u-%u, at or above %s: the blocks under them emptied and freed",
			    tree, (unsigned long long)s->bytenr, s->first, s->nritems - 1, first);
	}
	for (i = 0; i < s->nr; i = j) {
		const struct stray_item *it = &s->v[i];

		j = run_end(s, i);
		repair_key_str(&it->key, first, sizeof(first));
		repair_key_str(&s->v[j - 1].key, last, sizeof(last));
		if (j - i == 1)
			snprintf(what, sizeof(what), "tree %llu item %s", tree, first);
		else
			snprintf(what, sizeof(what), "tree %llu items %s to %s (%zu)",
				 tree, first, last, j - i);
		if (it->copy)
			repair_note(r, REPAIR_OP_DELETE, false, 0, 0,
				    "%s in leaf %llu: the same bytes are where %s, in leaf %llu",
				    what, (unsigned long long)it->from,
				    j - i == 1 ? "it sorts" : "they sort",
				    (unsigned long long)it->to);
		else
			repair_note(r, REPAIR_OP_CHANGE, true, it->from, it->to,
				    "%s moved where %s, leaf", what,
				    j - i == 1 ? "it sorts" : "they sort");
	}
}

/* ---- the action ---- */

/* the stray part of @bytenr in tree @tree_id, added to @sets when it has one */
static int plan_tree(struct repair_ctx *r, u64 tree_id, u64 bytenr,
		     struct stray_set **sets, size_t *nr, size_t *alloc)
{
	struct stray_set s = { .bytenr = bytenr };
	int ret;

	s.root = repair_get_root(r, tree_id);
	if (!s.root)
		return -ENOENT;
	ret = collect(&s);
	if (ret == -E2BIG)
		refusal(r, "the leaves under the stray key pointers of node %llu hold more than %u MiB",
			(unsigned long long)bytenr, STRAY_BYTES_MAX >> 20);
	if (!ret)
		ret = look_where_they_sort(r, &s);
	if (!ret && ARRAY_RESERVE(*sets, *alloc, *nr + 1, 4))
		ret = -ENOMEM;
	if (ret) {
		stray_set_release(&s);
		return ret;
	}
	(*sets)[(*nr)++] = s;
	return 0;
}

/* the finding's tree, then every other subvolume tree that reaches the block */
static int plan_all(struct repair_ctx *r, const struct problem_ctx *p,
		    struct stray_set **sets, size_t *nr, size_t *alloc)
{
	u64 *ids = NULL;
	size_t nr_ids = 0, i;
	int ret;

	ret = plan_tree(r, p->root, p->block, sets, nr, alloc);
	if (ret < 0 || !btrfs_is_subvol_tree(p->root))
		return ret < 0 ? ret : 0;
	ret = repair_other_subvol_trees(r, p->root, &ids, &nr_ids);
	for (i = 0; !ret && i < nr_ids; i++) {
		ret = plan_tree(r, ids[i], p->block, sets, nr, alloc);
		if (ret == 1)
			ret = 0;
	}
	free(ids);
	return ret;
}

int repair_key_range(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct stray_set *sets = NULL;
	size_t nr = 0, alloc = 0, i;
	int ret;

	ret = plan_all(r, p, &sets, &nr, &alloc);
	if (!ret && !nr)
		ret = 1;	/* an earlier fix took the block out, or its strays */
	if (!ret) {
		/* every stray item out of every tree before the first goes back */
		for (i = 0; !ret && i < nr; i++)
			ret = sets[i].place.level ? take_out_of_node(r, &sets[i]) :
						    take_out_of_leaf(r, &sets[i]);
		for (i = 0; !ret && i < nr; i++)
			ret = put_back(r, &sets[i]);
		/* items taken out and not put back must never be committed */
		if (ret)
			repair_fail_pass(r, ret);
	}
	for (i = 0; !ret && i < nr; i++)
		note_moves(r, &sets[i]);
	for (i = 0; i < nr; i++)
		stray_set_release(&sets[i]);
	free(sets);
	return ret;
}
