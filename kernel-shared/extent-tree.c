// SPDX-License-Identifier: GPL-2.0
/*
 * Extent allocation, freeing and back references.
 *
 * Space is taken from (and given back to) the block groups at once; the
 * extent tree is updated later from a queue of delayed refs, ordered by
 * bytenr and then by the order they were queued.  Running the queue
 * changes the extent tree, which copies blocks, which queues more refs:
 * btrfs_run_delayed_refs() loops until the queue is empty.  A tree block
 * freed in the transaction that allocated it cancels its pending insert
 * and returns to free space at once; anything older is pinned until the
 * commit is on disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extent-tree.h"
#include "transaction.h"
#include "block-group.h"
#include "chunk-alloc.h"
#include "ctree.h"
#include "crc32c.h"
#include "write-io.h"

enum dref_action {
	DREF_ADD_EXTENT,	/* new extent: insert its item with one ref */
	DREF_ADD_REF,		/* one more data ref on an existing extent */
	DREF_DROP_REF,		/* one ref less; the extent goes at zero */
	DREF_SET_FLAGS,		/* or @flags into the extent item's flags */
};

struct btrfs_delayed_ref {
	struct rb_node rb;
	u64 bytenr;
	u64 seq;
	u64 num_bytes;
	enum dref_action action;
	bool is_data;
	u8 level;
	struct btrfs_key first_key;
	u64 root;
	u64 owner;		/* data: inode number */
	u64 offset;		/* data: file offset */
	u64 parent;		/* shared ref: the referencing block, else 0 */
	u64 flags;		/* DREF_SET_FLAGS */
	u64 generation;
};

static struct btrfs_write_state *wstate(const struct btrfs_fs_info *fs_info)
{
	return fs_info->write;
}

struct btrfs_root *btrfs_extent_root(struct btrfs_fs_info *fs_info)
{
	return &fs_info->extent_root;
}

/* ---- the queue ---- */

static int dref_cmp(const struct btrfs_delayed_ref *a, u64 bytenr, u64 seq)
{
	if (a->bytenr != bytenr)
		return a->bytenr < bytenr ? -1 : 1;
	if (a->seq != seq)
		return a->seq < seq ? -1 : 1;
	return 0;
}

static int queue_ref(struct btrfs_fs_info *fs_info, const struct btrfs_delayed_ref *tmpl)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct rb_node **link = &ws->delayed_refs.rb_node, *parent = NULL;
	struct btrfs_delayed_ref *ref = malloc(sizeof(*ref));

	if (!ref)
		return -ENOMEM;
	*ref = *tmpl;
	ref->seq = ++ws->delayed_seq;
	while (*link) {
		struct btrfs_delayed_ref *cur;

		parent = *link;
		cur = rb_entry(parent, struct btrfs_delayed_ref, rb);
		if (dref_cmp(cur, ref->bytenr, ref->seq) > 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&ref->rb, parent, link);
	rb_insert_color(&ref->rb, &ws->delayed_refs);
	ws->nr_delayed++;
	return 0;
}

/* the most recently queued ref for @bytenr, NULL if none */
static struct btrfs_delayed_ref *last_ref_for(struct btrfs_fs_info *fs_info,
					      u64 bytenr)
{
	struct rb_node *node = wstate(fs_info)->delayed_refs.rb_node;
	struct btrfs_delayed_ref *found = NULL;

	while (node) {
		struct btrfs_delayed_ref *cur = rb_entry(node, struct btrfs_delayed_ref, rb);

		if (cur->bytenr <= bytenr) {
			if (cur->bytenr == bytenr)
				found = cur;
			node = node->rb_right;
		} else {
			node = node->rb_left;
		}
	}
	return found;
}

static void unqueue_ref(struct btrfs_fs_info *fs_info, struct btrfs_delayed_ref *ref)
{
	struct btrfs_write_state *ws = wstate(fs_info);

	rb_erase(&ref->rb, &ws->delayed_refs);
	ws->nr_delayed--;
	free(ref);
}

bool btrfs_have_delayed_refs(const struct btrfs_fs_info *fs_info)
{
	return wstate(fs_info) && !RB_EMPTY_ROOT(&wstate(fs_info)->delayed_refs);
}

void btrfs_destroy_delayed_refs(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct rb_node *pos, *n;

	rb_for_each_postorder_safe(pos, n, &ws->delayed_refs)
		free(rb_entry(pos, struct btrfs_delayed_ref, rb));
	ws->delayed_refs = RB_ROOT;
	ws->nr_delayed = 0;
}

/* ---- reserving space ---- */

static int profile_index(u64 type)
{
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return 1;
	if (type & BTRFS_BLOCK_GROUP_METADATA)
		return 2;
	return 0;
}

/* @type space for @len bytes; a new chunk when every group is full */
static int reserve_extent(struct btrfs_trans_handle *trans, u64 type, u64 len,
			  u64 align, u64 *start)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_chunk_request req = { 0 };
	struct btrfs_block_group *bg;
	int ret;

	ret = btrfs_find_free_extent(fs_info, type, len, align, start);
	if (ret == -ENOSPC) {
		req.type = type | ws->alloc_profile[profile_index(type)];
		if (btrfs_fs_incompat(fs_info, BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS) &&
		    !(type & BTRFS_BLOCK_GROUP_SYSTEM))
			req.type |= BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA;
		ret = btrfs_alloc_chunk(trans, &req, NULL, NULL);
		if (ret) {
			btrfs_err(&fs_info->reporter, "no space for %llu bytes of %s: %s",
				  (unsigned long long)len,
				  type & BTRFS_BLOCK_GROUP_DATA ? "data" : "metadata",
				  ret == -ENOSPC ? "devices are full" : "chunk allocation failed");
			return ret;
		}
		ret = btrfs_find_free_extent(fs_info, type, len, align, start);
	}
	if (ret)
		return ret;
	bg = btrfs_lookup_block_group(fs_info, *start);
	btrfs_block_group_add_used(fs_info, bg, len);
	return 0;
}

