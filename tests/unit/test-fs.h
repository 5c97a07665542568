/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A real filesystem in an unlinked temporary file, for the write-path
 * unit tests, and a checker of the allocator's invariants on it.
 */
#ifndef GHEE_TEST_FS_H
#define GHEE_TEST_FS_H

#include "disk-io.h"
#include "transaction.h"

#define TEST_FS_NO_FST		(1U << 0)	/* no free space tree */
#define TEST_FS_NOT_SKINNY	(1U << 1)	/* EXTENT_ITEMs for tree blocks */
#define TEST_FS_MIXED		(1U << 2)	/* mixed block groups */

struct test_fs {
	struct btrfs_fs_info *fs;
	struct btrfs_trans_handle *trans;	/* always one running */
	int nr_devices;
	int fds[8];			/* our own copies of the device fds */
	char paths[8][32];		/* /proc/self/fd/N of each */
};

/* create, commit, start a transaction; @nr_devices files of @size each */
void test_fs_create_devs(struct test_fs *tfs, u32 nodesize, u64 size,
			 unsigned int flags, int nr_devices, u64 meta_profile,
			 u64 data_profile);
static inline void test_fs_create(struct test_fs *tfs, u32 nodesize, u64 size,
				  unsigned int flags)
{
	test_fs_create_devs(tfs, nodesize, size, flags, 1, BTRFS_BLOCK_GROUP_DUP, 0);
}
/* a new empty tree in the running transaction */
struct btrfs_root *test_fs_new_tree(struct test_fs *tfs, u64 objectid);
/* commit and start the next transaction */
void test_fs_commit(struct test_fs *tfs);
/* drop the running transaction, close, open again writable, start one */
void test_fs_reopen(struct test_fs *tfs);
void test_fs_destroy(struct test_fs *tfs);

/*
 * After a commit: every tree block of every tree has exactly one extent
 * item with a back reference to its owner, no extent is left over, no
 * two extents overlap, block group `used` (in memory and in the items)
 * equals the extents inside each group, the superblock's bytes_used
 * their sum, each device's bytes_used its device extents, the free space
 * tree equals the unallocated space, and the in-memory free space plus
 * `used` plus the superblock copies covers each group exactly.
 * @extra_data: bytes of data extents the test allocated (checked too).
 */
void test_fs_verify_extents(struct test_fs *tfs);

#endif
