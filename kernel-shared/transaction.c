// SPDX-License-Identifier: GPL-2.0
/*
 * Transactions: the write state of a filesystem, dirty block tracking,
 * and the commit sequence described in transaction.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "transaction.h"
#include "ctree.h"
#include "extent-tree.h"
#include "block-group.h"
#include "chunk-alloc.h"
#include "free-space-tree.h"
#include "free-space-cache.h"
#include "write-io.h"
#include "array.h"

/* commit passes before giving up on metadata that keeps changing */
#define COMMIT_MAX_PASSES 64

static struct btrfs_write_state *wstate(const struct btrfs_fs_info *fs_info)
{
	return fs_info->write;
}

/* ---- dirty buffers ---- */

void btrfs_mark_buffer_dirty(struct btrfs_trans_handle *trans,
			     struct extent_buffer *eb)
{
	struct btrfs_write_state *ws = wstate(trans->fs_info);

	if (eb->flags & EXTENT_BUFFER_DIRTY)
		return;
	if (set_extent_bits(&ws->dirty, eb->start, eb->start + eb->len - 1,
			    EXTENT_DIRTY)) {
		/* out of memory: the commit cannot write this block */
		trans->aborted = true;
		ws->error = -ENOMEM;
		return;
	}
	eb->flags |= EXTENT_BUFFER_DIRTY;
	ws->dirty_bytes += eb->len;
	extent_buffer_get(eb);	/* the transaction's reference */
}

void btrfs_set_key_guard(struct btrfs_fs_info *fs_info, const struct btrfs_key_guard *guard)
{
	struct btrfs_write_state *ws = wstate(fs_info);

	if (!ws)
		return;
	if (guard)
		ws->key_guard = *guard;
	else
		memset(&ws->key_guard, 0, sizeof(ws->key_guard));
}

int btrfs_key_guard_check(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const struct btrfs_key *key)
{
	struct btrfs_write_state *ws = wstate(trans->fs_info);

	if (!ws || !ws->key_guard.check)
		return 0;
	return ws->key_guard.check(ws->key_guard.data, root, key);
}

void btrfs_clean_tree_block(struct btrfs_trans_handle *trans,
			    struct extent_buffer *eb)
{
	struct btrfs_write_state *ws = wstate(trans->fs_info);

	if (!(eb->flags & EXTENT_BUFFER_DIRTY))
		return;
	clear_extent_bits(&ws->dirty, eb->start, eb->start + eb->len - 1, EXTENT_DIRTY);
	eb->flags &= ~EXTENT_BUFFER_DIRTY;
	ws->dirty_bytes -= eb->len;
	free_extent_buffer(eb);
}

u64 btrfs_trans_dirty_bytes(const struct btrfs_trans_handle *trans)
{
	return wstate(trans->fs_info)->dirty_bytes;
}

/*
 * Drop the transaction's reference on every dirty buffer and forget the
 * dirty ranges: after a successful write (@unwritten false) the buffers
 * stay cached as clean; on abort their contents never reached the disk,
 * so they are evicted.
 */
static void put_dirty_buffers(struct btrfs_fs_info *fs_info, bool unwritten)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct extent_state *st;

	extent_io_tree_for_each(st, &ws->dirty) {
		u64 start;

		for (start = st->start; start <= st->end; start += fs_info->nodesize) {
			struct extent_buffer *eb = find_extent_buffer(fs_info, start);

			if (!eb)
				continue;
			if (eb->flags & EXTENT_BUFFER_DIRTY) {
				eb->flags &= ~EXTENT_BUFFER_DIRTY;
				if (unwritten)
					extent_buffer_evict(eb);
				free_extent_buffer(eb);
			}
			free_extent_buffer(eb);
		}
	}
	extent_io_tree_release(&ws->dirty);
	ws->dirty_bytes = 0;
}

/*
 * Tree blocks next to each other (appending fills them in address order)
 * go out in writes of up to WRITE_BATCH bytes instead of one each.
 */
#define WRITE_BATCH	(1U << 20)