static void root_add_bytes(struct btrfs_fs_info *fs_info, struct btrfs_root *root,
			   s64 delta)
{
	u64 used = btrfs_root_bytes_used(&root->root_item);

	btrfs_set_root_bytes_used(&root->root_item, (u64)((s64)used + delta));
	btrfs_root_mark_dirty(fs_info, root);
}

/* ---- tree blocks ---- */

struct extent_buffer *btrfs_alloc_tree_block(struct btrfs_trans_handle *trans,
					     struct btrfs_root *root, int level,
					     const struct btrfs_key *first_key,
					     int *err)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_delayed_ref ref = { 0 };
	u64 type = root->root_key.objectid == BTRFS_CHUNK_TREE_OBJECTID ?
		   BTRFS_BLOCK_GROUP_SYSTEM : BTRFS_BLOCK_GROUP_METADATA;
	struct extent_buffer *eb;
	struct btrfs_header *h;
	u64 bytenr;
	int ret;

	ret = btrfs_count_tree_alloc(fs_info);
	if (!ret)
		ret = reserve_extent(trans, type, fs_info->nodesize, fs_info->nodesize, &bytenr);
	if (ret) {
		*err = ret;
		return NULL;
	}
	/* a stale buffer of an earlier block at this address must not be reused */
	eb = find_extent_buffer(fs_info, bytenr);
	if (eb) {
		extent_buffer_evict(eb);
		free_extent_buffer(eb);
	}
	eb = alloc_extent_buffer(fs_info, bytenr);
	if (!eb) {
		*err = -ENOMEM;
		return NULL;
	}
	memset(eb->data, 0, eb->len);
	h = eb_header(eb);
	btrfs_set_header_bytenr(h, bytenr);
	btrfs_set_header_flags(h, (u64)BTRFS_MIXED_BACKREF_REV << BTRFS_BACKREF_REV_SHIFT);
	memcpy(h->fsid, fs_info->metadata_uuid, BTRFS_FSID_SIZE);
	memcpy(h->chunk_tree_uuid, fs_info->chunk_tree_uuid, BTRFS_UUID_SIZE);
	btrfs_set_header_generation(h, trans->transid);
	btrfs_set_header_owner(h, root->root_key.objectid);
	btrfs_set_header_level(h, level);
	eb->flags = EXTENT_BUFFER_UPTODATE | EXTENT_BUFFER_VERIFIED;
	btrfs_mark_buffer_dirty(trans, eb);

	ref.bytenr = bytenr;
	ref.num_bytes = fs_info->nodesize;
	ref.action = DREF_ADD_EXTENT;
	ref.level = level;
	if (first_key)
		ref.first_key = *first_key;
	ref.root = root->root_key.objectid;
	ref.generation = trans->transid;
	ret = queue_ref(fs_info, &ref);
	if (ret) {
		free_extent_buffer(eb);
		*err = ret;
		return NULL;
	}
	root_add_bytes(fs_info, root, fs_info->nodesize);
	return eb;
}

static int pin_range(struct btrfs_fs_info *fs_info, u64 start, u64 len)
{
	struct btrfs_block_group *bg = btrfs_lookup_block_group(fs_info, start);
	int ret;

	ret = set_extent_bits(&wstate(fs_info)->pinned, start, start + len - 1,
			      EXTENT_PINNED);
	if (!ret && bg)
		bg->pinned += len;
	return ret;
}

int btrfs_pin_unused_range(struct btrfs_fs_info *fs_info, u64 start, u64 len)
{
	int ret = btrfs_block_group_take_range(fs_info, start, len, false);

	if (ret == -EEXIST || ret == -EUCLEAN)
		return 1;
	return ret ? ret : pin_range(fs_info, start, len);
}

int btrfs_free_tree_block(struct btrfs_trans_handle *trans,
			  struct btrfs_root *root, struct extent_buffer *eb)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u64 bytenr = eb->start, len = fs_info->nodesize;
	struct btrfs_block_group *bg = btrfs_lookup_block_group(fs_info, bytenr);
	struct btrfs_delayed_ref ref = { 0 }, *last;
	bool fresh;
	int ret;

	if (!bg)
		return -EUCLEAN;
	fresh = btrfs_eb_generation(eb) == trans->transid &&
		!(btrfs_header_flags(eb_header(eb)) & BTRFS_HEADER_FLAG_WRITTEN);
	if (fresh)
		btrfs_clean_tree_block(trans, eb);
	extent_buffer_evict(eb);
	root_add_bytes(fs_info, root, -(s64)len);
	btrfs_block_group_sub_used(fs_info, bg, len);

	last = last_ref_for(fs_info, bytenr);
	if (last && last->action == DREF_ADD_EXTENT && !last->is_data) {
		/* never reached the extent tree: forget both */
		unqueue_ref(fs_info, last);
	} else {
		ref.bytenr = bytenr;
		ref.num_bytes = len;
		ref.action = DREF_DROP_REF;
		ref.level = btrfs_eb_level(eb);
		ref.root = root->root_key.objectid;
		ret = queue_ref(fs_info, &ref);
		if (ret)
			return ret;
	}
	if (fresh)
		return btrfs_add_free_range(fs_info, bytenr, len);
	return pin_range(fs_info, bytenr, len);
}

