// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree changes: copy-on-write along a search path (of blocks shared
 * with snapshots too, keeping their back references), item insertion and
 * deletion, growing and shrinking items, leaf and node splits, pushing
 * items to neighbour leaves, merging under-full blocks, growing and
 * shrinking the root.
 *
 * Leaf layout invariant (what the tree-checker demands): item headers
 * follow the block header in key order, item data is packed back to back
 * from the end of the block, item 0's data last.  Every primitive below
 * keeps it: data moves as one memmove per operation.
 *
 * Space for an insert is made top-down during the search: a node that
 * could not take two more pointers gives some to a neighbour, or is
 * split, before descending, so a leaf split (which adds at most two
 * pointers to its parent) never has to go back up.  Likewise a search
 * for a delete refills or merges under-full nodes on the way down, so
 * removing one pointer never empties a node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ctree.h"
#include "ctree-internal.h"
#include "transaction.h"
#include "extent-tree.h"

#define ITEM_HDR ((u32)sizeof(struct btrfs_item))
#define PTR_SIZE sizeof(struct btrfs_key_ptr)

/* ---- leaf primitives ---- */

static u8 *leaf_data(const struct extent_buffer *leaf)
{
	return (u8 *)leaf->data + sizeof(struct btrfs_header);
}

static u32 leaf_capacity(const struct extent_buffer *leaf)
{
	return btrfs_leaf_data_size(leaf->len);
}

static void set_nritems(struct extent_buffer *eb, u32 nr)
{
	btrfs_set_header_nritems(eb_header(eb), nr);
}

/* offset (from the data start) of the lowest item data byte */
static u32 leaf_data_end(const struct extent_buffer *leaf)
{
	u32 nr = btrfs_eb_nritems(leaf);

	return nr ? btrfs_item_offset(leaf, nr - 1) : leaf_capacity(leaf);
}

u32 btrfs_leaf_free_space(const struct extent_buffer *leaf)
{
	return leaf_data_end(leaf) - btrfs_eb_nritems(leaf) * ITEM_HDR;
}

/* bytes (headers and data) items [start, start + nr) occupy */
static u32 leaf_items_bytes(const struct extent_buffer *leaf, int start, int nr)
{
	u32 hi, lo;

	if (nr <= 0)
		return 0;
	hi = btrfs_item_offset(leaf, start) + btrfs_item_size(leaf, start);
	lo = btrfs_item_offset(leaf, start + nr - 1);
	return hi - lo + nr * ITEM_HDR;
}

static u32 leaf_used(const struct extent_buffer *leaf)
{
	return leaf_capacity(leaf) - btrfs_leaf_free_space(leaf);
}

static void leaf_first_key(const struct extent_buffer *eb, struct btrfs_key *key)
{
	if (btrfs_eb_level(eb))
		btrfs_node_key_to_cpu(eb, key, 0);
	else
		btrfs_item_key_to_cpu(eb, key, 0);
}

static void set_item(struct extent_buffer *leaf, int slot,
		     const struct btrfs_key *key, u32 offset, u32 size)
{
	struct btrfs_item *it = btrfs_item_nr(leaf, slot);

	btrfs_cpu_key_to_disk(&it->key, key);
	btrfs_set_raw_item_offset(it, offset);
	btrfs_set_raw_item_size(it, size);
}

static void shift_item_offsets(struct extent_buffer *leaf, u32 from, u32 to,
			       s64 delta)
{
	u32 i;

	for (i = from; i < to; i++) {
		struct btrfs_item *it = btrfs_item_nr(leaf, i);

		btrfs_set_raw_item_offset(it, (u32)((s64)btrfs_raw_item_offset(it) + delta));
	}
}

/*
 * Open room for @nr item headers at @slot and @total data bytes right
 * below the data of item @slot - 1.  Returns the end of that data gap;
 * the caller fills the new headers.  The leaf must have the room.
 */
static u32 leaf_make_room(struct extent_buffer *leaf, int slot, int nr, u32 total)
{
	u32 nritems = btrfs_eb_nritems(leaf);
	u32 data_end = leaf_data_end(leaf);
	u32 gap_end = slot ? btrfs_item_offset(leaf, slot - 1) : leaf_capacity(leaf);
	u8 *data = leaf_data(leaf);

	if ((u32)slot < nritems) {
		memmove(data + data_end - total, data + data_end, gap_end - data_end);
		shift_item_offsets(leaf, slot, nritems, -(s64)total);
		memmove(btrfs_item_nr(leaf, slot + nr), btrfs_item_nr(leaf, slot),
			(nritems - slot) * ITEM_HDR);
	}
	set_nritems(leaf, nritems + nr);
	return gap_end;
}

static void leaf_insert_empty(struct extent_buffer *leaf, int slot,
			      const struct btrfs_key *keys, const u32 *sizes, int nr)
{
	u32 total = 0, end;
	int i;

	for (i = 0; i < nr; i++)
		total += sizes[i];
	end = leaf_make_room(leaf, slot, nr, total);
	for (i = 0; i < nr; i++) {
		end -= sizes[i];
		set_item(leaf, slot + i, &keys[i], end, sizes[i]);
		memset(leaf_data(leaf) + end, 0, sizes[i]);
	}
}

static void leaf_delete(struct extent_buffer *leaf, int slot, int nr)
{
	u32 nritems = btrfs_eb_nritems(leaf);
	u32 data_end = leaf_data_end(leaf);
	u8 *data = leaf_data(leaf);
	u32 hi, lo, dsize;

	if (nr <= 0)
		return;
	hi = btrfs_item_offset(leaf, slot) + btrfs_item_size(leaf, slot);
	lo = btrfs_item_offset(leaf, slot + nr - 1);
	dsize = hi - lo;
	if ((u32)(slot + nr) < nritems) {
		memmove(data + data_end + dsize, data + data_end, lo - data_end);
		shift_item_offsets(leaf, slot + nr, nritems, dsize);
		memmove(btrfs_item_nr(leaf, slot), btrfs_item_nr(leaf, slot + nr),
			(nritems - slot - nr) * ITEM_HDR);
	}
	set_nritems(leaf, nritems - nr);
}

/* copy items [src_slot, src_slot + nr) of @src into @dst at @dst_slot */
static void leaf_copy_items(struct extent_buffer *dst, int dst_slot,
			    const struct extent_buffer *src, int src_slot, int nr)
{
	u32 hi, lo, total, end;
	s64 delta;
	int i;

	if (nr <= 0)
		return;
	hi = btrfs_item_offset(src, src_slot) + btrfs_item_size(src, src_slot);
	lo = btrfs_item_offset(src, src_slot + nr - 1);
	total = hi - lo;
	end = leaf_make_room(dst, dst_slot, nr, total);
	memcpy(leaf_data(dst) + end - total, leaf_data(src) + lo, total);
	delta = (s64)(end - total) - lo;
	for (i = 0; i < nr; i++) {
		struct btrfs_item *d = btrfs_item_nr(dst, dst_slot + i);

		memcpy(d, btrfs_item_nr(src, src_slot + i), ITEM_HDR);
		btrfs_set_raw_item_offset(d, (u32)((s64)btrfs_raw_item_offset(d) + delta));
	}
}

