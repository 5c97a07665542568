// SPDX-License-Identifier: GPL-2.0
/*
 * The tar index of mkfs --rootdir (cmds/mkfs/rootdir-tar.c) against a
 * simple model: random archives (written with libarchive) of files,
 * directories and symlinks in random order, with duplicate entries,
 * directories after their children or missing, and "./" and "/"
 * prefixes; read through the walk's source interface, every directory
 * lists the model's names, every entry has the model's type, mode, owner,
 * size and data (the last entry of a path wins, missing directories are
 * 0755 root), and the pre-scan counts the model's inodes and directories.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "suites.h"
#include "cmds/mkfs/rootdir-internal.h"

#ifdef HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>

#define MAX_PATHS 512

struct model_ent {
	char path[64];
	u32 mode, uid;
	u32 size, seed;
	char target[16];
	bool is_explicit;
};

struct model {
	struct model_ent e[MAX_PATHS];
	int nr;
};

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct model_ent *model_get(struct model *m, const char *path)
{
	int i;

	for (i = 0; i < m->nr; i++) {
		if (!strcmp(m->e[i].path, path))
			return &m->e[i];
	}
	ck_assert_int_lt(m->nr, MAX_PATHS);
	memset(&m->e[m->nr], 0, sizeof(m->e[0]));
	strcpy(m->e[m->nr].path, path);
	m->e[m->nr].mode = S_IFDIR | 0755;
	return &m->e[m->nr++];
}

static u8 data_byte(u32 seed, u32 i)
{
	return (u8)(seed * 31 + i * 7 + (i >> 9));
}

/* the parents of @path in the model, as tar would make them */
static void model_parents(struct model *m, const char *path)
{
	char buf[64];
	char *slash;

	strcpy(buf, path);
	while ((slash = strrchr(buf, '/'))) {
		*slash = 0;
		model_get(m, buf);
	}
}

static void write_archive(const char *file, struct model *m, uint64_t seed)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	static u8 buf[20000];
	int i, nr = 150 + (int)(next_rand(&seed) % 150);

	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_open_filename(a, file), ARCHIVE_OK);
	for (i = 0; i < nr; i++) {
		char path[64], shown[70];
		int depth = (int)(next_rand(&seed) % 3), j, kind = (int)(next_rand(&seed) % 4);
		struct model_ent *me;
		u32 k;

		path[0] = 0;
		for (j = 0; j < depth; j++)
			sprintf(path + strlen(path), "%sd%u", j ? "/" : "",
				(unsigned)(next_rand(&seed) % 3));
		/* file, directory and symlink names never collide */
		if (kind == 0 && depth)
			;	/* the directory itself */
		else if (kind == 3)
			sprintf(path + strlen(path), "%ss%u", depth ? "/" : "",
				(unsigned)(next_rand(&seed) % 2));
		else
			sprintf(path + strlen(path), "%sf%u", depth ? "/" : "",
				(unsigned)(next_rand(&seed) % 4));
		if (kind == 0 && !depth)
			kind = 1;
		model_parents(m, path);
		me = model_get(m, path);
		me->is_explicit = true;
		me->uid = (u32)(next_rand(&seed) % 1000);
		me->size = 0;
		me->target[0] = 0;
		if (kind == 0) {
			me->mode = S_IFDIR | (0700 | (u32)(next_rand(&seed) % 0100));
		} else if (kind == 3) {
			me->mode = S_IFLNK | 0777;
			sprintf(me->target, "t%u", (unsigned)(next_rand(&seed) % 1000));
			me->size = (u32)strlen(me->target);
		} else {
			me->mode = S_IFREG | (0400 | (u32)(next_rand(&seed) % 0400));
			me->size = (u32)(next_rand(&seed) % 3 ? next_rand(&seed) % 3000 :
					 next_rand(&seed) % sizeof(buf));
			me->seed = (u32)next_rand(&seed);
		}
		/* the spellings tar strips */
		switch (next_rand(&seed) % 3) {
		case 0: snprintf(shown, sizeof(shown), "%s", path); break;
		case 1: snprintf(shown, sizeof(shown), "./%s", path); break;
		default: snprintf(shown, sizeof(shown), "/%s", path); break;
		}
		archive_entry_clear(e);
		archive_entry_set_pathname(e, shown);
		archive_entry_set_mode(e, me->mode);
		archive_entry_set_uid(e, me->uid);
		archive_entry_set_gid(e, me->uid + 1);
		archive_entry_set_mtime(e, 1000000 + i, 0);
		if (S_ISLNK(me->mode))
			archive_entry_set_symlink(e, me->target);
		archive_entry_set_size(e, S_ISREG(me->mode) ? me->size : 0);
		ck_assert_int_ge(archive_write_header(a, e), ARCHIVE_WARN);
		if (S_ISREG(me->mode)) {
			for (k = 0; k < me->size; k++)
				buf[k] = data_byte(me->seed, k);
			ck_assert_int_eq(archive_write_data(a, buf, me->size), (la_ssize_t)me->size);
		}
	}
	archive_entry_free(e);
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

struct names {
	char n[MAX_PATHS][16];
	int nr;
};