/* ---- data extents ---- */

int btrfs_alloc_data_extent(struct btrfs_trans_handle *trans, u64 num_bytes,
			    u64 root, u64 ino, u64 file_offset, u64 *bytenr_ret)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_delayed_ref ref = { 0 };
	int ret;

	if (!num_bytes || num_bytes % fs_info->sectorsize)
		return -EINVAL;
	ret = reserve_extent(trans, BTRFS_BLOCK_GROUP_DATA, num_bytes,
			     fs_info->sectorsize, bytenr_ret);
	if (ret)
		return ret;
	ref.bytenr = *bytenr_ret;
	ref.num_bytes = num_bytes;
	ref.action = DREF_ADD_EXTENT;
	ref.is_data = true;
	ref.root = root;
	ref.owner = ino;
	ref.offset = file_offset;
	ref.generation = trans->transid;
	return queue_ref(fs_info, &ref);
}

static int queue_data_ref(struct btrfs_trans_handle *trans, enum dref_action action,
			  u64 bytenr, u64 num_bytes, u64 root, u64 ino, u64 offset)
{
	struct btrfs_delayed_ref ref = { 0 };

	ref.bytenr = bytenr;
	ref.num_bytes = num_bytes;
	ref.action = action;
	ref.is_data = true;
	ref.root = root;
	ref.owner = ino;
	ref.offset = offset;
	ref.generation = trans->transid;
	return queue_ref(trans->fs_info, &ref);
}

int btrfs_inc_data_ref(struct btrfs_trans_handle *trans, u64 bytenr,
		       u64 num_bytes, u64 root, u64 ino, u64 file_offset)
{
	return queue_data_ref(trans, DREF_ADD_REF, bytenr, num_bytes, root, ino,
			      file_offset);
}

int btrfs_dec_data_ref(struct btrfs_trans_handle *trans, u64 bytenr,
		       u64 num_bytes, u64 root, u64 ino, u64 file_offset)
{
	return queue_data_ref(trans, DREF_DROP_REF, bytenr, num_bytes, root, ino,
			      file_offset);
}

int btrfs_mod_shared_data_ref(struct btrfs_trans_handle *trans, u64 bytenr,
			      u64 num_bytes, u64 parent, int delta)
{
	struct btrfs_delayed_ref ref = { 0 };

	if (!parent || (delta != 1 && delta != -1))
		return -EINVAL;
	ref.bytenr = bytenr;
	ref.num_bytes = num_bytes;
	ref.action = delta > 0 ? DREF_ADD_REF : DREF_DROP_REF;
	ref.is_data = true;
	ref.parent = parent;
	ref.generation = trans->transid;
	return queue_ref(trans->fs_info, &ref);
}

int btrfs_mod_tree_ref(struct btrfs_trans_handle *trans, u64 bytenr, int level,
		       u64 root, u64 parent, int delta)
{
	struct btrfs_delayed_ref ref = { 0 };

	if (delta != 1 && delta != -1)
		return -EINVAL;
	ref.bytenr = bytenr;
	ref.num_bytes = trans->fs_info->nodesize;
	ref.action = delta > 0 ? DREF_ADD_REF : DREF_DROP_REF;
	ref.level = level;
	ref.root = parent ? 0 : root;
	ref.parent = parent;
	ref.generation = trans->transid;
	return queue_ref(trans->fs_info, &ref);
}

int btrfs_set_tree_block_flags(struct btrfs_trans_handle *trans, u64 bytenr,
			       int level, u64 flags)
{
	struct btrfs_delayed_ref ref = { 0 };

	ref.bytenr = bytenr;
	ref.num_bytes = trans->fs_info->nodesize;
	ref.action = DREF_SET_FLAGS;
	ref.level = level;
	ref.flags = flags;
	ref.generation = trans->transid;
	return queue_ref(trans->fs_info, &ref);
}

/* ---- extent items ---- */

u64 btrfs_extent_data_ref_hash(u64 root, u64 owner, u64 offset)
{
	u32 high = ~0U, low = ~0U;
	u64 v;

	v = htole64(root);
	high = crc32c(high, &v, sizeof(v));
	v = htole64(owner);
	low = crc32c(low, &v, sizeof(v));
	v = htole64(offset);
	low = crc32c(low, &v, sizeof(v));
	return ((u64)high << 31) ^ (u64)low;
}

static u32 max_inline_item_size(const struct btrfs_fs_info *fs_info)
{
	return (btrfs_leaf_data_size(fs_info->nodesize) >> 4) -
	       sizeof(struct btrfs_item);
}

static bool skinny(const struct btrfs_fs_info *fs_info)
{
	return btrfs_fs_incompat(fs_info, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA);
}