/* move items [src_slot, src_slot + nr) of @src to @dst at @dst_slot */
static void leaf_move_items(struct extent_buffer *dst, int dst_slot,
			    struct extent_buffer *src, int src_slot, int nr)
{
	leaf_copy_items(dst, dst_slot, src, src_slot, nr);
	leaf_delete(src, src_slot, nr);
}

void btrfs_extend_item(struct btrfs_path *path, u32 data_size)
{
	struct extent_buffer *leaf = path->nodes[0];
	int slot = path->slots[0];
	u32 nritems = btrfs_eb_nritems(leaf);
	u32 data_end = leaf_data_end(leaf);
	u32 off = btrfs_item_offset(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	u8 *data = leaf_data(leaf);

	memmove(data + data_end - data_size, data + data_end, off + size - data_end);
	shift_item_offsets(leaf, slot, nritems, -(s64)data_size);
	btrfs_set_raw_item_size(btrfs_item_nr(leaf, slot), size + data_size);
	memset(data + off - data_size + size, 0, data_size);
}

void btrfs_truncate_item(struct btrfs_path *path, u32 new_size, int from_end)
{
	struct extent_buffer *leaf = path->nodes[0];
	int slot = path->slots[0];
	u32 nritems = btrfs_eb_nritems(leaf);
	u32 data_end = leaf_data_end(leaf);
	u32 off = btrfs_item_offset(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	u8 *data = leaf_data(leaf);
	u32 shrink;

	if (new_size >= size)
		return;
	shrink = size - new_size;
	if (from_end) {
		/* keep the first new_size bytes: they slide up to the old end */
		memmove(data + data_end + shrink, data + data_end, off + new_size - data_end);
		shift_item_offsets(leaf, slot, nritems, shrink);
	} else {
		/* keep the last bytes, already at the old end */
		memmove(data + data_end + shrink, data + data_end, off - data_end);
		shift_item_offsets(leaf, slot, nritems, shrink);
	}
	btrfs_set_raw_item_size(btrfs_item_nr(leaf, slot), new_size);
}

void btrfs_write_item_data(struct btrfs_path *path, u32 offset,
			   const void *src, u32 len)
{
	memcpy((u8 *)btrfs_item_ptr_raw(path->nodes[0], path->slots[0]) + offset,
	       src, len);
}

/* ---- node primitives ---- */

static void set_node_ptr(struct extent_buffer *node, int slot,
			 const struct btrfs_key *key, u64 bytenr, u64 gen)
{
	struct btrfs_key_ptr *p = btrfs_key_ptr_nr(node, slot);

	btrfs_cpu_key_to_disk(&p->key, key);
	btrfs_set_key_blockptr(p, bytenr);
	btrfs_set_key_generation(p, gen);
}

static void set_node_key(struct extent_buffer *node, int slot,
			 const struct btrfs_key *key)
{
	btrfs_cpu_key_to_disk(&btrfs_key_ptr_nr(node, slot)->key, key);
}

static void node_insert_ptr(struct extent_buffer *node, int slot,
			    const struct btrfs_key *key, u64 bytenr, u64 gen)
{
	u32 nritems = btrfs_eb_nritems(node);

	if ((u32)slot < nritems)
		memmove(btrfs_key_ptr_nr(node, slot + 1), btrfs_key_ptr_nr(node, slot),
			(nritems - slot) * PTR_SIZE);
	set_node_ptr(node, slot, key, bytenr, gen);
	set_nritems(node, nritems + 1);
}

static void node_delete_ptrs(struct extent_buffer *node, int slot, int nr)
{
	u32 nritems = btrfs_eb_nritems(node);

	if ((u32)(slot + nr) < nritems)
		memmove(btrfs_key_ptr_nr(node, slot), btrfs_key_ptr_nr(node, slot + nr),
			(nritems - slot - nr) * PTR_SIZE);
	set_nritems(node, nritems - nr);
}

static void node_copy_ptrs(struct extent_buffer *dst, int dst_slot,
			   const struct extent_buffer *src, int src_slot, int nr)
{
	u32 nritems = btrfs_eb_nritems(dst);

	if ((u32)dst_slot < nritems)
		memmove(btrfs_key_ptr_nr(dst, dst_slot + nr), btrfs_key_ptr_nr(dst, dst_slot),
			(nritems - dst_slot) * PTR_SIZE);
	memcpy(btrfs_key_ptr_nr(dst, dst_slot), btrfs_key_ptr_nr(src, src_slot),
	       nr * PTR_SIZE);
	set_nritems(dst, nritems + nr);
}

/* ---- copy on write ---- */

static bool root_is_shareable(const struct btrfs_root *root)
{
	u64 id = root->root_key.objectid;

	return id == BTRFS_FS_TREE_OBJECTID || id == BTRFS_TREE_RELOC_OBJECTID ||
	       id == BTRFS_DATA_RELOC_TREE_OBJECTID ||
	       (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID);
}

/*
 * Whether @eb may be referenced by more than one tree, so that its
 * reference count must be looked up: only blocks of subvolume trees
 * that existed when the tree was last snapshotted (or that another tree
 * owns) can be; the root node never is.
 */
static bool block_can_be_shared(const struct btrfs_root *root,
				const struct extent_buffer *eb)
{
	const struct btrfs_header *h = eb_header(eb);

	if (!root_is_shareable(root) || eb == root->node)
		return false;
	if (btrfs_header_owner(h) != root->root_key.objectid)
		return true;
	return btrfs_header_generation(h) <=
	       btrfs_root_last_snapshot(&root->root_item);
}

/*
 * Add (@delta 1) or drop (-1) the references @eb's pointers hold: tree
 * blocks for a node, data extents of the file extent items for a leaf.
 * Keyed for @eb's owner, or shared with @eb as parent (@full_backref).
 */
static int mod_child_refs(struct btrfs_trans_handle *trans,
			  const struct extent_buffer *eb, bool full_backref,
			  int delta)
{
	u64 owner = btrfs_header_owner(eb_header(eb));
	u64 parent = full_backref ? eb->start : 0;
	int level = btrfs_eb_level(eb);
	u32 i, nr = btrfs_eb_nritems(eb);
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		struct btrfs_file_extent_item *fi;
		struct btrfs_key key;
		u64 bytenr, len;

		if (level) {
			ret = btrfs_mod_tree_ref(trans, btrfs_node_blockptr(eb, i),
						 level - 1, owner, parent, delta);
			continue;
		}
		btrfs_item_key_to_cpu(eb, &key, i);
		if (key.type != BTRFS_EXTENT_DATA_KEY ||
		    btrfs_item_size(eb, i) < sizeof(*fi))
			continue;
		fi = btrfs_item_ptr(eb, i, struct btrfs_file_extent_item);
		if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
			continue;
		bytenr = btrfs_file_extent_disk_bytenr(fi);
		len = btrfs_file_extent_disk_num_bytes(fi);
		if (!bytenr)
			continue;
		if (full_backref)
			ret = btrfs_mod_shared_data_ref(trans, bytenr, len, parent, delta);
		else if (delta > 0)
			ret = btrfs_inc_data_ref(trans, bytenr, len, owner, key.objectid,
						 key.offset - btrfs_file_extent_offset(fi));
		else
			ret = btrfs_dec_data_ref(trans, bytenr, len, owner, key.objectid,
						 key.offset - btrfs_file_extent_offset(fi));
	}
	return ret;
}

/*
 * Back references for copying @buf to @cow in @root, as btrfs keeps
 * them.  A block other trees share (refs > 1) stays: when @root owns it
 * and it still relies on its owner's keyed refs, it switches to
 * FULL_BACKREF (its children gain refs from it as parent; the owner's
 * keyed refs now belong to @cow); otherwise @cow's children gain keyed
 * refs of @root.  A block only @root uses goes (*last_ref): when it was
 * FULL_BACKREF its children's refs from it move to keyed refs of @cow.
 */
static int update_ref_for_cow(struct btrfs_trans_handle *trans,
			      struct btrfs_root *root, struct extent_buffer *buf,
			      struct extent_buffer *cow, bool *last_ref)
{
	u64 owner = btrfs_header_owner(eb_header(buf));
	u64 rid = root->root_key.objectid;
	u64 refs = 1, flags = 0;
	int ret;

	*last_ref = false;
	if (block_can_be_shared(root, buf)) {
		ret = btrfs_lookup_tree_block_refs(trans->fs_info, buf->start, &refs,
						   &flags);
		if (ret == -ENOENT) {
			btrfs_err(&trans->fs_info->reporter,
				  "tree block %llu of root %llu has no extent item",
				  (unsigned long long)buf->start, (unsigned long long)rid);
			return -EUCLEAN;
		}
		if (ret)
			return ret;
	}
	if (refs > 1) {
		if (owner == rid && !(flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
			ret = mod_child_refs(trans, buf, true, 1);
			if (!ret)
				ret = btrfs_set_tree_block_flags(trans, buf->start,
						btrfs_eb_level(buf),
						BTRFS_BLOCK_FLAG_FULL_BACKREF);
			return ret;
		}
		return mod_child_refs(trans, cow, false, 1);
	}
	if (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF) {
		ret = mod_child_refs(trans, cow, false, 1);
		if (!ret)
			ret = mod_child_refs(trans, buf, true, -1);
		if (ret)
			return ret;
	} else if (owner != rid && root_is_shareable(root)) {
		btrfs_err(&trans->fs_info->reporter,
			  "tree block %llu: owner %llu, reached from root %llu with one reference and no full backref",
			  (unsigned long long)buf->start, (unsigned long long)owner,
			  (unsigned long long)rid);
		return -EUCLEAN;
	}
	*last_ref = true;
	return 0;
}

static bool block_needs_cow(const struct btrfs_trans_handle *trans,
			    const struct extent_buffer *eb)
{
	return btrfs_eb_generation(eb) != trans->transid ||
	       (btrfs_header_flags(eb_header(eb)) & BTRFS_HEADER_FLAG_WRITTEN) ||
	       !(eb->flags & EXTENT_BUFFER_DIRTY);
}

static void root_set_node(struct btrfs_trans_handle *trans,
			  struct btrfs_root *root, struct extent_buffer *eb)
{
	struct extent_buffer *old = root->node;

	root->node = extent_buffer_get(eb);
	free_extent_buffer(old);
	btrfs_root_mark_dirty(trans->fs_info, root);
}

static int cow_block(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     struct extent_buffer *buf, struct extent_buffer *parent,
		     int parent_slot, struct extent_buffer **cow_ret);

int btrfs_cow_block(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		    struct extent_buffer *buf, struct extent_buffer *parent,
		    int parent_slot, struct extent_buffer **cow_ret)
{
	int ret;

	if (!block_needs_cow(trans, buf)) {
		*cow_ret = extent_buffer_get(buf);
		return 0;
	}
	/* @buf may be root->node, whose reference root_set_node() drops */
	extent_buffer_get(buf);
	ret = cow_block(trans, root, buf, parent, parent_slot, cow_ret);
	free_extent_buffer(buf);
	return ret;
}

/* a copy of @buf at a new address, owned by @owner, dirty */
static struct extent_buffer *copy_block(struct btrfs_trans_handle *trans,
					struct btrfs_root *owner,
					const struct extent_buffer *buf, int *err)
{
	struct btrfs_key first = { 0, 0, 0 };
	struct extent_buffer *cow;
	struct btrfs_header *h;
	u64 flags;

	if (btrfs_eb_nritems(buf))
		leaf_first_key(buf, &first);
	cow = btrfs_alloc_tree_block(trans, owner, btrfs_eb_level(buf), &first, err);
	if (!cow)
		return NULL;
	memcpy(cow->data, buf->data, buf->len);
	h = eb_header(cow);
	btrfs_set_header_bytenr(h, cow->start);
	btrfs_set_header_generation(h, trans->transid);
	btrfs_set_header_owner(h, owner->root_key.objectid);
	flags = btrfs_header_flags(h);
	flags &= ~(BTRFS_HEADER_FLAG_WRITTEN | BTRFS_HEADER_FLAG_RELOC |
		   BTRFS_BACKREF_REV_MASK);
	flags |= (u64)BTRFS_MIXED_BACKREF_REV << BTRFS_BACKREF_REV_SHIFT;
	btrfs_set_header_flags(h, flags);
	return cow;
}

static int cow_block(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     struct extent_buffer *buf, struct extent_buffer *parent,
		     int parent_slot, struct extent_buffer **cow_ret)
{
	struct extent_buffer *cow;
	bool last_ref;
	int ret;

	if (root_is_shareable(root) &&
	    btrfs_header_backref_rev(eb_header(buf)) < BTRFS_MIXED_BACKREF_REV) {
		btrfs_err(&trans->fs_info->reporter,
			  "tree block %llu of root %llu uses old back references: not supported",
			  (unsigned long long)buf->start,
			  (unsigned long long)root->root_key.objectid);
		return -EOPNOTSUPP;
	}
	cow = copy_block(trans, root, buf, &ret);
	if (!cow)
		return ret;
	ret = update_ref_for_cow(trans, root, buf, cow, &last_ref);
	if (ret)
		goto out_free;
	if (!parent) {
		root_set_node(trans, root, cow);
	} else {
		struct btrfs_key_ptr *p = btrfs_key_ptr_nr(parent, parent_slot);

		btrfs_set_key_blockptr(p, cow->start);
		btrfs_set_key_generation(p, trans->transid);
		btrfs_mark_buffer_dirty(trans, parent);
	}
	if (last_ref)
		ret = btrfs_free_tree_block(trans, root, buf);
	else
		ret = btrfs_mod_tree_ref(trans, buf->start, btrfs_eb_level(buf),
					 root->root_key.objectid, 0, -1);
	if (ret)
		goto out_free;
	*cow_ret = cow;
	return 0;
out_free:
	free_extent_buffer(cow);
	return ret;
}

int btrfs_snapshot_tree(struct btrfs_trans_handle *trans, struct btrfs_root *src,
			struct btrfs_root *dst)
{
	struct extent_buffer *copy, *old = dst->node;
	int ret;

	if (!src->node || !old || !root_is_shareable(src) || !root_is_shareable(dst))
		return -EINVAL;
	/* blocks changed in this transaction would be shared yet changed in place */
	if (btrfs_eb_generation(src->node) == trans->transid ||
	    btrfs_eb_level(old) || btrfs_eb_nritems(old))
		return -EBUSY;
	copy = copy_block(trans, dst, src->node, &ret);
	if (!copy)
		return ret;
	ret = mod_child_refs(trans, copy, false, 1);
	if (!ret) {
		extent_buffer_get(old);
		root_set_node(trans, dst, copy);
		ret = btrfs_free_tree_block(trans, dst, old);
		free_extent_buffer(old);
	}
	free_extent_buffer(copy);
	if (ret)
		return ret;
	btrfs_set_root_last_snapshot(&src->root_item, trans->transid);
	btrfs_set_root_last_snapshot(&dst->root_item, trans->transid);
	btrfs_root_mark_dirty(trans->fs_info, src);
	btrfs_root_mark_dirty(trans->fs_info, dst);
	return 0;
}

/* read child @slot of @parent and copy it on write */
static struct extent_buffer *cow_child(struct btrfs_trans_handle *trans,
				       struct btrfs_root *root,
				       struct extent_buffer *parent, int slot,
				       int *err)
{
	struct extent_buffer *child, *cow;

	child = btrfs_read_node_slot(parent, slot, err);
	if (!child)
		return NULL;
	*err = btrfs_cow_block(trans, root, child, parent, slot, &cow);
	free_extent_buffer(child);
	return *err ? NULL : cow;
}

static void path_set_node(struct btrfs_path *p, int level, struct extent_buffer *eb)
{
	free_extent_buffer(p->nodes[level]);
	p->nodes[level] = eb;
}

/* the first key of the block at @level changed: fix the parents' keys */
static void fixup_low_keys(struct btrfs_path *path, const struct btrfs_key *key,
			   int level)
{
	int i;

	for (i = level; i < BTRFS_MAX_LEVEL; i++) {
		if (!path->nodes[i])
			break;
		set_node_key(path->nodes[i], path->slots[i], key);
		if (path->slots[i] != 0)
			break;
	}
}

/* a new root one level above the current root, pointing at it */
static int insert_new_root(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   struct btrfs_path *path, int level)
{
	struct extent_buffer *lower = path->nodes[level];
	struct btrfs_key key = { 0, 0, 0 };
	struct extent_buffer *c;
	int ret;

	if (level + 1 >= BTRFS_MAX_LEVEL)
		return -EOVERFLOW;
	if (btrfs_eb_nritems(lower))
		leaf_first_key(lower, &key);
	c = btrfs_alloc_tree_block(trans, root, level + 1, &key, &ret);
	if (!c)
		return ret;
	set_node_ptr(c, 0, &key, lower->start, btrfs_eb_generation(lower));
	set_nritems(c, 1);
	root_set_node(trans, root, c);
	path_set_node(path, level + 1, c);
	path->slots[level + 1] = 0;
	return 0;
}

/* insert a pointer into the node at @level (it has room) */
static void insert_ptr(struct btrfs_trans_handle *trans, struct btrfs_path *path,
		       int level, int slot, const struct btrfs_key *key, u64 bytenr)
{
	node_insert_ptr(path->nodes[level], slot, key, bytenr, trans->transid);
}

static int free_block(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct extent_buffer *eb)
{
	return btrfs_free_tree_block(trans, root, eb);
}

/*
 * Remove pointer @slot from the node at @level.  A node left empty leaves
 * its parent in turn; an emptied root becomes an empty leaf.
 */
static int del_ptr(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		   struct btrfs_path *path, int level, int slot)
{
	struct extent_buffer *node = path->nodes[level];
	struct btrfs_key key;
	int ret;

	node_delete_ptrs(node, slot, 1);
	if (btrfs_eb_nritems(node)) {
		if (slot == 0) {
			btrfs_node_key_to_cpu(node, &key, 0);
			fixup_low_keys(path, &key, level + 1);
		}
		return 0;
	}
	if (level + 1 < BTRFS_MAX_LEVEL && path->nodes[level + 1]) {
		ret = del_ptr(trans, root, path, level + 1, path->slots[level + 1]);
		if (ret)
			return ret;
		return free_block(trans, root, node);
	}
	/* the whole tree is gone: an empty leaf is the root */
	{
		struct extent_buffer *leaf;

		leaf = btrfs_alloc_tree_block(trans, root, 0, NULL, &ret);
		if (!leaf)
			return ret;
		root_set_node(trans, root, leaf);
		free_extent_buffer(leaf);
		return free_block(trans, root, node);
	}
}

/* ---- making room for an insert ---- */

/*
 * Before splitting the full node at @level for an insert, move pointers
 * to a neighbour with room: half the difference, so both end about as
 * full.  The path follows the insert position.  0 when the node now has
 * room for the split below it, 1 when no neighbour could help, <0 error.
 */
static bool node_has_room(const struct extent_buffer *node)
{
	return btrfs_eb_nritems(node) + 3 < btrfs_max_node_ptrs(node->len);
}

static int push_node_left(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level + 1];
	struct extent_buffer *node = path->nodes[level];
	int pslot = path->slots[level + 1];
	int n = btrfs_eb_nritems(node), ln, k, ret;
	struct extent_buffer *left, *cow;
	struct btrfs_key key;

	if (pslot == 0)
		return 1;
	left = btrfs_read_node_slot(parent, pslot - 1, &ret);
	if (!left)
		return ret;
	ln = btrfs_eb_nritems(left);
	k = (n - ln) / 2;
	if (k < 4) {
		free_extent_buffer(left);
		return 1;
	}
	ret = btrfs_cow_block(trans, root, left, parent, pslot - 1, &cow);
	free_extent_buffer(left);
	if (ret)
		return ret;
	node_copy_ptrs(cow, ln, node, 0, k);
	node_delete_ptrs(node, 0, k);
	btrfs_node_key_to_cpu(node, &key, 0);
	fixup_low_keys(path, &key, level + 1);
	if (path->slots[level] < k) {
		path->slots[level] += ln;
		path->slots[level + 1] = pslot - 1;
		path_set_node(path, level, cow);
	} else {
		path->slots[level] -= k;
		free_extent_buffer(cow);
	}
	return 0;
}

static int push_node_right(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level + 1];
	struct extent_buffer *node = path->nodes[level];
	int pslot = path->slots[level + 1];
	int n = btrfs_eb_nritems(node), rn, k, ret;
	struct extent_buffer *right, *cow;
	struct btrfs_key key;

	if (pslot + 1 >= (int)btrfs_eb_nritems(parent))
		return 1;
	right = btrfs_read_node_slot(parent, pslot + 1, &ret);
	if (!right)
		return ret;
	rn = btrfs_eb_nritems(right);
	k = (n - rn) / 2;
	if (k < 4) {
		free_extent_buffer(right);
		return 1;
	}
	ret = btrfs_cow_block(trans, root, right, parent, pslot + 1, &cow);
	free_extent_buffer(right);
	if (ret)
		return ret;
	node_copy_ptrs(cow, 0, node, n - k, k);
	set_nritems(node, n - k);
	btrfs_node_key_to_cpu(cow, &key, 0);
	set_node_key(parent, pslot + 1, &key);
	if (path->slots[level] >= n - k) {
		path->slots[level] -= n - k;
		path->slots[level + 1] = pslot + 1;
		path_set_node(path, level, cow);
	} else {
		free_extent_buffer(cow);
	}
	return 0;
}

