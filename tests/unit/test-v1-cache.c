// SPDX-License-Identifier: GPL-2.0
/*
 * The v1 free space cache writer (free-space-cache-v1.c): after commits on
 * a filesystem without the free space tree, every block group of 100 MiB
 * or more has a cache that decodes (checksums, generation, entries) to
 * exactly the group's free space, and the superblock's cache_generation
 * is the commit's generation.
 *
 * Image mode, for tests/mkfs-tests/060-v1-space-cache: with
 * GHEE_V1_CACHE_IMAGE=PATH, test_v1_image opens that image writable, adds
 * files (GHEE_V1_CACHE_FILES of 1 MiB, default 16) and commits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "test-fs.h"
#include "ctree.h"
#include "inode.h"
#include "file-item.h"
#include "block-group.h"
#include "volumes.h"
#include "crc32c.h"

#define PAGE 4096U

/* a regular file of @len bytes (a pattern) in the top directory */
static int add_file(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		    u64 ino, u64 index, u64 len)
{
	struct btrfs_inode_params ip = { 0 };
	char name[32];
	u8 *buf = malloc(len);
	int ret;

	if (!buf)
		return -ENOMEM;
	memset(buf, (int)(ino & 0xff), len);
	ip.mode = 0100644;
	ip.nlink = 1;
	ip.size = len;
	ip.nbytes = len;
	snprintf(name, sizeof(name), "v1-%llu", (unsigned long long)ino);
	ret = btrfs_insert_inode(trans, root, ino, &ip);
	if (!ret)
		ret = btrfs_add_link(trans, root, ino, BTRFS_FIRST_FREE_OBJECTID, name,
				     (int)strlen(name), btrfs_mode_to_type(ip.mode), index);
	if (!ret)
		ret = btrfs_write_file_extent(trans, root, ino, 0, buf, len, false, NULL);
	free(buf);
	return ret;
}

static int add_files(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     int nr, u64 len)
{
	u64 ino;
	int i, ret;

	ret = btrfs_find_highest_objectid(root, &ino);
	for (i = 0; !ret && i < nr; i++) {
		ino++;
		/* indexes follow inode numbers: unique in the directory */
		ret = add_file(trans, root, ino, ino, len);
	}
	return ret;
}

/* the cache file of the group at @start; 1 when it has none */
static int read_cache(struct btrfs_fs_info *fs_info, u64 start, u64 *gen,
		      u64 *entries, u8 **data, u64 *size)
{
	struct btrfs_key key = { BTRFS_FREE_SPACE_OBJECTID, 0, start };
	struct btrfs_inode_item inode;
	struct btrfs_path path;
	u64 ino, disk = 0;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs_info->tree_root, &key, &path, 0, 0);
	if (ret == 0) {
		const struct btrfs_free_space_header *h = btrfs_item_ptr(path.nodes[0],
					path.slots[0], struct btrfs_free_space_header);

		ino = btrfs_disk_key_objectid(&h->location);
		*gen = btrfs_free_space_generation(h);
		*entries = btrfs_free_space_entries(h);
	}
	btrfs_release_path(&path);
	if (ret)
		return ret;
	ck_assert_int_eq(btrfs_read_inode(&fs_info->tree_root, ino, &inode), 0);
	ck_assert_uint_eq(btrfs_inode_mode(&inode), 0100600);
	ck_assert_uint_eq(btrfs_inode_generation(&inode), *gen);
	*size = btrfs_inode_size(&inode);
	key.objectid = ino;
	key.type = BTRFS_EXTENT_DATA_KEY;
	key.offset = 0;
	ret = btrfs_search_slot(NULL, &fs_info->tree_root, &key, &path, 0, 0);
	ck_assert_int_eq(ret, 0);
	disk = btrfs_file_extent_disk_bytenr(btrfs_item_ptr(path.nodes[0], path.slots[0],
							     struct btrfs_file_extent_item));
	btrfs_release_path(&path);
	*data = malloc(*size);
	ck_assert_ptr_nonnull(*data);
	ck_assert_int_eq(btrfs_read_logical(fs_info, disk, *data, *size, 0), 0);
	return 0;
}

