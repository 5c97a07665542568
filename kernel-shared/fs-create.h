/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Creating a filesystem from nothing (the engine side of mkfs).
 *
 *   struct btrfs_create_params p = { ... };	validated by the caller
 *   btrfs_create_fs(&p, &fs_info, &trans);	devices wiped, chunks and
 *						every tree created in memory
 *   ... populate through trans (inode.h, dir-item helpers, data extents)
 *   btrfs_create_fs_finish(trans);		commit: the filesystem exists
 *   close_ctree(fs_info);
 *
 * Until btrfs_create_fs_finish() returns, every superblock written
 * carries a temporary magic: an interrupted mkfs leaves no valid
 * filesystem.  Intermediate btrfs_commit_transaction() calls are allowed
 * (to bound memory while populating).
 *
 * The result has the trees and items mkfs.btrfs 6.2 creates: see
 * WRITE-PATH.md.
 */
#ifndef GHEE_FS_CREATE_H
#define GHEE_FS_CREATE_H

#include <stdbool.h>
#include "format.h"
#include "disk-io.h"
#include "chunk-alloc.h"

struct btrfs_trans_handle;

struct btrfs_create_device {
	const char *path;	/* copied; for messages */
	int fd;			/* open O_RDWR; closed by close_ctree */
	u64 total_bytes;	/* bytes of the device btrfs may use */
	u8 uuid[BTRFS_UUID_SIZE];
	u32 io_align, io_width;	/* 0: sectorsize */
};

#define BTRFS_CREATE_MAX_CHUNKS 8

struct btrfs_create_params {
	u8 fsid[BTRFS_FSID_SIZE];
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	u8 fs_tree_uuid[BTRFS_UUID_SIZE];	/* root item uuid of subvolume 5 */
	char label[BTRFS_LABEL_SIZE];
	u32 nodesize;
	u32 sectorsize;
	u32 stripesize;			/* 0: sectorsize */
	u16 csum_type;
	u64 compat_flags;
	u64 compat_ro_flags;		/* FREE_SPACE_TREE(_VALID), BLOCK_GROUP_TREE */
	u64 incompat_flags;		/* MIXED_BACKREF is always added */

	int nr_devices;
	struct btrfs_create_device *devices;	/* devid = index + 1 */

	/* profile bits (0: single) of each type */
	u64 system_profile;
	u64 metadata_profile;
	u64 data_profile;		/* ignored with MIXED_GROUPS */

	/*
	 * The first chunks, in the order they are allocated.  nr_chunks == 0
	 * gives a system, a metadata and a data chunk (or a mixed one) with
	 * default sizes.  Each request's type must carry its profile.
	 */
	int nr_chunks;
	struct btrfs_chunk_request chunks[BTRFS_CREATE_MAX_CHUNKS];

	u64 now_sec;			/* timestamps of the inodes and root items */
	u32 now_nsec;
	u64 generation;			/* first transaction id; 0: 1 */
	bool no_uuid_tree;		/* skip the uuid tree (mkfs.btrfs always makes it) */
	bool no_data_reloc_tree;
	size_t cache_budget;		/* extent buffer cache, 0: default */
	struct btrfs_reporter reporter;
};

/*
 * Build the filesystem in memory: superblock, bootstrap chunks, the chunk
 * tree, tree of tree roots, extent, device, fs (root directory 256),
 * checksum, uuid (subvolume 5's uuid), free space tree and block group
 * tree when enabled, data reloc tree (-9, root directory 256), the root
 * tree directory (6) with "default" -> 5.  Returns the fs_info and the
 * running transaction; on error nothing valid was written and every fd
 * given was closed.
 */
int btrfs_create_fs(const struct btrfs_create_params *params,
		    struct btrfs_fs_info **fs_ret,
		    struct btrfs_trans_handle **trans_ret);

/* commit with the real magic; frees the handle */
int btrfs_create_fs_finish(struct btrfs_trans_handle *trans);

/*
 * Lower-level pieces, for callers that build differently.
 */
/* an fs_info from parameters, devices attached, no trees */
int btrfs_create_fs_info(const struct btrfs_create_params *params,
			 struct btrfs_fs_info **fs_ret);
/* a new empty tree (one leaf) for @objectid, tracked for commit */
int btrfs_create_tree(struct btrfs_trans_handle *trans, u64 objectid,
		      struct btrfs_root **root_ret);

#endif