static int push_node_sideways(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			      struct btrfs_path *path, int level)
{
	int ret;

	if (!path->nodes[level + 1])
		return 1;
	ret = push_node_left(trans, root, path, level);
	if (ret <= 0 && (ret < 0 || node_has_room(path->nodes[level])))
		return ret;
	ret = push_node_right(trans, root, path, level);
	if (ret <= 0 && (ret < 0 || node_has_room(path->nodes[level])))
		return ret;
	return 1;
}

static int split_node(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct btrfs_path *path, int level)
{
	struct extent_buffer *c = path->nodes[level];
	struct extent_buffer *split;
	struct btrfs_key key;
	u32 nritems = btrfs_eb_nritems(c);
	u32 mid;
	int ret;

	ret = push_node_sideways(trans, root, path, level);
	if (ret <= 0)
		return ret;
	c = path->nodes[level];
	nritems = btrfs_eb_nritems(c);
	mid = (nritems + 1) / 2;
	if (!path->nodes[level + 1]) {
		ret = insert_new_root(trans, root, path, level);
		if (ret)
			return ret;
	}
	btrfs_node_key_to_cpu(c, &key, mid);
	split = btrfs_alloc_tree_block(trans, root, level, &key, &ret);
	if (!split)
		return ret;
	node_copy_ptrs(split, 0, c, mid, nritems - mid);
	set_nritems(c, mid);
	insert_ptr(trans, path, level + 1, path->slots[level + 1] + 1, &key, split->start);
	if ((u32)path->slots[level] >= mid) {
		path->slots[level] -= mid;
		path_set_node(path, level, split);
		path->slots[level + 1]++;
	} else {
		free_extent_buffer(split);
	}
	return 0;
}