static int insert_tree_extent(struct btrfs_trans_handle *trans,
			      const struct btrfs_delayed_ref *ref)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u8 buf[sizeof(struct btrfs_extent_item) + sizeof(struct btrfs_tree_block_info) +
	       sizeof(struct btrfs_extent_inline_ref)];
	struct btrfs_extent_item *ei = (void *)buf;
	struct btrfs_extent_inline_ref *iref;
	struct btrfs_key key;
	u32 size = sizeof(*ei);

	memset(buf, 0, sizeof(buf));
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, ref->generation);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	key.objectid = ref->bytenr;
	if (skinny(fs_info)) {
		key.type = BTRFS_METADATA_ITEM_KEY;
		key.offset = ref->level;
	} else {
		struct btrfs_tree_block_info *info = (void *)(buf + size);

		key.type = BTRFS_EXTENT_ITEM_KEY;
		key.offset = fs_info->nodesize;
		btrfs_cpu_key_to_disk(&info->key, &ref->first_key);
		btrfs_set_tree_block_level(info, ref->level);
		size += sizeof(*info);
	}
	iref = (void *)(buf + size);
	btrfs_set_extent_inline_ref_type(iref, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(iref, ref->root);
	size += sizeof(*iref);
	return btrfs_insert_item(trans, btrfs_extent_root(fs_info), &key, buf, size);
}

static void fill_data_ref(struct btrfs_extent_data_ref *dref, u64 root, u64 owner,
			  u64 offset, u32 count)
{
	btrfs_set_extent_data_ref_root(dref, root);
	btrfs_set_extent_data_ref_objectid(dref, owner);
	btrfs_set_extent_data_ref_offset(dref, offset);
	btrfs_set_extent_data_ref_count(dref, count);
}

static int insert_data_extent(struct btrfs_trans_handle *trans,
			      const struct btrfs_delayed_ref *ref)
{
	u8 buf[sizeof(struct btrfs_extent_item) + 1 + sizeof(struct btrfs_extent_data_ref)];
	struct btrfs_extent_item *ei = (void *)buf;
	struct btrfs_key key = { ref->bytenr, BTRFS_EXTENT_ITEM_KEY, ref->num_bytes };

	memset(buf, 0, sizeof(buf));
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, ref->generation);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	buf[sizeof(*ei)] = BTRFS_EXTENT_DATA_REF_KEY;
	fill_data_ref((void *)(buf + sizeof(*ei) + 1), ref->root, ref->owner,
		      ref->offset, 1);
	return btrfs_insert_item(trans, btrfs_extent_root(trans->fs_info), &key,
				 buf, sizeof(buf));
}

/*
 * Path to the extent item of @ref's extent.  @ins_len as for
 * btrfs_search_slot (bytes to grow it, or -1 to delete).  0 or -ENOENT.
 */
static int find_extent_item(struct btrfs_trans_handle *trans,
			    const struct btrfs_delayed_ref *ref,
			    struct btrfs_path *path, int ins_len)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *root = btrfs_extent_root(fs_info);
	struct btrfs_key key;
	int ret;

	if (!ref->is_data && skinny(fs_info)) {
		key.objectid = ref->bytenr;
		key.type = BTRFS_METADATA_ITEM_KEY;
		key.offset = ref->level;
		ret = btrfs_search_slot(trans, root, &key, path, ins_len, 1);
		if (ret <= 0)
			return ret;
		btrfs_release_path(path);
	}
	key.objectid = ref->bytenr;
	key.type = BTRFS_EXTENT_ITEM_KEY;
	key.offset = ref->is_data ? ref->num_bytes : fs_info->nodesize;
	ret = btrfs_search_slot(trans, root, &key, path, ins_len, 1);
	if (ret > 0) {
		btrfs_release_path(path);
		btrfs_err(&fs_info->reporter, "extent %llu has no extent item",
			  (unsigned long long)ref->bytenr);
		return -ENOENT;
	}
	return ret;
}

/* an extent item this code can change: not legacy, big enough */
static int check_extent_item_size(struct btrfs_fs_info *fs_info,
				  const struct btrfs_path *path)
{
	u32 size = btrfs_item_size(path->nodes[0], path->slots[0]);
	struct btrfs_key key;
	u32 min = sizeof(struct btrfs_extent_item);

	btrfs_path_key(path, &key);
	if (size >= min && key.type == BTRFS_EXTENT_ITEM_KEY &&
	    (btrfs_extent_flags(btrfs_item_ptr(path->nodes[0], path->slots[0],
					       struct btrfs_extent_item)) &
	     BTRFS_EXTENT_FLAG_TREE_BLOCK))
		min += sizeof(struct btrfs_tree_block_info);
	if (size < min) {
		btrfs_err(&fs_info->reporter, "extent item %llu: size %u, expect at least %u",
			  (unsigned long long)key.objectid, size, min);
		return -EUCLEAN;
	}
	return 0;
}

