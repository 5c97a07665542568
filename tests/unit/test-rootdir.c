// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs --rootdir's pure pieces against simple models:
 * - the hard-link map (cmds/mkfs/rootdir-links.c): random adds, finds and
 *   link counts against a plain array searched linearly, through growth;
 * - the inline decision: the kernel's rule written out case by case;
 * - the extent length: extents never exceed 128 MiB or the largest free
 *   range (when there is one), are sector multiples, and cover a segment
 *   exactly when laid end to end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "cmds/mkfs/rootdir.h"
#include "kernel-shared/compression.h"

#define NR_MODEL 6000

struct model_link {
	u64 dev, ino, btrfs_ino;
	u32 found;
};

static struct model_link *model_find(struct model_link *m, size_t nr, u64 dev, u64 ino)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (m[i].dev == dev && m[i].ino == ino)
			return &m[i];
	}
	return NULL;
}

START_TEST(test_links_model)
{
	static struct model_link model[NR_MODEL];
	struct rootdir_links l;
	uint64_t state = 0x9a3c01f2e4b5d687ULL + (uint64_t)_i;
	size_t nr = 0, step;

	rootdir_links_init(&l);
	for (step = 0; step < 4 * NR_MODEL && nr < NR_MODEL; step++) {
		/* few devices, inode numbers that collide in the low bits */
		u64 dev = test_rand(&state) % 3;
		u64 ino = 1 + (test_rand(&state) % 4000) * 64;
		struct model_link *m = model_find(model, nr, dev, ino);
		struct rootdir_link *e = rootdir_links_find(&l, dev, ino);

		if (!m) {
			REQUIRE(e == NULL);
			REQUIRE_INT(rootdir_links_add(&l, dev, ino, 257 + nr), ==, 0);
			model[nr] = (struct model_link){ dev, ino, 257 + nr, 1 };
			nr++;
		} else {
			REQUIRE(e != NULL);
			REQUIRE_UINT(e->btrfs_ino, ==, m->btrfs_ino);
			REQUIRE_UINT(e->found, ==, m->found);
			e->found++;
			m->found++;
		}
		REQUIRE_UINT(l.nr, ==, nr);
		REQUIRE_UINT(l.nr * 2, <=, l.alloc);
	}
	/* every entry once in the table, with its count */
	{
		size_t i, seen = 0;

		for (i = 0; i < l.alloc; i++) {
			struct model_link *m;

			if (!l.slots[i].ino)
				continue;
			m = model_find(model, nr, l.slots[i].dev, l.slots[i].ino);
			REQUIRE(m != NULL);
			REQUIRE_UINT(l.slots[i].found, ==, m->found);
			seen++;
		}
		REQUIRE_UINT(seen, ==, nr);
	}
	REQUIRE(rootdir_links_find(&l, 0, 0) == NULL);
	REQUIRE_INT(rootdir_links_add(&l, 0, 0, 1), ==, -EINVAL);
	rootdir_links_free(&l);
}
END_TEST

/* the kernel's rule, one condition at a time */
static bool model_inline(u64 size, u32 sectorsize, u32 max_inline)
{
	if (size == 0)
		return false;		/* nothing to store */
	if (size >= sectorsize)
		return false;		/* a whole sector is a regular extent */
	if (size > max_inline)
		return false;		/* max_inline and the leaf's room */
	return true;
}

START_TEST(test_inline_rule)
{
	static const u32 sectors[] = { 4096, 16384, 65536 };
	static const u32 limits[] = { 2048, 0, 1, 4095, 3949, 16000 };
	size_t s, m;
	u64 size;

	for (s = 0; s < 3; s++)
		for (m = 0; m < sizeof(limits) / sizeof(limits[0]); m++)
			for (size = 0; size <= 20000; size++)
				REQUIRE(rootdir_inline_ok(size, sectors[s], limits[m]) ==
					model_inline(size, sectors[s], limits[m]));
	/* the defaults: 2048 inline, 2049 not */
	REQUIRE(rootdir_inline_ok(2048, 4096, ROOTDIR_MAX_INLINE));
	REQUIRE(!rootdir_inline_ok(2049, 4096, ROOTDIR_MAX_INLINE));
}
END_TEST