/*
 * Move trailing items of the path's leaf to its right neighbour so that
 * @need bytes become free where the insert (or extension) happens.
 * 0 done, 1 not possible, <0 error.
 */
static int push_leaf_right(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   struct btrfs_path *path, u32 need, bool extend)
{
	struct extent_buffer *parent = path->nodes[1];
	struct extent_buffer *leaf = path->nodes[0];
	int pslot = path->slots[1], slot = path->slots[0];
	int nritems = btrfs_eb_nritems(leaf);
	struct extent_buffer *right, *cow;
	u32 rfree, free_now, moved = 0;
	int k, lowest, ret;
	struct btrfs_key key;

	if (pslot + 1 >= (int)btrfs_eb_nritems(parent))
		return 1;
	right = btrfs_read_node_slot(parent, pslot + 1, &ret);
	if (!right)
		return ret;
	rfree = btrfs_leaf_free_space(right);
	free_now = btrfs_leaf_free_space(leaf);
	if (!extend && slot == nritems && rfree >= need) {
		/* appending past the end: the item can start the right leaf */
		k = nritems;
	} else {
		lowest = extend ? slot + 1 : slot;
		for (k = nritems; k > lowest && free_now + moved < need; k--)
			moved = leaf_items_bytes(leaf, k - 1, nritems - k + 1);
		if (free_now + moved < need || moved > rfree || k == nritems) {
			free_extent_buffer(right);
			return 1;
		}
	}
	ret = btrfs_cow_block(trans, root, right, parent, pslot + 1, &cow);
	free_extent_buffer(right);
	if (ret)
		return ret;
	right = cow;
	if (k < nritems) {
		leaf_move_items(right, 0, leaf, k, nritems - k);
		btrfs_item_key_to_cpu(right, &key, 0);
		set_node_key(parent, pslot + 1, &key);
		free_extent_buffer(right);
		return 0;
	}
	/* the new item goes first in the right leaf */
	path_set_node(path, 0, right);
	path->slots[0] = 0;
	path->slots[1] = pslot + 1;
	return 0;
}

