// SPDX-License-Identifier: GPL-2.0
/*
 * Owners and paths (extent-owners.c) against a model, on a filesystem the
 * engine writes: a random directory tree of more directories than the
 * resolver's name cache holds (so entries are evicted and looked up
 * again), deep chains, files with one to three hard links in random
 * directories and one data extent each.  After a commit:
 * - btrfs_inode_paths gives exactly the model's paths of each file and
 *   directory, asked in random order, twice;
 * - walking the extent tree, each data extent's owners are exactly its
 *   file (tree 5, the inode, offset 0), and each extent lies inside its
 *   file's data as btrfs_write_file_extent reported it;
 * - btrfs_tree_block_roots of a leaf of the fs tree is {5}.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "test-fs.h"
#include "ctree.h"
#include "inode.h"
#include "file-item.h"
#include "extent-owners.h"

#define NR_DIRS		10000	/* more than the 8192 cached names */
#define NR_FILES	400
#define MAX_LINKS	3

struct m_dir {
	u64 parent;	/* index into dirs, -1 for the top */
	char name[24];
};

struct m_file {
	u64 ino;
	u64 bytenr;
	int nr_links;
	u64 dir[MAX_LINKS];
	char name[MAX_LINKS][24];
};

struct owner_model {
	struct m_dir *dirs;
	struct m_file *files;
	char buf[8192];
};

static u64 dir_ino(u64 i)
{
	return BTRFS_FIRST_FREE_OBJECTID + 1 + i;
}

/* the model's path of directory @i, without a leading '/' */
static void dir_path(const struct owner_model *m, u64 i, char *out, size_t len)
{
	size_t n, l;

	if (i == (u64)-1) {
		out[0] = 0;
		return;
	}
	dir_path(m, m->dirs[i].parent, out, len);
	n = strlen(out);
	l = strlen(m->dirs[i].name);
	REQUIRE(n + l + 2 <= len);
	if (n)
		out[n++] = '/';
	memcpy(out + n, m->dirs[i].name, l + 1);
}

struct collected {
	char paths[MAX_LINKS + 1][8192];
	int nr;
};

static int collect_path(void *ctx, const char *path)
{
	struct collected *c = ctx;

	REQUIRE_INT(c->nr, <, MAX_LINKS + 1);
	snprintf(c->paths[c->nr++], sizeof(c->paths[0]), "%s", path);
	return 0;
}

static bool has_path(const struct collected *c, const char *p)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->paths[i], p))
			return true;
	return false;
}

struct owner_check {
	struct owner_model *m;
	struct btrfs_owner_resolver *r;
	int nr_data;
	u64 ino_seen;
	int nr_owners;
};

static int count_owner(void *ctx, const struct btrfs_data_owner *o)
{
	struct owner_check *oc = ctx;

	REQUIRE_UINT(o->root, ==, BTRFS_FS_TREE_OBJECTID);
	REQUIRE_UINT(o->file_offset, ==, 0);
	oc->ino_seen = o->ino;
	oc->nr_owners++;
	return 0;
}

static int check_extent(void *ctx, const struct btrfs_extent_desc *d)
{
	struct owner_check *oc = ctx;
	int i;

	if (d->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK)
		return 0;
	oc->nr_data++;
	oc->nr_owners = 0;
	REQUIRE_INT(btrfs_data_extent_owners(oc->r, d, (u64)-1, count_owner, oc), ==, 0);
	REQUIRE_INT(oc->nr_owners, ==, 1);
	for (i = 0; i < NR_FILES; i++)
		if (oc->m->files[i].ino == oc->ino_seen)
			break;
	REQUIRE_INT(i, <, NR_FILES);
	REQUIRE_UINT(oc->m->files[i].bytenr, ==, d->bytenr);
	return 0;
}

