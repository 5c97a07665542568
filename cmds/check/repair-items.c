// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions that insert, move or change single items of the root,
 * extent and filesystem trees: the orphan item of a deleted subvolume, an
 * extent item's generation, a missing hole (file extent), a dir item
 * filed under the wrong name hash, and the superblock and device sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "repair-inode.h"
#include "repair-names.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/extent-tree.h"
#include "kernel-shared/file-item.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

/* ROOT_ITEM_INVALID: only "deleted subvolume ... has no orphan item" */
int repair_root_item(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, p->root };
	struct btrfs_path path;
	int ret;

	if (!p->detail || !strstr(p->detail, "has no orphan item"))
		return -EOPNOTSUPP;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &r->fs_info->tree_root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : -EEXIST;
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root tree item (ORPHAN ORPHAN_ITEM %llu): the kernel drops the subvolume",
		    (unsigned long long)p->root);
	return btrfs_insert_item(r->trans, &r->fs_info->tree_root, &key, NULL, 0);
}

/* EXTENT_ITEM_INVALID: only a generation from the future */
int repair_extent_item(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = &r->fs_info->extent_root;
	struct btrfs_key key = { p->bytenr, BTRFS_EXTENT_ITEM_KEY, p->len };
	u64 gen = r->trans->transid - 1;
	struct btrfs_extent_item *ei;
	struct btrfs_path path;
	char ks[96];
	u64 old;
	int ret;

	if (!p->detail || strncmp(p->detail, "invalid generation", 18))
		return -EOPNOTSUPP;
	ret = repair_search(r, root, &key, &path);
	if (ret > 0) {
		/* a skinny metadata item: (bytenr METADATA_ITEM level) */
		btrfs_release_path(&path);
		key.type = BTRFS_METADATA_ITEM_KEY;
		key.offset = 0;
		ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
		if (ret >= 0)
			ret = btrfs_path_fixup_slot(root, &path);
		if (ret == 0) {
			btrfs_path_key(&path, &key);
			ret = key.objectid == p->bytenr && key.type == BTRFS_METADATA_ITEM_KEY ? 0 : 1;
		}
		btrfs_release_path(&path);
		if (ret == 0)
			ret = repair_search(r, root, &key, &path);
	}
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*ei)) {
		btrfs_release_path(&path);
		return -EUCLEAN;
	}
	ei = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_extent_item);
	old = btrfs_extent_generation(ei);
	check_format_key(&key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_CHANGE, true, old, gen, "extent tree %s generation", ks);
	btrfs_set_extent_generation(ei, gen);
	btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	return 0;
}

/* FILE_EXTENT_HOLE: an explicit hole (the filesystem has no NO_HOLES) */
int repair_file_extent_hole(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { p->inode, BTRFS_EXTENT_DATA_KEY, p->bytenr };
	struct btrfs_file_extent_params fe = {
		.num_bytes = p->len, .ram_bytes = p->len, .type = BTRFS_FILE_EXTENT_REG,
	};
	struct btrfs_path path;
	int ret;

	if (!root || !p->len)
		return -ENOENT;
	if (btrfs_fs_incompat(r->fs_info, BTRFS_FEATURE_INCOMPAT_NO_HOLES))
		return -EOPNOTSUPP;	/* holes need no items there */
	/* a "file" with dir entries: INODE_INVALID's fix makes it a directory */
	ret = repair_names_has_dir_entries(root, p->inode);
	if (ret)
		return ret < 0 ? ret : 1;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : -EEXIST;
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu EXTENT_DATA %llu) hole of %llu bytes",
		    (unsigned long long)p->root, (unsigned long long)p->inode,
		    (unsigned long long)p->bytenr, (unsigned long long)p->len);
	return btrfs_insert_file_extent(r->trans, root, p->inode, p->bytenr, &fe);
}

/*
 * SUPER_FIELD: only "device total_bytes alignment": each device's size
 * is rounded down to the sector size (what the kernel can use), and the
 * superblock's total_bytes, their sum, follows.
 */
int repair_super_field(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	u32 sector = fs->sectorsize;
	int i, n = 0;

	if (!p->name || strncmp(p->name, "device total_bytes alignment", 28))
		return -EOPNOTSUPP;
	for (i = 0; i < fs->num_devices; i++) {
		struct btrfs_device *dev = &fs->devices[i];
		u64 want = dev->total_bytes / sector * sector;

		if (dev->total_bytes == want)
			continue;
		n++;
		repair_note(r, REPAIR_OP_CHANGE, true, dev->total_bytes, want,
			    "chunk tree (DEV_ITEMS DEV_ITEM %llu) total_bytes",
			    (unsigned long long)dev->devid);
		dev->total_bytes = want;
		if (fs->write->dev_item_valid[i]) {
			btrfs_set_device_total_bytes(&fs->write->dev_items[i], want);
			fs->write->dev_item_dirty[i] = true;
		}
	}
	if (!n)
		return 1;
	n = fix_super_total_bytes(r, p);
	return n < 0 ? n : 0;
}