/* where the inline refs of the path's extent item start */
static u32 inline_refs_start(const struct btrfs_path *path)
{
	struct extent_buffer *leaf = path->nodes[0];
	struct btrfs_extent_item *ei = btrfs_item_ptr(leaf, path->slots[0],
						      struct btrfs_extent_item);
	struct btrfs_key key;
	u32 off = sizeof(*ei);

	btrfs_path_key(path, &key);
	if (key.type == BTRFS_EXTENT_ITEM_KEY &&
	    (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		off += sizeof(struct btrfs_tree_block_info);
	return off;
}

/*
 * Back reference kinds: a tree block is referenced by a root (keyed
 * TREE_BLOCK_REF) or, when its referencing block carries FULL_BACKREF,
 * by that parent block (SHARED_BLOCK_REF); data likewise by (root, inode,
 * offset) or by the parent leaf (SHARED_DATA_REF, counted).
 */
static u8 ref_type(const struct btrfs_delayed_ref *ref)
{
	if (ref->is_data)
		return ref->parent ? BTRFS_SHARED_DATA_REF_KEY : BTRFS_EXTENT_DATA_REF_KEY;
	return ref->parent ? BTRFS_SHARED_BLOCK_REF_KEY : BTRFS_TREE_BLOCK_REF_KEY;
}

/* the order key of @ref among refs of its type */
static u64 ref_seq(const struct btrfs_delayed_ref *ref)
{
	if (ref->parent)
		return ref->parent;
	if (ref->is_data)
		return btrfs_extent_data_ref_hash(ref->root, ref->owner, ref->offset);
	return ref->root;
}

/* order key of an inline ref: refs sort by type, then by this, descending */
static u64 inline_ref_seq(const struct btrfs_extent_inline_ref *iref)
{
	if (btrfs_extent_inline_ref_type(iref) == BTRFS_EXTENT_DATA_REF_KEY) {
		const struct btrfs_extent_data_ref *d = (const void *)&iref->offset;

		return btrfs_extent_data_ref_hash(btrfs_extent_data_ref_root(d),
						  btrfs_extent_data_ref_objectid(d),
						  btrfs_extent_data_ref_offset(d));
	}
	return btrfs_extent_inline_ref_offset(iref);
}

static bool inline_ref_matches(const struct btrfs_extent_inline_ref *iref,
			       const struct btrfs_delayed_ref *ref)
{
	u8 type = btrfs_extent_inline_ref_type(iref);

	if (type != ref_type(ref))
		return false;
	if (type == BTRFS_EXTENT_DATA_REF_KEY) {
		const struct btrfs_extent_data_ref *d = (const void *)&iref->offset;

		return btrfs_extent_data_ref_root(d) == ref->root &&
		       btrfs_extent_data_ref_objectid(d) == ref->owner &&
		       btrfs_extent_data_ref_offset(d) == ref->offset;
	}
	return btrfs_extent_inline_ref_offset(iref) == ref_seq(ref);
}

/* count of a data ref (inline or keyed item body @body of @type) */
static u32 data_ref_count(const void *body, u8 type)
{
	if (type == BTRFS_EXTENT_DATA_REF_KEY)
		return btrfs_extent_data_ref_count(body);
	return btrfs_shared_data_ref_count(body);
}

static void set_data_ref_count(void *body, u8 type, u32 count)
{
	if (type == BTRFS_EXTENT_DATA_REF_KEY)
		btrfs_set_extent_data_ref_count(body, count);
	else
		btrfs_set_shared_data_ref_count(body, count);
}

/* where the count of an inline data ref lives */
static void *inline_ref_body(struct btrfs_extent_inline_ref *iref)
{
	if (btrfs_extent_inline_ref_type(iref) == BTRFS_EXTENT_DATA_REF_KEY)
		return &iref->offset;
	return iref + 1;
}

/*
 * Scan the inline refs: offset of the one matching @ref (or 0), and the
 * offset where a new ref of its kind belongs (@insert_at).
 */
static int scan_inline_refs(const struct btrfs_path *path,
			    const struct btrfs_delayed_ref *ref,
			    u32 *match, u32 *insert_at)
{
	struct extent_buffer *leaf = path->nodes[0];
	const u8 *item = btrfs_item_ptr_raw(leaf, path->slots[0]);
	u32 size = btrfs_item_size(leaf, path->slots[0]);
	u8 want = ref_type(ref);
	u64 want_seq = ref_seq(ref);
	u32 off = inline_refs_start(path);

	*match = 0;
	*insert_at = 0;
	while (off < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(item + off);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);

		if (!rsize || off + rsize > size)
			return -EUCLEAN;
		if (!*match && inline_ref_matches(iref, ref))
			*match = off;
		if (!*insert_at && (type > want ||
				    (type == want && inline_ref_seq(iref) < want_seq)))
			*insert_at = off;
		off += rsize;
	}
	if (!*insert_at)
		*insert_at = size;
	return 0;
}

static void add_extent_refs(const struct btrfs_path *path, s64 delta)
{
	struct btrfs_extent_item *ei = btrfs_item_ptr(path->nodes[0], path->slots[0],
						      struct btrfs_extent_item);

	btrfs_set_extent_refs(ei, (u64)((s64)btrfs_extent_refs(ei) + delta));
}

/* keyed data ref of @ref: 0 with the path at it, 1 with the path released */
static int find_keyed_data_ref(struct btrfs_trans_handle *trans,
			       const struct btrfs_delayed_ref *ref,
			       struct btrfs_path *path, int ins_len, u64 *free_offset)
{
	struct btrfs_root *root = btrfs_extent_root(trans->fs_info);
	u64 hash = btrfs_extent_data_ref_hash(ref->root, ref->owner, ref->offset);
	struct btrfs_key key = { ref->bytenr, BTRFS_EXTENT_DATA_REF_KEY, hash };
	int ret, i;

	/* colliding hashes take the next offsets */
	for (i = 0; i < 64; i++, key.offset++) {
		struct btrfs_extent_data_ref *d;

		ret = btrfs_search_slot(trans, root, &key, path, ins_len, 1);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			btrfs_release_path(path);
			*free_offset = key.offset;
			return 1;
		}
		if (btrfs_item_size(path->nodes[0], path->slots[0]) < sizeof(*d)) {
			btrfs_release_path(path);
			return -EUCLEAN;
		}
		d = btrfs_item_ptr(path->nodes[0], path->slots[0],
				   struct btrfs_extent_data_ref);
		if (btrfs_extent_data_ref_root(d) == ref->root &&
		    btrfs_extent_data_ref_objectid(d) == ref->owner &&
		    btrfs_extent_data_ref_offset(d) == ref->offset)
			return 0;
		btrfs_release_path(path);
	}
	return -EUCLEAN;
}