/* decode @data and compare with the group's free space, range by range */
static void compare_cache(struct btrfs_block_group *bg, const u8 *data, u64 size,
			  u64 gen, u64 entries)
{
	u32 nr_pages = (u32)(size / PAGE), page = 0, off, i;
	u64 pos = 0, start, len;

	REQUIRE(nr_pages >= 1 && nr_pages * 4 + 8 <= PAGE);
	for (i = 0; i < nr_pages; i++) {
		u32 skip = i ? 0 : nr_pages * 4;

		REQUIRE_UINT(get_unaligned_le32(data + i * 4), ==,
			     crc32c_value(data + (u64)i * PAGE + skip, PAGE - skip));
	}
	off = nr_pages * 4;
	REQUIRE_UINT(get_unaligned_le64(data + off), ==, gen);
	off += 8;
	for (i = 0; i < entries; i++) {
		const u8 *e;

		if (off + 17 > PAGE) {
			page++;
			off = 0;
		}
		REQUIRE(page < nr_pages);
		e = data + (u64)page * PAGE + off;
		off += 17;
		REQUIRE_UINT(e[16], ==, BTRFS_FREE_SPACE_EXTENT);
		REQUIRE_INT(btrfs_block_group_next_free(bg, &pos, &start, &len), ==, 0);
		REQUIRE_UINT(get_unaligned_le64(e), ==, start);
		REQUIRE_UINT(get_unaligned_le64(e + 8), ==, len);
	}
	REQUIRE_INT(btrfs_block_group_next_free(bg, &pos, &start, &len), ==, 1);
}

/* after a commit: every big group's cache is valid and exact */
static int verify_caches(struct btrfs_fs_info *fs_info)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	size_t i;
	int nr = 0;

	ck_assert_uint_eq(btrfs_super_cache_generation(sb), btrfs_super_generation(sb));
	for (i = 0; i < btrfs_nr_block_groups(fs_info); i++) {
		struct btrfs_block_group *bg = btrfs_block_group_nr(fs_info, i);
		u64 gen, entries, size;
		u8 *data;
		int ret;

		ret = read_cache(fs_info, bg->start, &gen, &entries, &data, &size);
		if (bg->length < (100ULL << 20) && ret == 1)
			continue;
		ck_assert_int_eq(ret, 0);
		ck_assert_uint_eq(gen, btrfs_super_generation(sb));
		compare_cache(bg, data, size, gen, entries);
		free(data);
		nr++;
	}
	return nr;
}

START_TEST(test_v1_commits)
{
	struct test_fs tfs;
	int nr;

	test_fs_create(&tfs, 16384, 4ULL << 30, TEST_FS_NO_FST);
	/* mkfs writes none, like mkfs.btrfs */
	ck_assert_uint_eq(btrfs_super_cache_generation(&tfs.fs->super_copy), (u64)-1);
	/* more than the first 8 MiB data group: a big data group appears */
	ck_assert_int_eq(add_files(tfs.trans, &tfs.fs->fs_root, 12, 1 << 20), 0);
	test_fs_commit(&tfs);
	nr = verify_caches(tfs.fs);
	ck_assert_int_ge(nr, 2);
	test_fs_verify_extents(&tfs);

	/* rewritten on every commit: the old cache extents are freed */
	ck_assert_int_eq(add_files(tfs.trans, &tfs.fs->fs_root, 3, 100000), 0);
	test_fs_commit(&tfs);
	ck_assert_int_eq(verify_caches(tfs.fs), nr);
	test_fs_verify_extents(&tfs);

	/* a reopened filesystem reuses the cache inodes */
	test_fs_reopen(&tfs);
	ck_assert_int_eq(verify_caches(tfs.fs), nr);
	ck_assert_int_eq(add_files(tfs.trans, &tfs.fs->fs_root, 5, 300000), 0);
	test_fs_commit(&tfs);
	ck_assert_int_eq(verify_caches(tfs.fs), nr);
	test_fs_verify_extents(&tfs);
	test_fs_destroy(&tfs);
}
END_TEST

static void report_stderr(void *ctx, enum btrfs_report_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "engine[%d]: %s\n", level, msg);
}

/* image mode (see the top of the file); passes without the variable */
START_TEST(test_v1_image)
{
	const char *img = getenv("GHEE_V1_CACHE_IMAGE");
	const char *files = getenv("GHEE_V1_CACHE_FILES");
	const char *paths[1];
	struct open_ctree_args args;
	struct btrfs_trans_handle *trans;
	struct btrfs_fs_info *fs;
	int err;

	if (!img)
		return;
	paths[0] = img;
	memset(&args, 0, sizeof(args));
	args.paths = paths;
	args.nr_paths = 1;
	args.backup_root = -1;
	args.reporter.report = report_stderr;
	fs = btrfs_open_ctree_writable(&args, &err);
	ck_assert_msg(fs, "cannot open %s writable: %d", img, err);
	ck_assert_int_eq(btrfs_start_transaction(fs, &trans), 0);
	ck_assert_int_eq(add_files(trans, &fs->fs_root, files ? atoi(files) : 16, 1 << 20), 0);
	ck_assert_int_eq(btrfs_commit_transaction(trans), 0);
	verify_caches(fs);
	close_ctree(fs);
}
END_TEST

Suite *v1_cache_suite(void)
{
	Suite *s = suite_create("v1_cache");
	TCase *tc = tcase_create("v1_cache");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_v1_commits);
	tcase_add_test(tc, test_v1_image);
	suite_add_tcase(s, tc);
	return s;
}