/* like push_leaf_right, with leading items and the left neighbour */
static int push_leaf_left(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  struct btrfs_path *path, u32 need, bool extend)
{
	struct extent_buffer *parent = path->nodes[1];
	struct extent_buffer *leaf = path->nodes[0];
	int pslot = path->slots[1], slot = path->slots[0];
	int nritems = btrfs_eb_nritems(leaf);
	struct extent_buffer *left, *cow;
	u32 lfree, free_now, moved = 0;
	int k, ret;
	struct btrfs_key key;

	if (pslot == 0)
		return 1;
	left = btrfs_read_node_slot(parent, pslot - 1, &ret);
	if (!left)
		return ret;
	lfree = btrfs_leaf_free_space(left);
	free_now = btrfs_leaf_free_space(leaf);
	if (!extend && slot == 0 && lfree >= need) {
		k = 0;
	} else {
		for (k = 0; k < slot && k < nritems - 1 && free_now + moved < need; k++)
			moved = leaf_items_bytes(leaf, 0, k + 1);
		if (free_now + moved < need || moved > lfree || k == 0) {
			free_extent_buffer(left);
			return 1;
		}
	}
	ret = btrfs_cow_block(trans, root, left, parent, pslot - 1, &cow);
	free_extent_buffer(left);
	if (ret)
		return ret;
	left = cow;
	if (k) {
		leaf_move_items(left, btrfs_eb_nritems(left), leaf, 0, k);
		btrfs_item_key_to_cpu(leaf, &key, 0);
		fixup_low_keys(path, &key, 1);
		path->slots[0] -= k;
		free_extent_buffer(left);
		return 0;
	}
	/* the new item goes last in the left leaf */
	path->slots[0] = btrfs_eb_nritems(left);
	path_set_node(path, 0, left);
	path->slots[1] = pslot - 1;
	return 0;
}