struct write_batch {
	u8 *buf;		/* NULL: no memory for it, one write a block */
	u64 start;
	u32 len;
};

static int batch_flush(struct btrfs_fs_info *fs_info, struct write_batch *b)
{
	int ret = 0;

	if (b->len)
		ret = btrfs_write_logical(fs_info, b->start, b->buf, b->len);
	b->len = 0;
	return ret;
}

static int batch_add(struct btrfs_fs_info *fs_info, struct write_batch *b,
		     struct extent_buffer *eb)
{
	int ret = 0;

	btrfs_finalize_tree_block(fs_info, eb);
	if (!b->buf)
		return btrfs_write_logical(fs_info, eb->start, eb->data, eb->len);
	if (b->len && (b->start + b->len != eb->start || b->len + eb->len > WRITE_BATCH))
		ret = batch_flush(fs_info, b);
	if (ret)
		return ret;
	if (!b->len)
		b->start = eb->start;
	memcpy(b->buf + b->len, eb->data, eb->len);
	b->len += eb->len;
	return 0;
}

static int write_dirty_buffers(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct write_batch b = { malloc(WRITE_BATCH), 0, 0 };
	struct extent_state *st;
	int ret = 0;

	extent_io_tree_for_each(st, &ws->dirty) {
		u64 start;

		for (start = st->start; start <= st->end && !ret; start += fs_info->nodesize) {
			struct extent_buffer *eb = find_extent_buffer(fs_info, start);

			if (!eb || !(eb->flags & EXTENT_BUFFER_DIRTY)) {
				btrfs_err(&fs_info->reporter,
					  "dirty tree block %llu is not in memory",
					  (unsigned long long)start);
				free_extent_buffer(eb);
				ret = -EUCLEAN;
				break;
			}
			ret = batch_add(fs_info, &b, eb);
			free_extent_buffer(eb);
		}
		if (ret)
			break;
	}
	if (!ret)
		ret = batch_flush(fs_info, &b);
	free(b.buf);
	return ret;
}

/* ---- roots ---- */

static struct btrfs_tracked_root *find_tracked(struct btrfs_write_state *ws,
					       const struct btrfs_root *root)
{
	size_t i;

	for (i = 0; i < ws->nr_roots; i++) {
		if (ws->roots[i].root == root)
			return &ws->roots[i];
	}
	return NULL;
}

static int add_tracked(struct btrfs_write_state *ws, struct btrfs_root *root,
		       bool owned)
{
	if (find_tracked(ws, root))
		return 0;
	if (ARRAY_RESERVE(ws->roots, ws->alloc_roots, ws->nr_roots + 1, 16))
		return -ENOMEM;
	ws->roots[ws->nr_roots].root = root;
	ws->roots[ws->nr_roots].dirty = false;
	ws->roots[ws->nr_roots].owned = owned;
	ws->nr_roots++;
	return 0;
}

int btrfs_track_root(struct btrfs_fs_info *fs_info, struct btrfs_root *root)
{
	return add_tracked(wstate(fs_info), root, true);
}

struct btrfs_root *btrfs_get_root(struct btrfs_fs_info *fs_info, u64 objectid)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	for (i = 0; ws && i < ws->nr_roots; i++) {
		if (ws->roots[i].root->root_key.objectid == objectid)
			return ws->roots[i].root;
	}
	return NULL;
}

void btrfs_root_mark_dirty(struct btrfs_fs_info *fs_info, struct btrfs_root *root)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_tracked_root *t = find_tracked(ws, root);

	if (!t) {
		/* a root the caller opened itself: it must live until commit */
		if (add_tracked(ws, root, false)) {
			ws->error = -ENOMEM;
			return;
		}
		t = find_tracked(ws, root);
	}
	t->dirty = true;
	if (root->root_key.objectid == BTRFS_FS_TREE_OBJECTID ||
	    (root->root_key.objectid >= BTRFS_FIRST_FREE_OBJECTID &&
	     root->root_key.objectid <= BTRFS_LAST_FREE_OBJECTID))
		ws->fs_trees_changed = true;
}