START_TEST(test_extent_lengths)
{
	uint64_t state = 0x1234567890abcdefULL + (uint64_t)_i;
	int round;

	for (round = 0; round < 20000; round++) {
		u32 ss = test_rand(&state) % 2 ? 4096 : 65536;
		u64 seg = (1 + test_rand(&state) % (400ULL << 20) / ss) * ss;
		u64 done = 0, nr = 0;

		while (done < seg) {
			u64 free = test_rand(&state) % 4 ? test_rand(&state) % (300ULL << 20) : 0;
			u64 len = rootdir_extent_len(seg - done, free, ss);

			REQUIRE_UINT(len, >, 0);
			REQUIRE_UINT(len % ss, ==, 0);
			REQUIRE_UINT(len, <=, ROOTDIR_MAX_EXTENT);
			REQUIRE_UINT(len, <=, seg - done);
			if (free >= ss)
				REQUIRE_UINT(len, <=, free);
			/* with room for all of it (up to 128 MiB), one extent */
			if (free >= seg - done && seg - done <= ROOTDIR_MAX_EXTENT)
				REQUIRE_UINT(len, ==, seg - done);
			if (free < ss)
				REQUIRE_UINT(len, ==, seg - done < ROOTDIR_MAX_EXTENT ?
					     seg - done : ROOTDIR_MAX_EXTENT);
			done += len;
			nr++;
		}
		REQUIRE_UINT(done, ==, seg);
	}
}
END_TEST

/* fill @buf with @len bytes: text-like, random or zeros, by @kind */
static void piece_data(u8 *buf, u32 len, int kind, uint64_t *seed)
{
	u32 i;

	for (i = 0; i < len; i++) {
		u64 r = test_rand(seed);

		buf[i] = kind == 0 ? (u8)"abcd efgh"[r % 9] : kind == 1 ? (u8)r : 0;
	}
}

/*
 * The workers against the model, compressing each piece alone in this
 * thread: random batches (data pieces of random sizes and kinds, holes),
 * random thread counts, two batches out at a time; every piece must get
 * the model's type and bytes, whatever thread took it.
 */
START_TEST(test_cpool_model)
{
	static const u8 types[] = { BTRFS_COMPRESS_ZLIB, BTRFS_COMPRESS_LZO, BTRFS_COMPRESS_ZSTD };
	uint64_t seed = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;
	u8 type = types[_i % 3];
	u8 *want = malloc(BTRFS_MAX_UNCOMPRESSED);
	struct rootdir_cpool *pool;
	int round, threads = 1 + (int)(test_rand(&seed) % 5);

	ck_assert_ptr_nonnull(want);
	if (!btrfs_compress_supported(type)) {
		free(want);
		return;
	}
	ck_assert_int_eq(rootdir_cpool_create(type, 0, 4096, threads, &pool), 0);
	for (round = 0; round < 6; round++) {
		struct rootdir_batch *b = rootdir_cpool_batch(pool, round % 2);
		int i, j;

		b->nr = 1 + (int)(test_rand(&seed) % ROOTDIR_BATCH);
		for (i = 0; i < b->nr; i++) {
			struct rootdir_piece *p = &b->pieces[i];

			memset(p, 0, sizeof(*p));
			if (test_rand(&seed) % 8 == 0)
				continue;	/* a hole */
			p->ram = (u32)(1 + test_rand(&seed) % 32) * 4096;
			piece_data(rootdir_piece_in(b, i), p->ram, (int)(test_rand(&seed) % 3),
				   &seed);
		}
		rootdir_cpool_submit(pool, b);
		/* the other batch is still out while this one is being filled */
		if (round % 2 == 0)
			continue;
		for (j = 0; j < 2; j++) {
			struct rootdir_batch *w = rootdir_cpool_batch(pool, j);

			rootdir_cpool_wait(pool, w);
			for (i = 0; i < w->nr; i++) {
				struct rootdir_piece *p = &w->pieces[i];
				size_t clen = BTRFS_MAX_UNCOMPRESSED;
				int ret;

				ck_assert_int_eq(p->err, 0);
				if (!p->ram) {
					ck_assert_int_eq(p->type, BTRFS_COMPRESS_NONE);
					continue;
				}
				ret = btrfs_compress_extent(type, 0, rootdir_piece_in(w, i), p->ram,
							    4096, want, &clen);
				if (ret == -E2BIG) {
					ck_assert_int_eq(p->type, BTRFS_COMPRESS_NONE);
					continue;
				}
				ck_assert_int_eq(ret, 0);
				ck_assert_int_eq(p->type, type);
				ck_assert_uint_eq(p->clen, clen);
				ck_assert(!memcmp(rootdir_piece_out(w, i), want, clen));
			}
		}
	}
	rootdir_cpool_destroy(pool);
	free(want);
}
END_TEST

Suite *rootdir_suite(void)
{
	Suite *s = suite_create("rootdir");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_links_model, 0, 3);
	tcase_add_test(tc, test_inline_rule);
	tcase_add_loop_test(tc, test_extent_lengths, 0, 2);
	tcase_add_loop_test(tc, test_cpool_model, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}