/* keyed ref item of @ref: 0 with the path at it, 1 (released) when absent */
static int find_keyed_ref(struct btrfs_trans_handle *trans,
			  const struct btrfs_delayed_ref *ref,
			  struct btrfs_path *path, int ins_len, u64 *key_offset)
{
	struct btrfs_key key = { ref->bytenr, ref_type(ref), ref_seq(ref) };
	int ret;

	if (key.type == BTRFS_EXTENT_DATA_REF_KEY)
		return find_keyed_data_ref(trans, ref, path, ins_len, key_offset);
	ret = btrfs_search_slot(trans, btrfs_extent_root(trans->fs_info), &key, path,
				ins_len, 1);
	if (ret > 0) {
		btrfs_release_path(path);
		*key_offset = key.offset;
		return 1;
	}
	if (!ret && key.type == BTRFS_SHARED_DATA_REF_KEY &&
	    btrfs_item_size(path->nodes[0], path->slots[0]) <
	    sizeof(struct btrfs_shared_data_ref)) {
		btrfs_release_path(path);
		return -EUCLEAN;
	}
	return ret;
}

static int insert_keyed_ref(struct btrfs_trans_handle *trans,
			    const struct btrfs_delayed_ref *ref, u64 key_offset)
{
	struct btrfs_key key = { ref->bytenr, ref_type(ref), key_offset };
	struct btrfs_extent_data_ref d;
	struct btrfs_shared_data_ref s;
	struct btrfs_root *root = btrfs_extent_root(trans->fs_info);

	if (key.type == BTRFS_EXTENT_DATA_REF_KEY) {
		fill_data_ref(&d, ref->root, ref->owner, ref->offset, 1);
		return btrfs_insert_item(trans, root, &key, &d, sizeof(d));
	}
	if (key.type == BTRFS_SHARED_DATA_REF_KEY) {
		btrfs_set_shared_data_ref_count(&s, 1);
		return btrfs_insert_item(trans, root, &key, &s, sizeof(s));
	}
	return btrfs_insert_item(trans, root, &key, NULL, 0);
}

static void write_inline_ref(u8 *at, const struct btrfs_delayed_ref *ref)
{
	struct btrfs_extent_inline_ref *iref = (void *)at;
	u8 type = ref_type(ref);

	at[0] = type;
	if (type == BTRFS_EXTENT_DATA_REF_KEY) {
		fill_data_ref((void *)(at + 1), ref->root, ref->owner, ref->offset, 1);
		return;
	}
	btrfs_set_extent_inline_ref_offset(iref, ref_seq(ref));
	if (type == BTRFS_SHARED_DATA_REF_KEY)
		btrfs_set_shared_data_ref_count((void *)(iref + 1), 1);
}

static int duplicate_ref(struct btrfs_trans_handle *trans,
			 const struct btrfs_delayed_ref *ref)
{
	btrfs_err(&trans->fs_info->reporter,
		  "tree block %llu: back reference (type %u, %llu) already present",
		  (unsigned long long)ref->bytenr, ref_type(ref),
		  (unsigned long long)ref_seq(ref));
	return -EUCLEAN;
}

/* one more reference: inline when it fits, else a keyed item */
static int add_ref(struct btrfs_trans_handle *trans,
		   const struct btrfs_delayed_ref *ref)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u32 rsize = btrfs_extent_inline_ref_size(ref_type(ref));
	struct btrfs_path path;
	u32 match, insert_at, size;
	u64 key_offset;
	int ret;

	btrfs_init_path(&path);
	ret = find_extent_item(trans, ref, &path, rsize);
	if (!ret)
		ret = check_extent_item_size(fs_info, &path);
	if (ret)
		goto out;
	ret = scan_inline_refs(&path, ref, &match, &insert_at);
	if (ret)
		goto out;
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	if (match) {
		struct btrfs_extent_inline_ref *iref = (void *)((u8 *)
			btrfs_item_ptr_raw(path.nodes[0], path.slots[0]) + match);
		void *body = inline_ref_body(iref);

		if (!ref->is_data) {
			ret = duplicate_ref(trans, ref);
			goto out;
		}
		set_data_ref_count(body, ref_type(ref),
				   data_ref_count(body, ref_type(ref)) + 1);
		add_extent_refs(&path, 1);
		goto out;
	}
	btrfs_release_path(&path);
	ret = find_keyed_ref(trans, ref, &path, 0, &key_offset);
	if (ret < 0)
		goto out;
	if (ret == 0) {
		void *body = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);

		if (!ref->is_data) {
			ret = duplicate_ref(trans, ref);
			goto out;
		}
		set_data_ref_count(body, ref_type(ref),
				   data_ref_count(body, ref_type(ref)) + 1);
	} else if (size + rsize <= max_inline_item_size(fs_info)) {
		u8 *item;

		ret = find_extent_item(trans, ref, &path, rsize);
		if (ret)
			goto out;
		btrfs_extend_item(&path, rsize);
		item = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);
		memmove(item + insert_at + rsize, item + insert_at, size - insert_at);
		write_inline_ref(item + insert_at, ref);
		add_extent_refs(&path, 1);
		goto out;
	} else {
		ret = insert_keyed_ref(trans, ref, key_offset);
		if (ret)
			goto out;
	}
	btrfs_release_path(&path);
	ret = find_extent_item(trans, ref, &path, 0);
	if (!ret)
		add_extent_refs(&path, 1);