/*
 * Quota numbers are not maintained here: once a filesystem tree changed,
 * flag the qgroups inconsistent so that the kernel and check rescan
 * instead of trusting stale numbers.
 */
static int mark_qgroups_inconsistent(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_path path;
	int ret;

	if (!fs_info->quota_root.node || !ws->fs_trees_changed || ws->qgroups_marked ||
	    ws->creating)
		return 0;
	ws->qgroups_marked = true;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, &fs_info->quota_root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) >=
			offsetof(struct btrfs_qgroup_status_item, rescan)) {
		struct btrfs_qgroup_status_item *st = btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_qgroup_status_item);

		btrfs_set_qgroup_status_flags(st, btrfs_qgroup_status_flags(st) |
					      BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static void track_fixed_roots(struct btrfs_fs_info *fs_info)
{
	struct btrfs_root *fixed[] = {
		&fs_info->tree_root, &fs_info->chunk_root, &fs_info->extent_root,
		&fs_info->dev_root, &fs_info->fs_root, &fs_info->csum_root,
		&fs_info->uuid_root, &fs_info->quota_root,
		&fs_info->free_space_root, &fs_info->block_group_root,
	};
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (fixed[i]->node)
			add_tracked(wstate(fs_info), fixed[i], false);
	}
}

static bool roots_dirty(const struct btrfs_fs_info *fs_info)
{
	const struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	for (i = 0; i < ws->nr_roots; i++) {
		const struct btrfs_root *r = ws->roots[i].root;

		if (ws->roots[i].dirty && r != &fs_info->tree_root &&
		    r != &fs_info->chunk_root)
			return true;
	}
	return false;
}

static int write_root_item(struct btrfs_trans_handle *trans, struct btrfs_root *root)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root_item *item = &root->root_item;
	struct btrfs_key key = root->root_key;
	struct btrfs_path path;
	u64 gen = btrfs_eb_generation(root->node);
	int ret;

	btrfs_set_root_bytenr(item, root->node->start);
	btrfs_set_root_level(item, btrfs_eb_level(root->node));
	btrfs_set_root_generation(item, gen);
	btrfs_set_root_generation_v2(item, gen);
	key.type = BTRFS_ROOT_ITEM_KEY;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, &fs_info->tree_root, &key, &path, 0, 1);
	if (ret == 0) {
		u32 size = btrfs_item_size(path.nodes[0], path.slots[0]);

		if (size > sizeof(*item))
			size = sizeof(*item);
		btrfs_write_item_data(&path, 0, item, size);
	}
	btrfs_release_path(&path);
	if (ret > 0)
		ret = btrfs_insert_item(trans, &fs_info->tree_root, &key, item, sizeof(*item));
	if (!ret)
		root->has_root_item = true;
	return ret;
}

static int update_root_items(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;
	int ret;

	for (i = 0; i < ws->nr_roots; i++) {
		struct btrfs_root *r = ws->roots[i].root;

		if (!ws->roots[i].dirty || r == &fs_info->tree_root ||
		    r == &fs_info->chunk_root || !r->node)
			continue;
		ws->roots[i].dirty = false;
		ret = write_root_item(trans, r);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- the write state ---- */

static void write_state_teardown(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	if (!ws)
		return;
	put_dirty_buffers(fs_info, true);
	extent_io_tree_release(&ws->pinned);
	btrfs_destroy_delayed_refs(fs_info);
	btrfs_free_pending_chunks(fs_info);
	btrfs_free_block_groups(fs_info);
	btrfs_free_dev_allocs(fs_info);
	for (i = 0; i < ws->nr_roots; i++) {
		if (!ws->roots[i].owned)
			continue;
		btrfs_release_root(ws->roots[i].root);
		free(ws->roots[i].root);
	}
	free(ws->roots);
	free(ws->running);
	free(ws);
	fs_info->write = NULL;
	fs_info->write_teardown = NULL;
}

int btrfs_write_state_init(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return -ENOMEM;
	ws->fs_info = fs_info;
	extent_io_tree_init(&ws->dirty);
	extent_io_tree_init(&ws->pinned);
	ws->delayed_refs = RB_ROOT;
	INIT_LIST_HEAD(&ws->pending_chunks);
	ws->last_committed = btrfs_super_generation(&fs_info->super_copy);
	fs_info->write = ws;
	fs_info->write_teardown = write_state_teardown;
	btrfs_fault_injection_init(fs_info);
	return 0;
}

static int load_device_items(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_root *root = &fs_info->chunk_root;
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret, i;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != BTRFS_DEV_ITEMS_OBJECTID || key.type != BTRFS_DEV_ITEM_KEY)
			break;
		for (i = 0; i < fs_info->num_devices; i++) {
			if (fs_info->devices[i].devid != key.offset ||
			    btrfs_item_size(path.nodes[0], path.slots[0]) !=
			    sizeof(struct btrfs_dev_item))
				continue;
			memcpy(&ws->dev_items[i], btrfs_item_ptr_raw(path.nodes[0], path.slots[0]),
			       sizeof(struct btrfs_dev_item));
			ws->dev_item_valid[i] = true;
		}
		ret = btrfs_next_item(root, &path);
	}
	ret = ret < 0 ? ret : 0;
out:
	btrfs_release_path(&path);
	return ret;
}