static int add_name(void *arg, const char *name)
{
	struct names *l = arg;

	ck_assert_int_lt(l->nr, MAX_PATHS);
	ck_assert_uint_lt(strlen(name), 16);
	strcpy(l->n[l->nr++], name);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void check_dir(struct rootdir_src *src, struct model *m, long dir, const char *path)
{
	static u8 buf[20000];
	struct names *got = calloc(1, sizeof(*got)), *want = calloc(1, sizeof(*want));
	size_t plen = strlen(path);
	int i;

	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	ck_assert_int_eq(src->list(src, dir, path, add_name, got), 0);
	for (i = 0; i < m->nr; i++) {
		const char *p = m->e[i].path;

		if (plen ? (strncmp(p, path, plen) || p[plen] != '/' || strchr(p + plen + 1, '/')) :
			   !!strchr(p, '/'))
			continue;
		add_name(want, p + (plen ? plen + 1 : 0));
	}
	qsort(got->n, (size_t)got->nr, sizeof(got->n[0]), cmp_name);
	qsort(want->n, (size_t)want->nr, sizeof(want->n[0]), cmp_name);
	ck_assert_int_eq(got->nr, want->nr);
	for (i = 0; i < got->nr; i++) {
		char full[64];
		struct model_ent *me;
		struct statx stx;

		ck_assert_str_eq(got->n[i], want->n[i]);
		snprintf(full, sizeof(full), "%s%s%s", path, plen ? "/" : "", got->n[i]);
		me = model_get(m, full);
		ck_assert_int_eq(src->stat(src, dir, got->n[i], full, &stx), 0);
		ck_assert_uint_eq(stx.stx_mode, me->mode);
		ck_assert_uint_eq(stx.stx_uid, me->is_explicit ? me->uid : 0);
		ck_assert_uint_eq(stx.stx_size, S_ISDIR(me->mode) ? 0 : me->size);
		if (S_ISREG(me->mode)) {
			struct rootdir_prefetch *pf;
			u64 base = 0;
			int fd;
			u32 k;

			ck_assert_int_eq(src->open_file(src, dir, got->n[i], full, &fd, &base, &pf),
					 0);
			ck_assert_ptr_null(pf);
			/* a region of a spool file: what follows its size is not the file's */
			ck_assert(src->sealed);
			if (me->size)
				ck_assert_int_eq(pread(fd, buf, me->size, (off_t)base),
						 (ssize_t)me->size);
			for (k = 0; k < me->size; k++)
				ck_assert_uint_eq(buf[k], data_byte(me->seed, k));
			src->close_file(src, dir, got->n[i], fd);
		} else if (S_ISLNK(me->mode)) {
			char t[32];
			ssize_t n = src->readlink(src, dir, got->n[i], full, t, sizeof(t));

			ck_assert_int_eq(n, (ssize_t)strlen(me->target));
			ck_assert_int_eq(memcmp(t, me->target, (size_t)n), 0);
		} else {
			long sub;

			ck_assert_int_eq(src->open_dir(src, dir, got->n[i], full, &sub), 0);
			check_dir(src, m, sub, full);
			src->close_dir(src, sub);
		}
	}
	free(got);
	free(want);
}

START_TEST(test_tar_model)
{
	struct mkfs_rootdir_opts o;
	struct rootdir_scan scan;
	struct rootdir_src src;
	struct model *m = calloc(1, sizeof(*m));
	char file[] = "/tmp/ghee-unit-tar.XXXXXX";
	int fd = mkstemp(file), i, dirs = 0;
	long top;
	struct statx stx;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_archive(file, m, 0x51c3a9e7d2b4f681ULL + (uint64_t)_i * 7919);
	memset(&o, 0, sizeof(o));
	memset(&scan, 0, sizeof(scan));
	o.path = file;
	o.now_sec = 2000000;
	ck_assert(rootdir_is_tar(file));
	ck_assert_int_eq(rootdir_tar_read(&o, 4096, &scan), 0);
	unlink(file);
	for (i = 0; i < m->nr; i++)
		dirs += S_ISDIR(m->e[i].mode);
	ck_assert_uint_eq(scan.inodes, (u64)m->nr);
	ck_assert_uint_eq(scan.dirs, (u64)dirs);
	rootdir_tar_source(scan.tar, &src);
	ck_assert_int_eq(src.top(&src, &top, &stx), 0);
	ck_assert_uint_eq(stx.stx_mode, S_IFDIR | 0755);
	check_dir(&src, m, top, "");
	rootdir_tar_free(scan.tar);
	free(m);
}
END_TEST

Suite *rootdir_tar_suite(void)
{
	Suite *s = suite_create("rootdir_tar");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_tar_model, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

#else

/* without libarchive an archive is refused with -EOPNOTSUPP */
START_TEST(test_tar_not_built)
{
	struct mkfs_rootdir_opts o;
	struct rootdir_scan scan;

	memset(&o, 0, sizeof(o));
	memset(&scan, 0, sizeof(scan));
	o.path = "-";
	ck_assert(rootdir_is_tar("-"));
	ck_assert_int_eq(rootdir_tar_read(&o, 4096, &scan), -EOPNOTSUPP);
	ck_assert_ptr_null(scan.tar);
}
END_TEST

Suite *rootdir_tar_suite(void)
{
	Suite *s = suite_create("rootdir_tar");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_tar_not_built);
	suite_add_tcase(s, tc);
	return s;
}

#endif