out:
	btrfs_release_path(&path);
	return ret;
}

/* delete every keyed back reference item of the extent at @bytenr */
static int delete_keyed_refs(struct btrfs_trans_handle *trans, u64 bytenr)
{
	struct btrfs_root *root = btrfs_extent_root(trans->fs_info);
	struct btrfs_key key = { bytenr, BTRFS_TREE_BLOCK_REF_KEY, 0 };
	struct btrfs_path path;
	int ret;

	for (;;) {
		btrfs_init_path(&path);
		ret = btrfs_search_slot(trans, root, &key, &path, -1, 1);
		if (ret < 0)
			break;
		ret = btrfs_path_fixup_slot(root, &path);
		if (ret) {
			ret = ret > 0 ? 0 : ret;
			break;
		}
		btrfs_path_key(&path, &key);
		if (key.objectid != bytenr || key.type < BTRFS_TREE_BLOCK_REF_KEY ||
		    key.type > BTRFS_SHARED_DATA_REF_KEY) {
			ret = 0;
			break;
		}
		ret = btrfs_del_item(trans, root, &path);
		btrfs_release_path(&path);
		if (ret)
			return ret;
	}
	btrfs_release_path(&path);
	return ret;
}

static int drop_whole_extent(struct btrfs_trans_handle *trans,
			     const struct btrfs_delayed_ref *ref,
			     struct btrfs_path *path, bool had_keyed)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	int ret;

	ret = btrfs_del_item(trans, btrfs_extent_root(fs_info), path);
	btrfs_release_path(path);
	if (!ret && had_keyed)
		ret = delete_keyed_refs(trans, ref->bytenr);
	if (ret || !ref->is_data)
		return ret;
	/* data space is accounted when its last reference goes */
	btrfs_block_group_sub_used(fs_info, btrfs_lookup_block_group(fs_info, ref->bytenr),
				   ref->num_bytes);
	return pin_range(fs_info, ref->bytenr, ref->num_bytes);
}

/* an inline ref loses one: its count, or the whole ref */
static void drop_inline_ref(struct btrfs_path *path, const struct btrfs_delayed_ref *ref,
			    u32 match, u32 size)
{
	u8 *item = btrfs_item_ptr_raw(path->nodes[0], path->slots[0]);
	struct btrfs_extent_inline_ref *iref = (void *)(item + match);
	u8 type = btrfs_extent_inline_ref_type(iref);
	u32 rsize = btrfs_extent_inline_ref_size(type);

	add_extent_refs(path, -1);
	if (ref->is_data) {
		void *body = inline_ref_body(iref);
		u32 count = data_ref_count(body, type);

		if (count > 1) {
			set_data_ref_count(body, type, count - 1);
			return;
		}
	}
	memmove(item + match, item + match + rsize, size - match - rsize);
	btrfs_truncate_item(path, size - rsize, 1);
}

/* a keyed ref loses one (the extent item's count already did) */
static int drop_keyed_ref(struct btrfs_trans_handle *trans,
			  const struct btrfs_delayed_ref *ref, struct btrfs_path *path)
{
	u64 key_offset;
	void *body;
	u32 count;
	int ret;

	ret = find_keyed_ref(trans, ref, path, -1, &key_offset);
	if (ret)
		return ret > 0 ? -ENOENT : ret;
	if (ref->is_data) {
		body = btrfs_item_ptr_raw(path->nodes[0], path->slots[0]);
		count = data_ref_count(body, ref_type(ref));
		if (count > 1) {
			set_data_ref_count(body, ref_type(ref), count - 1);
			return 0;
		}
	}
	return btrfs_del_item(trans, btrfs_extent_root(trans->fs_info), path);
}

/* one reference less: from an inline ref or a keyed item */
static int drop_ref(struct btrfs_trans_handle *trans, const struct btrfs_delayed_ref *ref)
{
	struct btrfs_path path;
	u32 match, insert_at, size;
	u64 refs;
	int ret;

	btrfs_init_path(&path);
	ret = find_extent_item(trans, ref, &path, -1);
	if (!ret)
		ret = check_extent_item_size(trans->fs_info, &path);
	if (ret)
		goto out;
	refs = btrfs_extent_refs(btrfs_item_ptr(path.nodes[0], path.slots[0],
						struct btrfs_extent_item));
	ret = scan_inline_refs(&path, ref, &match, &insert_at);
	if (ret)
		goto out;
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	if (refs <= 1) {
		ret = drop_whole_extent(trans, ref, &path, !match);
		goto out;
	}
	if (match) {
		drop_inline_ref(&path, ref, match, size);
		goto out;
	}
	add_extent_refs(&path, -1);
	btrfs_release_path(&path);
	ret = drop_keyed_ref(trans, ref, &path);
	if (ret == -ENOENT) {
		btrfs_err(&trans->fs_info->reporter,
			  "extent %llu: no back reference (type %u, %llu)",
			  (unsigned long long)ref->bytenr, ref_type(ref),
			  (unsigned long long)ref_seq(ref));
		ret = -EUCLEAN;
	}
out:
	btrfs_release_path(&path);
	return ret;
}