/* new chunks of each type get the profile of the latest chunk of that type */
static void pick_alloc_profiles(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	size_t i;

	for (i = 0; i < ws->nr_bgs; i++) {
		u64 flags = ws->bgs[i]->flags;
		u64 profile = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;

		if (flags & BTRFS_BLOCK_GROUP_SYSTEM)
			ws->alloc_profile[1] = profile;
		if (flags & BTRFS_BLOCK_GROUP_METADATA)
			ws->alloc_profile[2] = profile;
		if (flags & BTRFS_BLOCK_GROUP_DATA)
			ws->alloc_profile[0] = profile;
	}
}

/* features this write path keeps consistent */
#define WRITE_INCOMPAT_SUPP (BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF |		\
			     BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL |		\
			     BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS |		\
			     BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO |		\
			     BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD |		\
			     BTRFS_FEATURE_INCOMPAT_BIG_METADATA |		\
			     BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF |		\
			     BTRFS_FEATURE_INCOMPAT_RAID56 |			\
			     BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA |		\
			     BTRFS_FEATURE_INCOMPAT_NO_HOLES |			\
			     BTRFS_FEATURE_INCOMPAT_METADATA_UUID |		\
			     BTRFS_FEATURE_INCOMPAT_RAID1C34)
#define WRITE_COMPAT_RO_SUPP (BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |		\
			      BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID |	\
			      BTRFS_FEATURE_COMPAT_RO_VERITY |			\
			      BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)

/* refuse what writing would corrupt or what this code does not maintain */
static int check_writable(struct btrfs_fs_info *fs_info)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	u64 incompat = btrfs_super_incompat_flags(sb);
	u64 compat_ro = btrfs_super_compat_ro_flags(sb);

	if (incompat & ~WRITE_INCOMPAT_SUPP) {
		btrfs_err(&fs_info->reporter, "cannot write: incompat features 0x%llx are not supported",
			  (unsigned long long)(incompat & ~WRITE_INCOMPAT_SUPP));
		return -EOPNOTSUPP;
	}
	if (compat_ro & ~WRITE_COMPAT_RO_SUPP) {
		btrfs_err(&fs_info->reporter, "cannot write: compat_ro features 0x%llx are not supported",
			  (unsigned long long)(compat_ro & ~WRITE_COMPAT_RO_SUPP));
		return -EOPNOTSUPP;
	}
	if ((compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) &&
	    !(compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID)) {
		btrfs_err(&fs_info->reporter, "cannot write: the free space tree is not valid");
		return -EUCLEAN;
	}
	if (btrfs_super_log_root(sb)) {
		/* mount would replay the log over our changes */
		btrfs_err(&fs_info->reporter,
			  "cannot write: the filesystem has a log tree at %llu (mount it once, or zero the log)",
			  (unsigned long long)btrfs_super_log_root(sb));
		return -EUCLEAN;
	}
	if (btrfs_super_flags(sb) & (BTRFS_SUPER_FLAG_SEEDING | BTRFS_SUPER_FLAG_METADUMP |
				     (fs_info->write_metadump ? 0 : BTRFS_SUPER_FLAG_METADUMP_V2) |
				     BTRFS_SUPER_FLAG_CHANGING_FSID |
				     BTRFS_SUPER_FLAG_CHANGING_FSID_V2 |
				     BTRFS_SUPER_FLAG_CHANGING_BG_TREE |
				     BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM |
				     BTRFS_SUPER_FLAG_CHANGING_META_CSUM)) {
		btrfs_err(&fs_info->reporter, "cannot write: superblock flags 0x%llx",
			  (unsigned long long)btrfs_super_flags(sb));
		return -EOPNOTSUPP;
	}
	return 0;
}