/*
 * Split the path's leaf: items [mid, n) go to a new right leaf.  The path
 * follows the insert position: to the right leaf at @new_slot when
 * @to_right.  @right_key is the key the right leaf is known by when it
 * receives no item (an insert past the end).
 */
static int split_leaf_at(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 struct btrfs_path *path, int mid, bool to_right,
			 int new_slot, const struct btrfs_key *right_key)
{
	struct extent_buffer *leaf = path->nodes[0];
	int nritems = btrfs_eb_nritems(leaf);
	struct extent_buffer *right;
	struct btrfs_key key;
	int ret;

	if (mid < nritems)
		btrfs_item_key_to_cpu(leaf, &key, mid);
	else
		key = *right_key;
	right = btrfs_alloc_tree_block(trans, root, 0, &key, &ret);
	if (!right)
		return ret;
	leaf_move_items(right, 0, leaf, mid, nritems - mid);
	insert_ptr(trans, path, 1, path->slots[1] + 1, &key, right->start);
	if (to_right) {
		path_set_node(path, 0, right);
		path->slots[0] = new_slot;
		path->slots[1]++;
	} else {
		free_extent_buffer(right);
	}
	return 0;
}

/*
 * Choose where to split so that both leaves fit, the grown (extend) or
 * new (insert) item included, preferring halves of equal size; sequential
 * inserts at either end leave the full leaf alone.  Returns -1 when no
 * two-leaf split works (the item then gets a leaf of its own).
 */
static int choose_split(const struct extent_buffer *leaf, int slot, u32 need,
			bool extend, int *mid_ret, bool *to_right, int *new_slot)
{
	int nritems = btrfs_eb_nritems(leaf);
	u32 cap = leaf_capacity(leaf);
	int m = extend ? nritems : nritems + 1;
	u64 total = leaf_used(leaf) + need, left = 0, best_cost = (u64)-1;
	int i, best = -1;

	for (i = 1; i < m; i++) {
		u64 right, cost;
		int j = i - 1;	/* virtual item joining the left side */

		if (extend)
			left += btrfs_item_size(leaf, j) + ITEM_HDR + (j == slot ? need : 0);
		else if (j == slot)
			left += need;
		else
			left += btrfs_item_size(leaf, j < slot ? j : j - 1) + ITEM_HDR;
		right = total - left;
		if (left > cap || right > cap)
			continue;
		cost = left > right ? left : right;
		if (!extend && slot == nritems && i == nritems)
			cost = 0;	/* appending: keep the full leaf */
		if (!extend && slot == 0 && i == 1)
			cost = 0;	/* prepending */
		if (cost < best_cost) {
			best_cost = cost;
			best = i;
		}
	}
	if (best < 0)
		return -1;
	if (extend) {
		*mid_ret = best;
		*to_right = slot >= best;
		*new_slot = slot - best;
	} else if (best <= slot) {
		*mid_ret = best;
		*to_right = true;
		*new_slot = slot - best;
	} else {
		*mid_ret = best - 1;
		*to_right = false;
		*new_slot = slot;
	}
	return 0;
}

static int split_leaf(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *ins_key, struct btrfs_path *path,
		      u32 need, bool extend)
{
	int tries, ret;

	/* an item that cannot grow that much in any leaf: change nothing */
	if (extend && (u64)btrfs_item_size(path->nodes[0], path->slots[0]) + need >
	    leaf_capacity(path->nodes[0]) - ITEM_HDR)
		return -EOVERFLOW;
	for (tries = 0; tries < 4; tries++) {
		struct extent_buffer *leaf = path->nodes[0];
		int slot = path->slots[0];
		int mid, new_slot;
		bool to_right;

		if (btrfs_leaf_free_space(leaf) >= need)
			return 0;
		if (!path->nodes[1]) {
			ret = insert_new_root(trans, root, path, 0);
			if (ret)
				return ret;
		}
		if (tries == 0) {
			ret = push_leaf_right(trans, root, path, need, extend);
			if (ret <= 0) {
				if (ret == 0 && btrfs_leaf_free_space(path->nodes[0]) < need)
					continue;
				return ret;
			}
			ret = push_leaf_left(trans, root, path, need, extend);
			if (ret < 0)
				return ret;
			if (ret == 0)
				continue;
		}
		if (choose_split(leaf, slot, need, extend, &mid, &to_right, &new_slot) == 0)
			return split_leaf_at(trans, root, path, mid, to_right,
					     new_slot, ins_key);
		/*
		 * Isolate the item: split right at it, then again.  Never at
		 * slot 0, which would leave an empty leaf behind; choose_split
		 * always finds a way there for an item that fits a leaf.
		 */
		if (slot == 0)
			return -ENOSPC;
		ret = split_leaf_at(trans, root, path, slot, true, 0, ins_key);
		if (ret)
			return ret;
	}
	return btrfs_leaf_free_space(path->nodes[0]) >= need ? 0 : -ENOSPC;
}

/* ---- keeping nodes full enough for a delete ---- */

static int node_min_items(const struct extent_buffer *node)
{
	return btrfs_max_node_ptrs(node->len) / 4;
}

/* the root node has one pointer: its child becomes the root */
static int shrink_root(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		       struct btrfs_path *path, int level)
{
	struct extent_buffer *node = path->nodes[level];
	struct extent_buffer *child;
	int ret;

	child = cow_child(trans, root, node, 0, &ret);
	if (!child)
		return ret;
	root_set_node(trans, root, child);
	free_extent_buffer(child);
	return free_block(trans, root, node);
}

static int merge_or_refill_from_left(struct btrfs_trans_handle *trans,
				     struct btrfs_root *root,
				     struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level + 1];
	struct extent_buffer *node = path->nodes[level];
	int pslot = path->slots[level + 1];
	int max = btrfs_max_node_ptrs(node->len);
	int n = btrfs_eb_nritems(node), ln, ret;
	struct extent_buffer *left;
	struct btrfs_key key;

	left = cow_child(trans, root, parent, pslot - 1, &ret);
	if (!left)
		return ret;
	ln = btrfs_eb_nritems(left);
	if (ln + n <= max - max / 4) {
		node_copy_ptrs(left, ln, node, 0, n);
		set_nritems(node, 0);
		ret = del_ptr(trans, root, path, level + 1, pslot);
		if (!ret)
			ret = free_block(trans, root, node);
		path_set_node(path, level, left);
		path->slots[level] += ln;
		path->slots[level + 1] = pslot - 1;
		return ret;
	}
	if (ln > n + 1) {
		int k = (ln - n) / 2;

		node_copy_ptrs(node, 0, left, ln - k, k);
		set_nritems(left, ln - k);
		btrfs_node_key_to_cpu(node, &key, 0);
		fixup_low_keys(path, &key, level + 1);
		path->slots[level] += k;
	}
	free_extent_buffer(left);
	return 0;
}