static int set_flags(struct btrfs_trans_handle *trans, const struct btrfs_delayed_ref *ref)
{
	struct btrfs_path path;
	struct btrfs_extent_item *ei;
	int ret;

	btrfs_init_path(&path);
	ret = find_extent_item(trans, ref, &path, 0);
	if (!ret)
		ret = check_extent_item_size(trans->fs_info, &path);
	if (!ret) {
		ei = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_extent_item);
		btrfs_set_extent_flags(ei, btrfs_extent_flags(ei) | ref->flags);
	}
	btrfs_release_path(&path);
	return ret;
}

static int run_one_ref(struct btrfs_trans_handle *trans,
		       const struct btrfs_delayed_ref *ref)
{
	switch (ref->action) {
	case DREF_ADD_EXTENT:
		return ref->is_data ? insert_data_extent(trans, ref) :
				      insert_tree_extent(trans, ref);
	case DREF_ADD_REF:
		return add_ref(trans, ref);
	case DREF_DROP_REF:
		return drop_ref(trans, ref);
	case DREF_SET_FLAGS:
		return set_flags(trans, ref);
	}
	return -EINVAL;
}

int btrfs_run_delayed_refs(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	int ret;

	while (!RB_EMPTY_ROOT(&ws->delayed_refs)) {
		struct btrfs_delayed_ref *ref;

		ref = rb_entry(rb_first(&ws->delayed_refs), struct btrfs_delayed_ref, rb);
		rb_erase(&ref->rb, &ws->delayed_refs);
		ws->nr_delayed--;
		ret = run_one_ref(trans, ref);
		free(ref);
		if (ret)
			return ret;
	}
	return 0;
}

int btrfs_lookup_extent_info(struct btrfs_fs_info *fs_info, u64 bytenr,
			     u64 *refs, u64 *flags)
{
	struct btrfs_root *root = btrfs_extent_root(fs_info);
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	if (ret) {
		ret = ret > 0 ? -ENOENT : ret;
		goto out;
	}
	btrfs_path_key(&path, &key);
	if (key.objectid != bytenr || (key.type != BTRFS_EXTENT_ITEM_KEY &&
				       key.type != BTRFS_METADATA_ITEM_KEY) ||
	    btrfs_item_size(path.nodes[0], path.slots[0]) <
	    sizeof(struct btrfs_extent_item)) {
		ret = -ENOENT;
		goto out;
	}
	*refs = btrfs_extent_refs(btrfs_item_ptr(path.nodes[0], path.slots[0],
						 struct btrfs_extent_item));
	*flags = btrfs_extent_flags(btrfs_item_ptr(path.nodes[0], path.slots[0],
						   struct btrfs_extent_item));
out:
	btrfs_release_path(&path);
	return ret;
}

/* the first queued ref for @bytenr, NULL if none */
static struct btrfs_delayed_ref *first_ref_for(struct btrfs_fs_info *fs_info,
					       u64 bytenr)
{
	struct rb_node *node = wstate(fs_info)->delayed_refs.rb_node;
	struct btrfs_delayed_ref *found = NULL;

	while (node) {
		struct btrfs_delayed_ref *cur = rb_entry(node, struct btrfs_delayed_ref, rb);

		if (cur->bytenr >= bytenr) {
			if (cur->bytenr == bytenr)
				found = cur;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

int btrfs_lookup_tree_block_refs(struct btrfs_fs_info *fs_info, u64 bytenr,
				 u64 *refs, u64 *flags)
{
	struct btrfs_delayed_ref *ref;
	struct rb_node *node;
	s64 count = 0;
	bool found;
	int ret;

	*flags = 0;
	ret = btrfs_lookup_extent_info(fs_info, bytenr, refs, flags);
	if (ret && ret != -ENOENT)
		return ret;
	found = !ret;
	if (found)
		count = (s64)*refs;
	/* queued changes apply in order, as btrfs_run_delayed_refs() will */
	for (ref = first_ref_for(fs_info, bytenr); ref; ) {
		switch (ref->action) {
		case DREF_ADD_EXTENT:
			count = 1;
			*flags = BTRFS_EXTENT_FLAG_TREE_BLOCK;
			found = true;
			break;
		case DREF_ADD_REF:
			count++;
			break;
		case DREF_DROP_REF:
			count--;
			break;
		case DREF_SET_FLAGS:
			*flags |= ref->flags;
			break;
		}
		node = rb_next(&ref->rb);
		ref = node ? rb_entry(node, struct btrfs_delayed_ref, rb) : NULL;
		if (ref && ref->bytenr != bytenr)
			ref = NULL;
	}
	if (!found || count <= 0)
		return -ENOENT;
	*refs = (u64)count;
	return 0;
}

void btrfs_unpin_extents(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct extent_state *st;

	extent_io_tree_for_each(st, &ws->pinned) {
		u64 start = st->start;

		while (start <= st->end) {
			struct btrfs_block_group *bg = btrfs_lookup_block_group(fs_info, start);
			u64 end = st->end;

			if (!bg)
				break;
			if (end > bg->start + bg->length - 1)
				end = bg->start + bg->length - 1;
			bg->pinned -= end - start + 1;
			btrfs_add_free_range(fs_info, start, end - start + 1);
			start = end + 1;
		}
	}
	extent_io_tree_release(&ws->pinned);
}