int btrfs_enable_writes(struct btrfs_fs_info *fs_info)
{
	int ret, i;

	if (fs_info->write)
		return 0;
	if (fs_info->readonly)
		return -EROFS;
	ret = check_writable(fs_info);
	if (ret)
		return ret;
	for (i = 0; i < fs_info->num_devices; i++) {
		if (fs_info->devices[i].fd < 0) {
			btrfs_err(&fs_info->reporter, "devid %llu is missing: cannot write",
				  (unsigned long long)fs_info->devices[i].devid);
			return -ENODEV;
		}
	}
	if (!fs_info->tree_root.node ||
	    (!fs_info->extent_root.node && !fs_info->rebuilding_extent_tree) ||
	    !fs_info->chunk_root.node || !fs_info->dev_root.node)
		return -EUCLEAN;
	ret = btrfs_write_state_init(fs_info);
	if (ret)
		return ret;
	ret = load_device_items(fs_info);
	if (!ret)
		ret = btrfs_load_dev_allocs(fs_info);
	if (!ret)
		ret = btrfs_read_block_groups(fs_info);
	if (ret) {
		write_state_teardown(fs_info);
		return ret;
	}
	pick_alloc_profiles(fs_info);
	track_fixed_roots(fs_info);
	return 0;
}

struct btrfs_fs_info *btrfs_open_ctree_writable(const struct open_ctree_args *args,
						int *err)
{
	struct open_ctree_args a = *args;
	struct btrfs_fs_info *fs_info;

	a.flags |= OPEN_CTREE_WRITES;
	a.flags &= ~(OPEN_CTREE_PARTIAL | OPEN_CTREE_CHUNK_ONLY | OPEN_CTREE_SUPER_ONLY);
	fs_info = open_ctree(&a, err);
	if (!fs_info)
		return NULL;
	*err = btrfs_enable_writes(fs_info);
	if (*err) {
		close_ctree(fs_info);
		return NULL;
	}
	return fs_info;
}

/* ---- transactions ---- */

int btrfs_start_transaction(struct btrfs_fs_info *fs_info,
			    struct btrfs_trans_handle **trans_ret)
{
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_trans_handle *trans;

	if (!ws)
		return -EROFS;
	if (ws->error)
		return -EROFS;
	if (ws->running)
		return -EBUSY;
	trans = calloc(1, sizeof(*trans));
	if (!trans)
		return -ENOMEM;
	trans->fs_info = fs_info;
	trans->transid = ws->last_committed + 1;
	ws->running = trans;
	*trans_ret = trans;
	return 0;
}

static void end_transaction(struct btrfs_trans_handle *trans)
{
	struct btrfs_write_state *ws = wstate(trans->fs_info);

	if (ws && ws->running == trans)
		ws->running = NULL;
	free(trans);
}

void btrfs_abort_transaction(struct btrfs_trans_handle *trans, int error)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);

	if (ws) {
		ws->error = error ? error : -EIO;
		put_dirty_buffers(fs_info, true);
		btrfs_destroy_delayed_refs(fs_info);
	}
	end_transaction(trans);
}