static int merge_or_refill_from_right(struct btrfs_trans_handle *trans,
				      struct btrfs_root *root,
				      struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level + 1];
	struct extent_buffer *node = path->nodes[level];
	int pslot = path->slots[level + 1];
	int max = btrfs_max_node_ptrs(node->len);
	int n = btrfs_eb_nritems(node), rn, ret;
	struct extent_buffer *right;
	struct btrfs_key key;

	right = cow_child(trans, root, parent, pslot + 1, &ret);
	if (!right)
		return ret;
	rn = btrfs_eb_nritems(right);
	if (n + rn <= max - max / 4) {
		node_copy_ptrs(node, n, right, 0, rn);
		set_nritems(right, 0);
		ret = del_ptr(trans, root, path, level + 1, pslot + 1);
		if (!ret)
			ret = free_block(trans, root, right);
		free_extent_buffer(right);
		return ret;
	}
	if (rn > n + 1) {
		int k = (rn - n) / 2;

		node_copy_ptrs(node, n, right, 0, k);
		node_delete_ptrs(right, 0, k);
		btrfs_node_key_to_cpu(right, &key, 0);
		set_node_key(parent, pslot + 1, &key);
	}
	free_extent_buffer(right);
	return 0;
}

/*
 * Before descending through the node at @level for a delete: a root with
 * one pointer is replaced by its child (-EAGAIN: search again), a node
 * with few pointers merges with or borrows from a neighbour.
 */
static int balance_node(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			struct btrfs_path *path, int level)
{
	struct extent_buffer *node = path->nodes[level];
	struct extent_buffer *parent = path->nodes[level + 1];
	int n = btrfs_eb_nritems(node);
	int min = node_min_items(node);
	int ret;

	if (!parent) {
		if (n != 1)
			return 0;
		ret = shrink_root(trans, root, path, level);
		return ret ? ret : -EAGAIN;
	}
	if (n > min)
		return 0;
	if (path->slots[level + 1] > 0) {
		ret = merge_or_refill_from_left(trans, root, path, level);
		if (ret || (int)btrfs_eb_nritems(path->nodes[level]) > min)
			return ret;
	}
	if (path->slots[level + 1] + 1 < (int)btrfs_eb_nritems(parent))
		return merge_or_refill_from_right(trans, root, path, level);
	return 0;
}

/* ---- search with copy on write ---- */

static int search_cow_once(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   const struct btrfs_key *key, struct btrfs_path *p,
			   int ins_len)
{
	struct extent_buffer *b;
	int ret, level, slot, err;

	err = btrfs_cow_block(trans, root, root->node, NULL, 0, &b);
	if (err)
		return err;
	for (;;) {
		level = btrfs_eb_level(b);
		path_set_node(p, level, b);
		ret = btrfs_bin_search(b, key, &slot);
		if (level == 0) {
			p->slots[0] = slot;
			if (ins_len > 0 && btrfs_leaf_free_space(b) < (u32)ins_len) {
				err = split_leaf(trans, root, key, p, ins_len, ret == 0);
				/*
				 * The key is there but its item cannot grow by
				 * @ins_len: still a successful search (an insert
				 * then says EEXIST), without the room; whoever
				 * extends checks btrfs_leaf_free_space().
				 */
				if (err == -EOVERFLOW && ret == 0)
					err = 0;
				if (err)
					return err;
			}
			return ret;
		}
		if (ret && slot > 0)
			slot--;
		p->slots[level] = slot;
		if (ins_len > 0 &&
		    btrfs_eb_nritems(b) + 3 >= btrfs_max_node_ptrs(b->len)) {
			err = split_node(trans, root, p, level);
		} else if (ins_len < 0) {
			err = balance_node(trans, root, p, level);
		}
		if (err)
			return err;
		b = p->nodes[level];
		slot = p->slots[level];
		if (level <= p->lowest_level)
			return ret;
		b = cow_child(trans, root, b, slot, &err);
		if (!b)
			return err;
	}
}

int btrfs_search_slot_cow(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const struct btrfs_key *key, struct btrfs_path *path,
			  int ins_len)
{
	int ret, tries;

	if (!root->node)
		return -EIO;
	if (trans->aborted)
		return -EROFS;
	for (tries = 0; tries < BTRFS_MAX_LEVEL + 1; tries++) {
		ret = search_cow_once(trans, root, key, path, ins_len);
		if (ret != -EAGAIN)
			return ret;
		btrfs_release_path(path);
	}
	return -EIO;
}

/* ---- items ---- */

int btrfs_insert_empty_items(struct btrfs_trans_handle *trans,
			     struct btrfs_root *root, struct btrfs_path *path,
			     const struct btrfs_item_batch *batch)
{
	struct extent_buffer *leaf;
	u64 total = 0;
	int i, ret, slot;

	if (batch->nr <= 0)
		return -EINVAL;
	for (i = 0; i < batch->nr; i++) {
		total += batch->data_sizes[i] + ITEM_HDR;
		if (i && btrfs_comp_cpu_keys(&batch->keys[i - 1], &batch->keys[i]) >= 0)
			return -EINVAL;
		ret = btrfs_key_guard_check(trans, root, &batch->keys[i]);
		if (ret)
			return ret;
	}
	if (total > btrfs_leaf_data_size(trans->fs_info->nodesize))
		return -EOVERFLOW;
	ret = btrfs_search_slot(trans, root, &batch->keys[0], path, (int)total, 1);
	if (ret == 0)
		return -EEXIST;
	if (ret < 0)
		return ret;
	leaf = path->nodes[0];
	slot = path->slots[0];
	if (slot < (int)btrfs_eb_nritems(leaf)) {
		struct btrfs_key next;

		btrfs_item_key_to_cpu(leaf, &next, slot);
		if (btrfs_comp_cpu_keys(&batch->keys[batch->nr - 1], &next) >= 0)
			return -EEXIST;
	}
	leaf_insert_empty(leaf, slot, batch->keys, batch->data_sizes, batch->nr);
	if (slot == 0)
		fixup_low_keys(path, &batch->keys[0], 1);
	return 0;
}

int btrfs_insert_empty_item(struct btrfs_trans_handle *trans,
			    struct btrfs_root *root, struct btrfs_path *path,
			    const struct btrfs_key *key, u32 data_size)
{
	struct btrfs_item_batch batch = { key, &data_size, 1 };

	return btrfs_insert_empty_items(trans, root, path, &batch);
}