/*
 * EXTENT_ITEM_MISSING, only for a tree block that one root references:
 * its METADATA_ITEM (or, without skinny metadata, EXTENT_ITEM with the
 * block's first key) with the inline TREE_BLOCK_REF is inserted, level and generation from the block's header, which must
 * name that root as its owner.  The block group's used already counts
 * it (the item went missing, the space did not).
 */
int repair_extent_item_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct tree_block_check check = { .level = -1 };
	bool skinny = btrfs_fs_incompat(fs, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA);
	u8 buf[sizeof(struct btrfs_extent_item) + sizeof(struct btrfs_tree_block_info) +
	       sizeof(struct btrfs_extent_inline_ref)];
	struct btrfs_extent_item *ei = (void *)buf;
	struct btrfs_extent_inline_ref *iref;
	u32 size = sizeof(*ei);
	unsigned long long owner;
	struct extent_buffer *eb;
	struct btrfs_key key;
	struct btrfs_path path;
	char ks[96];
	int ret, err = 0;

	if (!p->detail || sscanf(p->detail, "tree block ref root %llu", &owner) != 1 ||
	    p->found != 1 || p->len != fs->nodesize)
		return -EOPNOTSUPP;
	eb = read_tree_block(fs, p->bytenr, &check, &err);
	if (!eb)
		return err ? err : -EIO;
	memset(buf, 0, sizeof(buf));
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, btrfs_eb_generation(eb));
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	key.objectid = p->bytenr;
	if (skinny) {
		key.type = BTRFS_METADATA_ITEM_KEY;
		key.offset = btrfs_eb_level(eb);
	} else {
		/* the old layout: the block's first key and level in the item */
		struct btrfs_tree_block_info *info = (void *)(buf + size);
		struct btrfs_key first = { 0, 0, 0 };

		if (btrfs_eb_nritems(eb)) {
			if (btrfs_eb_level(eb))
				btrfs_node_key_to_cpu(eb, &first, 0);
			else
				btrfs_item_key_to_cpu(eb, &first, 0);
		}
		key.type = BTRFS_EXTENT_ITEM_KEY;
		key.offset = fs->nodesize;
		btrfs_cpu_key_to_disk(&info->key, &first);
		btrfs_set_tree_block_level(info, btrfs_eb_level(eb));
		size += sizeof(*info);
	}
	iref = (void *)(buf + size);
	btrfs_set_extent_inline_ref_type(iref, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(iref, owner);
	size += sizeof(*iref);
	ret = btrfs_eb_owner(eb) == owner && btrfs_eb_bytenr(eb) == p->bytenr ? 0 : -ESTALE;
	free_extent_buffer(eb);
	if (ret)
		return ret;
	/* an item of another kind at that address: not ours to replace */
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs->extent_root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : -EEXIST;
	check_format_key(&key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "extent tree item %s refs 1, tree block ref root %llu", ks, owner);
	return btrfs_insert_item(r->trans, &fs->extent_root, &key, buf, size);
}

/*
 * EXTENT_BACKREF_UNUSED, for keyed data refs: the extent item holds more
 * references of (root, inode, offset) than file extent items make; the
 * extra ones are dropped (the extent is freed when no reference is left:
 * then no file reads it).  Tree block and shared refs are left alone.
 */
int repair_backref_unused(struct repair_ctx *r, const struct problem_ctx *p)
{
	unsigned long long root, ino, off, stored, found = 0;
	u64 i;
	int ret = 0;

	if (!p->detail || strstr(p->detail, " for length "))
		return -EOPNOTSUPP;
	if (sscanf(p->detail, "data ref root %llu inode %llu offset %llu count %llu, the trees make it %llu",
		   &root, &ino, &off, &stored, &found) != 5 &&
	    sscanf(p->detail, "data ref root %llu inode %llu offset %llu count %llu, no tree makes it",
		   &root, &ino, &off, &stored) != 4)
		return -EOPNOTSUPP;
	if (found >= stored)
		return -EINVAL;
	repair_note(r, REPAIR_OP_CHANGE, true, stored, found,
		    "extent [%llu %llu] data ref root %llu inode %llu offset %llu count",
		    (unsigned long long)p->bytenr, (unsigned long long)p->len, root, ino, off);
	for (i = found; i < stored && !ret; i++)
		ret = btrfs_dec_data_ref(r->trans, p->bytenr, p->len, root, ino, off);
	return ret;
}