static bool metadata_pending(const struct btrfs_fs_info *fs_info)
{
	return btrfs_have_pending_chunks(fs_info) || btrfs_have_delayed_refs(fs_info) ||
	       btrfs_block_groups_dirty(fs_info) || btrfs_device_items_dirty(fs_info) ||
	       btrfs_free_space_tree_dirty(fs_info) || roots_dirty(fs_info);
}

/* apply every consequence of the transaction's changes to the trees */
static int settle_metadata(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	int pass, ret;

	for (pass = 0; pass < COMMIT_MAX_PASSES; pass++) {
		if (!metadata_pending(fs_info))
			return 0;
		ret = mark_qgroups_inconsistent(trans);
		if (!ret)
			ret = btrfs_finish_pending_chunks(trans);
		if (!ret)
			ret = btrfs_run_delayed_refs(trans);
		if (!ret)
			ret = btrfs_update_device_items(trans);
		if (!ret)
			ret = btrfs_write_dirty_block_groups(trans);
		if (!ret)
			ret = update_root_items(trans);
		if (!ret)
			ret = btrfs_run_delayed_refs(trans);
		if (!ret && !btrfs_have_delayed_refs(fs_info) &&
		    !btrfs_block_groups_dirty(fs_info))
			ret = btrfs_update_free_space_tree(trans);
		if (ret)
			return ret;
		if (wstate(fs_info)->error)
			return wstate(fs_info)->error;
	}
	btrfs_err(&fs_info->reporter, "commit: metadata still changing after %d passes",
		  COMMIT_MAX_PASSES);
	return -ELOOP;
}

static void fill_backup_root(struct btrfs_fs_info *fs_info, struct btrfs_root_backup *b)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	struct {
		struct btrfs_root *root;
		void (*set)(struct btrfs_root_backup *, u64);
		void (*set_gen)(struct btrfs_root_backup *, u64);
		void (*set_level)(struct btrfs_root_backup *, u8);
	} map[] = {
		{ &fs_info->tree_root, btrfs_set_backup_tree_root,
		  btrfs_set_backup_tree_root_gen, btrfs_set_backup_tree_root_level },
		{ &fs_info->chunk_root, btrfs_set_backup_chunk_root,
		  btrfs_set_backup_chunk_root_gen, btrfs_set_backup_chunk_root_level },
		{ &fs_info->extent_root, btrfs_set_backup_extent_root,
		  btrfs_set_backup_extent_root_gen, btrfs_set_backup_extent_root_level },
		{ &fs_info->fs_root, btrfs_set_backup_fs_root,
		  btrfs_set_backup_fs_root_gen, btrfs_set_backup_fs_root_level },
		{ &fs_info->dev_root, btrfs_set_backup_dev_root,
		  btrfs_set_backup_dev_root_gen, btrfs_set_backup_dev_root_level },
		{ &fs_info->csum_root, btrfs_set_backup_csum_root,
		  btrfs_set_backup_csum_root_gen, btrfs_set_backup_csum_root_level },
	};
	size_t i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct extent_buffer *node = map[i].root->node;

		if (!node)
			continue;
		map[i].set(b, node->start);
		map[i].set_gen(b, btrfs_eb_generation(node));
		map[i].set_level(b, btrfs_eb_level(node));
	}
	btrfs_set_backup_total_bytes(b, btrfs_super_total_bytes(sb));
	btrfs_set_backup_bytes_used(b, btrfs_super_bytes_used(sb));
	btrfs_set_backup_num_devices(b, btrfs_super_num_devices(sb));
}

/* the backup slot after the one holding the previous commit */
static int next_backup_slot(const struct btrfs_super_block *sb, u64 prev_gen)
{
	int i;

	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		if (btrfs_backup_tree_root_gen(&sb->super_roots[i]) == prev_gen &&
		    btrfs_backup_tree_root(&sb->super_roots[i]))
			return (i + 1) % BTRFS_NUM_BACKUP_ROOTS;
	}
	return 0;
}