int btrfs_insert_or_extend_item(struct btrfs_trans_handle *trans,
				struct btrfs_root *root, struct btrfs_path *path,
				const struct btrfs_key *key, u32 len, u32 *off)
{
	u32 size;
	int ret;

	*off = 0;
	ret = btrfs_insert_empty_item(trans, root, path, key, len);
	if (ret != -EEXIST)
		return ret;
	/* the path is at the existing item, with the room when it can grow */
	size = btrfs_item_size(path->nodes[0], path->slots[0]);
	if ((u64)size + len > btrfs_leaf_max_item_size(trans->fs_info->nodesize)) {
		btrfs_release_path(path);
		return -EOVERFLOW;
	}
	if (btrfs_leaf_free_space(path->nodes[0]) < len) {
		btrfs_release_path(path);
		ret = btrfs_search_slot(trans, root, key, path, (int)len, 1);
		if (ret > 0)
			ret = -ENOENT;
		if (!ret && btrfs_leaf_free_space(path->nodes[0]) < len)
			ret = -ENOSPC;
		if (ret) {
			btrfs_release_path(path);
			return ret;
		}
	}
	btrfs_extend_item(path, len);
	*off = size;
	return 0;
}

int btrfs_insert_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, const void *data, u32 data_size)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_insert_empty_item(trans, root, &path, key, data_size);
	if (!ret && data_size)
		btrfs_write_item_data(&path, 0, data, data_size);
	btrfs_release_path(&path);
	return ret;
}

/* the path's leaf gave all its items away: unlink and free it; 1 */
static int drop_emptied_leaf(struct btrfs_trans_handle *trans,
			     struct btrfs_root *root, struct btrfs_path *path,
			     int pslot)
{
	int ret = del_ptr(trans, root, path, 1, pslot);

	if (!ret)
		ret = free_block(trans, root, path->nodes[0]);
	return ret ? ret : 1;
}

/* give all of an under-full leaf to a neighbour: 1 when it did */
static int merge_leaf(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct btrfs_path *path)
{
	struct extent_buffer *parent = path->nodes[1];
	struct extent_buffer *leaf = path->nodes[0];
	int pslot = path->slots[1];
	int nritems = btrfs_eb_nritems(leaf);
	u32 used = leaf_used(leaf);
	struct extent_buffer *sib, *cow;
	struct btrfs_key key;
	int ret;

	if (pslot > 0) {
		sib = btrfs_read_node_slot(parent, pslot - 1, &ret);
		if (!sib)
			return ret;
		if (btrfs_leaf_free_space(sib) >= used) {
			ret = btrfs_cow_block(trans, root, sib, parent, pslot - 1, &cow);
			free_extent_buffer(sib);
			if (ret)
				return ret;
			leaf_move_items(cow, btrfs_eb_nritems(cow), leaf, 0, nritems);
			free_extent_buffer(cow);
			return drop_emptied_leaf(trans, root, path, pslot);
		}
		free_extent_buffer(sib);
	}
	if (pslot + 1 < (int)btrfs_eb_nritems(parent)) {
		sib = btrfs_read_node_slot(parent, pslot + 1, &ret);
		if (!sib)
			return ret;
		if (btrfs_leaf_free_space(sib) >= used) {
			ret = btrfs_cow_block(trans, root, sib, parent, pslot + 1, &cow);
			free_extent_buffer(sib);
			if (ret)
				return ret;
			leaf_move_items(cow, 0, leaf, 0, nritems);
			btrfs_item_key_to_cpu(cow, &key, 0);
			set_node_key(parent, pslot + 1, &key);
			free_extent_buffer(cow);
			return drop_emptied_leaf(trans, root, path, pslot);
		}
		free_extent_buffer(sib);
	}
	return 0;
}

int btrfs_del_items(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		    struct btrfs_path *path, int slot, int nr)
{
	struct extent_buffer *leaf = path->nodes[0];
	struct btrfs_key key;
	int ret;

	if (nr <= 0 || slot < 0 || (u32)(slot + nr) > btrfs_eb_nritems(leaf))
		return -EINVAL;
	leaf_delete(leaf, slot, nr);
	if (btrfs_eb_nritems(leaf) == 0) {
		if (!path->nodes[1])
			return 0;	/* an empty root leaf is a valid tree */
		ret = del_ptr(trans, root, path, 1, path->slots[1]);
		return ret ? ret : free_block(trans, root, leaf);
	}
	if (slot == 0) {
		btrfs_item_key_to_cpu(leaf, &key, 0);
		fixup_low_keys(path, &key, 1);
	}
	if (path->nodes[1] && leaf_used(leaf) < leaf_capacity(leaf) / 3) {
		ret = merge_leaf(trans, root, path);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* @key keeps the order of @eb's keys (items or pointers) in place of slot @slot's */
static bool key_fits_slot(const struct extent_buffer *eb, int slot, const struct btrfs_key *key)
{
	int nr = (int)btrfs_eb_nritems(eb), i;
	struct btrfs_key k;

	for (i = slot - 1; i <= slot + 1; i += 2) {
		if (i < 0 || i >= nr)
			continue;
		if (btrfs_eb_level(eb))
			btrfs_node_key_to_cpu(eb, &k, i);
		else
			btrfs_item_key_to_cpu(eb, &k, i);
		if (i < slot ? btrfs_comp_cpu_keys(&k, key) >= 0 : btrfs_comp_cpu_keys(&k, key) <= 0)
			return false;
	}
	return true;
}

int btrfs_set_item_key_safe(struct btrfs_trans_handle *trans,
			    struct btrfs_root *root, struct btrfs_path *path,
			    const struct btrfs_key *new_key)
{
	struct extent_buffer *leaf = path->nodes[0];
	int slot = path->slots[0];
	int ret;

	ret = btrfs_key_guard_check(trans, root, new_key);
	if (ret)
		return ret;
	if (!key_fits_slot(leaf, slot, new_key))
		return -EINVAL;
	btrfs_cpu_key_to_disk(&btrfs_item_nr(leaf, slot)->key, new_key);
	if (slot == 0)
		fixup_low_keys(path, new_key, 1);
	return 0;
}

int btrfs_set_node_key_safe(struct btrfs_trans_handle *trans, struct btrfs_path *path,
			    int level, const struct btrfs_key *new_key)
{
	struct extent_buffer *node = level > 0 && level < BTRFS_MAX_LEVEL ?
				     path->nodes[level] : NULL;
	int slot = node ? path->slots[level] : -1;

	if (!node || btrfs_eb_level(node) != level || slot < 0 ||
	    slot >= (int)btrfs_eb_nritems(node))
		return -EINVAL;
	/* only a block of this transaction may change */
	if (btrfs_eb_generation(node) != trans->transid || !key_fits_slot(node, slot, new_key))
		return -EINVAL;
	set_node_key(node, slot, new_key);
	if (slot == 0)
		fixup_low_keys(path, new_key, level + 1);
	return 0;
}

int btrfs_delete_key(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const struct btrfs_key *key)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, key, &path, -1, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret)
		ret = btrfs_del_item(trans, root, &path);
	btrfs_release_path(&path);
	return ret;
}