START_TEST(test_paths_and_owners)
{
	struct owner_model *m = calloc(1, sizeof(*m));
	struct btrfs_inode_params ip = { 0 };
	struct btrfs_owner_resolver *r;
	struct owner_check oc = { 0 };
	struct collected *got = malloc(sizeof(*got));
	struct test_fs tfs;
	struct btrfs_root *root;
	u64 state = 0x5eed0000ULL + (u64)_i * 7919, i, index = 2, next_ino;
	u8 data[8192];
	int k, pass;

	REQUIRE(m && got);
	m->dirs = calloc(NR_DIRS, sizeof(*m->dirs));
	m->files = calloc(NR_FILES, sizeof(*m->files));
	REQUIRE(m->dirs && m->files);
	test_fs_create(&tfs, 4096, 1ULL << 30, 0);
	root = &tfs.fs->fs_root;
	ip.nlink = 1;
	for (i = 0; i < NR_DIRS; i++) {
		u64 pick = test_rand(&state);

		/* a few long chains, else anywhere below */
		if (i && pick % 16 == 0)
			m->dirs[i].parent = i - 1;
		else
			m->dirs[i].parent = i ? (pick >> 8) % (i + 1) : 0;
		if (m->dirs[i].parent == i)
			m->dirs[i].parent = (u64)-1;
		snprintf(m->dirs[i].name, sizeof(m->dirs[i].name), "d%llu-%llx",
			 (unsigned long long)i, (unsigned long long)(pick & 0xfff));
		ip.mode = 040755;
		REQUIRE_INT(btrfs_insert_inode(tfs.trans, root, dir_ino(i), &ip), ==, 0);
		REQUIRE_INT(btrfs_add_link(tfs.trans, root, dir_ino(i),
			    m->dirs[i].parent == (u64)-1 ? BTRFS_FIRST_FREE_OBJECTID :
			    dir_ino(m->dirs[i].parent), m->dirs[i].name,
			    (int)strlen(m->dirs[i].name), BTRFS_FT_DIR, index++), ==, 0);
		if (i % 2000 == 1999)
			test_fs_commit(&tfs);
	}
	next_ino = dir_ino(NR_DIRS);
	for (i = 0; i < NR_FILES; i++) {
		struct m_file *f = &m->files[i];

		f->ino = next_ino++;
		f->nr_links = 1 + (int)(test_rand(&state) % MAX_LINKS);
		ip.mode = 0100644;
		ip.nlink = f->nr_links;
		ip.size = ip.nbytes = sizeof(data);
		REQUIRE_INT(btrfs_insert_inode(tfs.trans, root, f->ino, &ip), ==, 0);
		for (k = 0; k < f->nr_links; k++) {
			f->dir[k] = test_rand(&state) % NR_DIRS;
			snprintf(f->name[k], sizeof(f->name[k]), "f%llu.%d",
				 (unsigned long long)i, k);
			REQUIRE_INT(btrfs_add_link(tfs.trans, root, f->ino, dir_ino(f->dir[k]),
				    f->name[k], (int)strlen(f->name[k]), BTRFS_FT_REG_FILE,
				    index++), ==, 0);
		}
		memset(data, (int)i, sizeof(data));
		REQUIRE_INT(btrfs_write_file_extent(tfs.trans, root, f->ino, 0, data,
						    sizeof(data), false, &f->bytenr), ==, 0);
	}
	test_fs_commit(&tfs);

	r = btrfs_owner_resolver_new(tfs.fs);
	REQUIRE(r != NULL);
	for (pass = 0; pass < 2; pass++) {
		/* random order: the cache sees evictions and returns */
		for (k = 0; k < NR_FILES + 2000; k++) {
			u64 pick = test_rand(&state);
			int j;

			got->nr = 0;
			if (k % 5) {
				const struct m_file *f = &m->files[pick % NR_FILES];

				REQUIRE_INT(btrfs_inode_paths(r, 5, f->ino, collect_path, got),
					    ==, f->nr_links);
				for (j = 0; j < f->nr_links; j++) {
					dir_path(m, f->dir[j], m->buf, sizeof(m->buf));
					strcat(m->buf, "/");
					strcat(m->buf, f->name[j]);
					REQUIRE(has_path(got, m->buf));
				}
			} else {
				u64 d = pick % NR_DIRS;

				REQUIRE_INT(btrfs_inode_paths(r, 5, dir_ino(d), collect_path, got),
					    ==, 1);
				dir_path(m, d, m->buf, sizeof(m->buf));
				REQUIRE(has_path(got, m->buf));
			}
		}
	}
	/* the top directory itself */
	got->nr = 0;
	REQUIRE_INT(btrfs_inode_paths(r, 5, BTRFS_FIRST_FREE_OBJECTID, collect_path, got), ==, 1);
	REQUIRE(!strcmp(got->paths[0], ""));
	/* every data extent belongs to its file */
	oc.m = m;
	oc.r = r;
	REQUIRE_INT(btrfs_walk_extents(tfs.fs, 0, (u64)-1, check_extent, &oc), ==, 0);
	REQUIRE_INT(oc.nr_data, ==, NR_FILES);
	{
		const u64 *roots;

		REQUIRE_INT(btrfs_tree_block_roots(r, root->node->start, &roots), ==, 1);
		REQUIRE_UINT(roots[0], ==, BTRFS_FS_TREE_OBJECTID);
	}
	REQUIRE_UINT(btrfs_owner_resolver_errors(r), ==, 0);
	btrfs_owner_resolver_free(r);
	test_fs_destroy(&tfs);
	free(m->dirs);
	free(m->files);
	free(m);
	free(got);
}
END_TEST

Suite *extent_owners_suite(void)
{
	Suite *s = suite_create("extent_owners");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_paths_and_owners, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