static int update_super(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	struct btrfs_super_block *sb = &fs_info->super_copy;
	u64 prev_gen = btrfs_super_generation(sb);
	int slot, i, ret;

	btrfs_set_super_generation(sb, trans->transid);
	btrfs_set_super_root(sb, fs_info->tree_root.node->start);
	btrfs_set_super_root_level(sb, btrfs_eb_level(fs_info->tree_root.node));
	btrfs_set_super_chunk_root(sb, fs_info->chunk_root.node->start);
	btrfs_set_super_chunk_root_level(sb, btrfs_eb_level(fs_info->chunk_root.node));
	btrfs_set_super_chunk_root_generation(sb, btrfs_eb_generation(fs_info->chunk_root.node));
	btrfs_set_super_bytes_used(sb, btrfs_total_used_bytes(fs_info));
	if (!btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		btrfs_set_super_cache_generation(sb, (u64)-1);	/* any v1 cache is stale */
	if (ws->uuid_tree_changed && !ws->creating)
		btrfs_set_super_uuid_tree_generation(sb, trans->transid);
	for (i = 0; i < fs_info->num_devices; i++) {
		if (ws->dev_item_valid[i] &&
		    fs_info->devices[i].devid == btrfs_device_id(&sb->dev_item))
			sb->dev_item = ws->dev_items[i];
	}
	ret = btrfs_rebuild_sys_array(fs_info);
	if (ret)
		return ret;
	slot = ws->creating && prev_gen == 0 ? 0 : next_backup_slot(sb, prev_gen);
	fill_backup_root(fs_info, &sb->super_roots[slot]);
	return 0;
}

/*
 * Mount reads the tree root expecting the superblock's generation: the
 * root is copied into this transaction even when nothing else touched it.
 */
static int cow_tree_root(struct btrfs_trans_handle *trans)
{
	struct btrfs_root *tree_root = &trans->fs_info->tree_root;
	struct extent_buffer *eb;
	int ret;

	ret = btrfs_cow_block(trans, tree_root, tree_root->node, NULL, 0, &eb);
	if (!ret)
		free_extent_buffer(eb);
	return ret;
}

int btrfs_commit_transaction(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_write_state *ws = wstate(fs_info);
	bool v1_valid = false;
	int ret;

	if (trans->aborted || ws->error) {
		ret = ws->error ? ws->error : -EIO;
		goto fail;
	}
	if (!metadata_pending(fs_info) && extent_io_tree_empty(&ws->dirty) &&
	    !ws->creating && !ws->finishing && !ws->super_dirty) {
		/* nothing changed: the generation on disk stays */
		end_transaction(trans);
		return 0;
	}
	ret = cow_tree_root(trans);
	if (!ret)
		ret = settle_metadata(trans);
	/*
	 * Free space tree off: write the v1 space cache of every block group
	 * (free-space-cache-v1.c); it settles the metadata again itself.
	 */
	if (!ret)
		ret = btrfs_write_v1_space_caches(trans, settle_metadata, &v1_valid);
	if (ret)
		goto fail;
	ret = update_super(trans);
	if (ret)
		goto fail;
	/* update_super() invalidated every v1 cache; these are good */
	if (v1_valid)
		btrfs_set_super_cache_generation(&fs_info->super_copy, trans->transid);
	ret = write_dirty_buffers(fs_info);
	if (ret)
		goto fail;
	if (btrfs_commit_needs_flush(fs_info))
		ret = btrfs_flush_all_devices(fs_info);
	if (ret)
		goto fail;
	ret = btrfs_write_all_supers(fs_info);
	if (ret)
		goto fail;
	put_dirty_buffers(fs_info, false);
	if (!ws->keep_pinned)
		btrfs_unpin_extents(fs_info);
	ws->super_dirty = false;
	ws->last_committed = trans->transid;
	fs_info->generation = trans->transid;
	ws->uuid_tree_changed = false;
	ws->finishing = false;
	end_transaction(trans);
	return 0;
fail:
	btrfs_err(&fs_info->reporter, "transaction %llu aborted: %s",
		  (unsigned long long)trans->transid, strerror(-ret));
	btrfs_abort_transaction(trans, ret);
	return ret;
}
