// SPDX-License-Identifier: GPL-2.0
/*
 * ghee check --repair --init-uuid-tree: every entry of the uuid tree is
 * made again from the root items.
 *
 * The uuid tree is an index: for each subvolume (the top level one too)
 * its uuid names its id (UUID_KEY_SUBVOL), and a received subvolume's
 * received uuid names it as well (UUID_KEY_RECEIVED_SUBVOL); send and
 * receive look subvolumes up there.  Everything in it can be computed
 * from the root items, so the rebuild empties the tree and adds one entry
 * per subvolume and uuid: a subvolume with a root item of the current
 * format and a reference count (one being deleted has none).  The entries
 * are gathered first (a few dozen bytes per subvolume), then written.
 * A uuid tree whose root block cannot be read is not replaced (its
 * blocks would stay allocated); a filesystem without one gets it from
 * the kernel at the next mount.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-rebuild.h"
#include "array.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

struct uuid_entry {
	u8 uuid[BTRFS_UUID_SIZE];
	u8 type;
	u64 subvol;
};

struct uuid_entries {
	struct uuid_entry *v;
	size_t nr;
	size_t alloc;
	size_t received;
};

static bool uuid_empty(const u8 *uuid)
{
	static const u8 zero[BTRFS_UUID_SIZE];

	return !memcmp(uuid, zero, BTRFS_UUID_SIZE);
}

static int add_entry(struct uuid_entries *e, const u8 *uuid, u8 type, u64 subvol)
{
	if (uuid_empty(uuid))
		return 0;
	if (ARRAY_RESERVE(e->v, e->alloc, e->nr + 1, 16))
		return -ENOMEM;
	memcpy(e->v[e->nr].uuid, uuid, BTRFS_UUID_SIZE);
	e->v[e->nr].type = type;
	e->v[e->nr].subvol = subvol;
	e->nr++;
	if (type == BTRFS_UUID_KEY_RECEIVED_SUBVOL)
		e->received++;
	return 0;
}

/* the entries the root items call for */
static int gather_entries(struct btrfs_fs_info *fs, struct uuid_entries *e)
{
	struct btrfs_root *root = &fs->tree_root;
	struct btrfs_key key = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		const struct btrfs_root_item *ri;

		btrfs_path_key(&path, &key);
		if (key.objectid > BTRFS_LAST_FREE_OBJECTID)
			break;
		if (key.type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_subvol_tree(key.objectid) ||
		    btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*ri))
			goto next;
		ri = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_root_item);
		if (!btrfs_root_refs(ri))
			goto next;
		ret = add_entry(e, ri->uuid, BTRFS_UUID_KEY_SUBVOL, key.objectid);
		if (!ret)
			ret = add_entry(e, ri->received_uuid, BTRFS_UUID_KEY_RECEIVED_SUBVOL,
					key.objectid);
		if (ret)
			break;
next:
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

/* delete every item of the uuid tree; how many in @nr */
static int empty_tree(struct btrfs_trans_handle *trans, struct btrfs_root *root, size_t *nr)
{
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret, n;

	*nr = 0;
	for (;;) {
		btrfs_init_path(&path);
		ret = btrfs_search_slot(trans, root, &key, &path, -1, 1);
		if (ret < 0)
			break;
		n = btrfs_eb_nritems(path.nodes[0]);
		if (!n) {
			ret = 0;	/* the root leaf, empty */
			break;
		}
		/* the first leaf, whole: its items are all uuid entries */
		ret = btrfs_del_items(trans, root, &path, 0, n);
		if (ret)
			break;
		*nr += n;
		btrfs_release_path(&path);
	}
	btrfs_release_path(&path);
	return ret;
}

int repair_rebuild_uuid_tree(struct repair_ctx *r)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_root *uuid = &fs->uuid_root;
	struct uuid_entries e = { NULL, 0, 0, 0 };
	size_t i, old = 0;
	int ret;

	if (!uuid->node && uuid->has_root_item) {
		fprintf(stderr, "ERROR: cannot rebuild the uuid tree: its root block cannot be read\n");
		return -EUCLEAN;
	}
	if (!uuid->node) {
		if (r->out)
			fprintf(r->out, "  no uuid tree: the kernel makes one at the next mount\n");
		return 1;
	}
	ret = gather_entries(fs, &e);
	if (ret)
		goto out;
	if (!r->trans) {
		if (r->out)
			fprintf(r->out, "  would rebuild the uuid tree: %zu entries (%zu received) from the root items\n",
				e.nr, e.received);
		goto out;
	}
	ret = empty_tree(r->trans, uuid, &old);
	for (i = 0; !ret && i < e.nr; i++)
		ret = btrfs_uuid_tree_add(r->trans, e.v[i].uuid, e.v[i].type, e.v[i].subvol);
	if (ret) {
		fprintf(stderr, "ERROR: rebuilding the uuid tree failed: %s\n", strerror(-ret));
		goto out;
	}
	fs->write->uuid_tree_changed = true;
	if (r->out)
		fprintf(r->out, "  rebuilt the uuid tree: %zu entries (%zu received) from the root items, %zu old items deleted\n",
			e.nr, e.received, old);
out:
	free(e.v);
	return ret;
}
