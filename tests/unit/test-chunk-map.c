// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk map and logical-to-physical mapping.
 *
 * - chunk_map_insert/lookup/next against a sorted array of chunks, with
 *   random inserts of which many overlap (those must fail with -EEXIST
 *   and leave the map unchanged).
 * - btrfs_check_chunk: valid chunks of every profile and stripe count
 *   pass; each single-field corruption is rejected with a reason.
 * - btrfs_map_block and btrfs_read_logical on a hand-built fs_info whose
 *   devices are memfds: every profile, random offsets and lengths, every
 *   mirror, compared with a striping model written here; the data read
 *   back is what the test wrote at the model's physical places, with a
 *   different pattern per copy so that the copy read is known.  Missing
 *   devices: mirror 0 falls through to a present copy, a specific mirror
 *   on a missing device is -ENODEV.
 * - btrfs_physical_to_logical (extent-owners.c), the way back: for every
 *   profile, each copy of random logical offsets (placed by the striping
 *   model) maps back to its logical address; a sweep over every stripe
 *   element of every device finds each data element once per copy and,
 *   for RAID5/6, one P (and Q) element per row; offsets outside every
 *   stripe are -ENOENT.
 */
#include "config.h"
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "suites.h"
#include "disk-io.h"
#include "volumes.h"
#include "extent-owners.h"

#define CM_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)


#define SECTOR		4096ULL
#define SLEN		BTRFS_STRIPE_LEN
#define PER_DEV		(8 * SLEN)		/* bytes of the chunk on each stripe */
#define DEV_SIZE	(8ULL << 20)
#define NR_DEVS		8

static u64 rnd_below(u64 *state, u64 n)
{
	return (test_rand(state) >> 7) % n;
}

static u64 seed_state(u64 seed)
{
	return seed * 0x9E3779B97F4A7C15ULL + 0x1234567;
}

/* ---- chunk map against a sorted array ---- */

struct span {
	u64 logical, length;
};

struct cm_model {
	struct span s[4096];
	int nr;
};

static int model_find_overlap(const struct cm_model *m, u64 logical, u64 length)
{
	int i;

	for (i = 0; i < m->nr; i++) {
		if (m->s[i].logical < logical + length &&
		    logical < m->s[i].logical + m->s[i].length)
			return i;
	}
	return -1;
}

static void model_insert(struct cm_model *m, u64 logical, u64 length)
{
	int i = m->nr;

	while (i > 0 && m->s[i - 1].logical > logical) {
		m->s[i] = m->s[i - 1];
		i--;
	}
	m->s[i].logical = logical;
	m->s[i].length = length;
	m->nr++;
}

/* index of the model chunk containing @logical, -1 if none */
static int model_lookup(const struct cm_model *m, u64 logical)
{
	int i;

	for (i = 0; i < m->nr; i++) {
		if (m->s[i].logical <= logical &&
		    logical < m->s[i].logical + m->s[i].length)
			return i;
	}
	return -1;
}

/* index of the first model chunk ending past @logical, -1 if none */
static int model_next(const struct cm_model *m, u64 logical)
{
	int i;

	for (i = 0; i < m->nr; i++) {
		if (m->s[i].logical + m->s[i].length > logical)
			return i;
	}
	return -1;
}

static struct map_lookup *new_ml(u64 logical, u64 length)
{
	struct map_lookup *ml = calloc(1, sizeof(*ml));

	REQUIRE((ml) != NULL);
	ml->logical = logical;
	ml->length = length;
	ml->stripe_len = SLEN;
	ml->num_stripes = 0;
	return ml;
}

static void compare_map(const struct chunk_map *map, const struct cm_model *m)
{
	int i;

	CM_CHECK(map->nr == (size_t)m->nr, "map has %zu chunks, model %d",
		 map->nr, m->nr);
	for (i = 0; i < m->nr; i++)
		CM_CHECK(map->maps[i]->logical == m->s[i].logical &&
			 map->maps[i]->length == m->s[i].length,
			 "chunk %d is [%llu +%llu), model [%llu +%llu)", i,
			 (unsigned long long)map->maps[i]->logical,
			 (unsigned long long)map->maps[i]->length,
			 (unsigned long long)m->s[i].logical,
			 (unsigned long long)m->s[i].length);
}

static void probe(const struct chunk_map *map, const struct cm_model *m,
		  u64 logical)
{
	struct map_lookup *ml = chunk_map_lookup(map, logical);
	struct map_lookup *next = chunk_map_next(map, logical);
	int li = model_lookup(m, logical);
	int ni = model_next(m, logical);

	if (li < 0)
		CM_CHECK(!ml, "lookup(%llu) found [%llu +%llu), model none",
			 (unsigned long long)logical,
			 (unsigned long long)ml->logical,
			 (unsigned long long)ml->length);
	else
		CM_CHECK(ml && ml->logical == m->s[li].logical,
			 "lookup(%llu) found %lld, model %llu",
			 (unsigned long long)logical,
			 ml ? (long long)ml->logical : -1LL,
			 (unsigned long long)m->s[li].logical);
	if (ni < 0)
		CM_CHECK(!next, "next(%llu) found %llu, model none",
			 (unsigned long long)logical,
			 (unsigned long long)next->logical);
	else
		CM_CHECK(next && next->logical == m->s[ni].logical,
			 "next(%llu) found %lld, model %llu",
			 (unsigned long long)logical,
			 next ? (long long)next->logical : -1LL,
			 (unsigned long long)m->s[ni].logical);
}

static void probe_all(const struct chunk_map *map, const struct cm_model *m,
		      u64 *state, u64 base)
{
	int i, k;

	for (k = 0; k < 16; k++)
		probe(map, m, base + rnd_below(state, 17ULL << 20));
	/* the edges of a few chunks */
	for (k = 0; k < 4 && m->nr; k++) {
		i = rnd_below(state, m->nr);
		if (m->s[i].logical)
			probe(map, m, m->s[i].logical - 1);
		probe(map, m, m->s[i].logical);
		probe(map, m, m->s[i].logical + m->s[i].length - 1);
		probe(map, m, m->s[i].logical + m->s[i].length);
	}
	probe(map, m, 0);
	probe(map, m, UINT64_MAX);
}

START_TEST(test_map_random)
{
	struct cm_model *m = calloc(1, sizeof(*m));
	u64 state = seed_state(_i + 1);
	/* low addresses, and just below the top of the u64 space */
	u64 base = (_i & 1) ? UINT64_MAX - (64ULL << 20) : 0;
	struct chunk_map map;
	int step, nr_eexist = 0;

	REQUIRE((m) != NULL);
	chunk_map_init(&map);
	probe(&map, m, 0);
	for (step = 0; step < 1500 && m->nr < 4000; step++) {
		u64 logical = base + SECTOR * rnd_below(&state, 4096);
		u64 length = SECTOR * (1 + rnd_below(&state, rnd_below(&state, 4) ? 4 : 64));
		struct map_lookup *ml = new_ml(logical, length);
		int overlap = model_find_overlap(m, logical, length);
		int ret = chunk_map_insert(&map, ml);

		if (overlap >= 0) {
			CM_CHECK(ret == -EEXIST,
				 "insert [%llu +%llu) overlapping [%llu +%llu): ret %d, expect -EEXIST",
				 (unsigned long long)(logical - base),
				 (unsigned long long)length,
				 (unsigned long long)(m->s[overlap].logical - base),
				 (unsigned long long)m->s[overlap].length, ret);
			free(ml);
			nr_eexist++;
		} else {
			CM_CHECK(ret == 0, "insert [%llu +%llu): ret %d",
				 (unsigned long long)(logical - base),
				 (unsigned long long)length, ret);
			model_insert(m, logical, length);
		}
		compare_map(&map, m);
		if (step % 16 == 0)
			probe_all(&map, m, &state, base);
	}
	probe_all(&map, m, &state, base);
	REQUIRE_INT(nr_eexist, >, 0);
	REQUIRE_INT(m->nr, >, 64);	/* grew past the first allocation */
	chunk_map_free(&map);
	REQUIRE_UINT(map.nr, ==, 0);
	free(m);
}
END_TEST

/* many disjoint chunks inserted in shuffled order */
START_TEST(test_map_shuffled)
{
	struct cm_model *m = calloc(1, sizeof(*m));
	u64 state = seed_state(_i + 77);
	int order[3000];
	struct chunk_map map;
	int i, k;

	REQUIRE((m) != NULL);
	for (i = 0; i < 3000; i++)
		order[i] = i;
	for (i = 2999; i > 0; i--) {
		int j = rnd_below(&state, i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	chunk_map_init(&map);
	for (i = 0; i < 3000; i++) {
		/* chunk i covers [i * 8K, i * 8K + 4K): every other page */
		u64 logical = (u64)order[i] * 2 * SECTOR;

		REQUIRE_INT(chunk_map_insert(&map, new_ml(logical, SECTOR)), ==, 0);
		model_insert(m, logical, SECTOR);
		/* the same chunk, or a wider one over it, again */
		{
			struct map_lookup *dup = new_ml(logical ? logical - SECTOR : 0,
							3 * SECTOR);

			REQUIRE_INT(chunk_map_insert(&map, dup), ==, -EEXIST);
			free(dup);
		}
	}
	compare_map(&map, m);
	for (k = 0; k < 3000; k++)
		probe(&map, m, rnd_below(&state, 3000 * 2 * SECTOR + SECTOR));
	chunk_map_free(&map);
	free(m);
}
END_TEST

/* ---- chunk items ---- */

struct profile_case {
	u64 profile;
	int num;
	int sub;
};

static int all_profiles(struct profile_case *pc)
{
	int n = 0, k;

	pc[n++] = (struct profile_case){ 0, 1, 1 };
	pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_DUP, 2, 1 };
	for (k = 1; k <= 8; k++)
		pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID0, k, 1 };
	pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID1, 2, 1 };
	pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID1C3, 3, 1 };
	pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID1C4, 4, 1 };
	for (k = 2; k <= 8; k += 2)
		pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID10, k, 2 };
	for (k = 2; k <= 8; k++)
		pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID5, k, 1 };
	for (k = 3; k <= 8; k++)
		pc[n++] = (struct profile_case){ BTRFS_BLOCK_GROUP_RAID6, k, 1 };
	return n;
}

/* stripes holding distinct data: the chunk length is this times PER_DEV */
static int data_stripes(const struct profile_case *pc)
{
	switch (pc->profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		return pc->num;
	case BTRFS_BLOCK_GROUP_RAID10:
		return pc->num / pc->sub;
	case BTRFS_BLOCK_GROUP_RAID5:
		return pc->num - 1;
	case BTRFS_BLOCK_GROUP_RAID6:
		return pc->num - 2;
	}
	return 1;
}

static int model_copies(const struct profile_case *pc)
{
	switch (pc->profile) {
	case BTRFS_BLOCK_GROUP_DUP:
	case BTRFS_BLOCK_GROUP_RAID1:
		return 2;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		return 3;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		return 4;
	case BTRFS_BLOCK_GROUP_RAID10:
		return pc->sub;
	}
	return 1;
}

struct chunk_buf {
	struct btrfs_chunk *c;
	u32 item_size;
	u64 logical;
};

/*
 * A chunk item for @pc.  Stripe i sits on devid i + 1 (DUP: both on devid
 * 1) at a random sector-aligned physical offset.
 */
static void build_chunk(struct chunk_buf *cb, const struct profile_case *pc,
			u64 type, u64 logical, u64 *state)
{
	u64 dup_first = 0;
	int i;

	cb->item_size = btrfs_chunk_item_size(pc->num);
	cb->c = calloc(1, cb->item_size);
	REQUIRE((cb->c) != NULL);
	cb->logical = logical;
	btrfs_set_chunk_length(cb->c, (u64)data_stripes(pc) * PER_DEV);
	btrfs_set_chunk_owner(cb->c, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(cb->c, SLEN);
	btrfs_set_chunk_type(cb->c, type | pc->profile);
	btrfs_set_chunk_io_align(cb->c, SLEN);
	btrfs_set_chunk_io_width(cb->c, SLEN);
	btrfs_set_chunk_sector_size(cb->c, SECTOR);
	btrfs_set_chunk_num_stripes(cb->c, pc->num);
	btrfs_set_chunk_sub_stripes(cb->c, pc->sub);
	for (i = 0; i < pc->num; i++) {
		struct btrfs_stripe *s = btrfs_chunk_stripe(cb->c, i);
		u64 phys = SECTOR * rnd_below(state, 512);

		if (pc->profile == BTRFS_BLOCK_GROUP_DUP) {
			btrfs_set_stripe_devid(s, 1);
			if (i == 0)
				dup_first = phys;
			else
				phys = dup_first + PER_DEV + SECTOR * rnd_below(state, 256);
		} else {
			btrfs_set_stripe_devid(s, i + 1);
		}
		btrfs_set_stripe_offset(s, phys);
		memset(s->dev_uuid, 0x10 + i, BTRFS_UUID_SIZE);
	}
}

static const u64 chunk_types[] = {
	BTRFS_BLOCK_GROUP_DATA,
	BTRFS_BLOCK_GROUP_METADATA,
	BTRFS_BLOCK_GROUP_SYSTEM,
	BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA,
};

static int check_cb(const struct chunk_buf *cb, char *why, size_t len)
{
	why[0] = 0;
	return btrfs_check_chunk(cb->logical, cb->c, cb->item_size, SECTOR, why, len);
}

START_TEST(test_check_chunk_valid)
{
	struct profile_case pc[40];
	int n = all_profiles(pc), i, t;
	u64 state = seed_state(5);
	char why[192];

	for (i = 0; i < n; i++) {
		for (t = 0; t < 4; t++) {
			struct chunk_buf cb;
			int ret;

			build_chunk(&cb, &pc[i], chunk_types[t],
				    SECTOR * rnd_below(&state, 1 << 30), &state);
			ret = check_cb(&cb, why, sizeof(why));
			CM_CHECK(ret == 0, "%s x%d type 0x%llx rejected: %s",
				 btrfs_bg_type_profile_name(pc[i].profile), pc[i].num,
				 (unsigned long long)chunk_types[t], why);
			free(cb.c);
		}
	}
}
END_TEST

enum chunk_corruption {
	CC_NUM_STRIPES_ZERO,
	CC_ITEM_SIZE_BIG,
	CC_ITEM_SIZE_SMALL,
	CC_ITEM_SIZE_ODD,
	CC_ITEM_TOO_SHORT,
	CC_LOGICAL_UNALIGNED,
	CC_LENGTH_UNALIGNED,
	CC_LENGTH_ZERO,
	CC_LENGTH_OVERFLOW,
	CC_STRIPE_LEN,
	CC_UNKNOWN_TYPE,
	CC_TWO_PROFILES,
	CC_SYSTEM_DATA,
	CC_SYSTEM_METADATA,
	CC_NO_TYPE,
	CC_STRIPE_COUNT,
	CC_NR
};

static const char *const cc_expect[CC_NR] = {
	[CC_NUM_STRIPES_ZERO] = "num_stripes",
	[CC_ITEM_SIZE_BIG] = "item size",
	[CC_ITEM_SIZE_SMALL] = "item size",
	[CC_ITEM_SIZE_ODD] = "item size",
	[CC_ITEM_TOO_SHORT] = "too small",
	[CC_LOGICAL_UNALIGNED] = "logical",
	[CC_LENGTH_UNALIGNED] = "length",
	[CC_LENGTH_ZERO] = "length",
	[CC_LENGTH_OVERFLOW] = "overflow",
	[CC_STRIPE_LEN] = "stripe length",
	[CC_UNKNOWN_TYPE] = "unrecognized",
	[CC_TWO_PROFILES] = "profile",
	[CC_SYSTEM_DATA] = "system",
	[CC_SYSTEM_METADATA] = "system",
	[CC_NO_TYPE] = "type",
	[CC_STRIPE_COUNT] = "num_stripes",
};

/* a stripe count that @profile does not allow, 0 if there is none to try */
static int bad_stripe_count(const struct profile_case *pc, u64 *state, int *sub)
{
	*sub = pc->sub;
	switch (pc->profile) {
	case 0:
		return 2 + rnd_below(state, 3);
	case BTRFS_BLOCK_GROUP_DUP:
	case BTRFS_BLOCK_GROUP_RAID1:
		return rnd_below(state, 2) ? 1 : 3;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		return rnd_below(state, 2) ? 2 : 4;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		return rnd_below(state, 2) ? 3 : 5;
	case BTRFS_BLOCK_GROUP_RAID10:
		switch (rnd_below(state, 3)) {
		case 0:
			return pc->num + 1;	/* odd */
		case 1:
			*sub = 1;
			return pc->num;
		default:
			*sub = 3;
			return pc->num;
		}
	case BTRFS_BLOCK_GROUP_RAID5:
		return 1;
	case BTRFS_BLOCK_GROUP_RAID6:
		return 1 + rnd_below(state, 2);
	}
	return 0;
}

/* apply @cc to a valid chunk; false if it does not apply to this one */
static bool corrupt_chunk(struct chunk_buf *cb, const struct profile_case *pc,
			  enum chunk_corruption cc, u64 *state)
{
	u64 type = btrfs_chunk_type(cb->c);
	u64 other;
	int num, sub;

	switch (cc) {
	case CC_NUM_STRIPES_ZERO:
		btrfs_set_chunk_num_stripes(cb->c, 0);
		cb->item_size = btrfs_chunk_item_size(0);
		break;
	case CC_ITEM_SIZE_BIG:
		cb->item_size += sizeof(struct btrfs_stripe);
		break;
	case CC_ITEM_SIZE_SMALL:
		if (pc->num == 1)
			return false;
		cb->item_size -= sizeof(struct btrfs_stripe);
		break;
	case CC_ITEM_SIZE_ODD:
		cb->item_size -= 1 + rnd_below(state, 31);
		if (cb->item_size < sizeof(struct btrfs_chunk))
			return false;
		break;
	case CC_ITEM_TOO_SHORT:
		cb->item_size = rnd_below(state, sizeof(struct btrfs_chunk));
		break;
	case CC_LOGICAL_UNALIGNED:
		cb->logical += 1 + rnd_below(state, SECTOR - 1);
		break;
	case CC_LENGTH_UNALIGNED:
		btrfs_set_chunk_length(cb->c, btrfs_chunk_length(cb->c) +
				       1 + rnd_below(state, SECTOR - 1));
		break;
	case CC_LENGTH_ZERO:
		btrfs_set_chunk_length(cb->c, 0);
		break;
	case CC_LENGTH_OVERFLOW:
		cb->logical = UINT64_MAX - SECTOR + 1 - SECTOR * rnd_below(state, 16);
		btrfs_set_chunk_length(cb->c, 32 * SECTOR);
		break;
	case CC_STRIPE_LEN: {
		static const u64 bad[] = { 0, 4096, 32768, 65536 + 4096, 131072,
					   65535, 65537, 1ULL << 40 };

		btrfs_set_chunk_stripe_len(cb->c, bad[rnd_below(state, 8)]);
		break;
	}
	case CC_UNKNOWN_TYPE: {
		static const int bits[] = { 11, 12, 20, 31, 47, 48, 49, 63 };

		btrfs_set_chunk_type(cb->c, type | (1ULL << bits[rnd_below(state, 8)]));
		break;
	}
	case CC_TWO_PROFILES:
		do {
			other = BTRFS_BLOCK_GROUP_RAID0 << rnd_below(state, 8);
		} while (other == pc->profile);
		if (!pc->profile) {
			u64 third;

			do {
				third = BTRFS_BLOCK_GROUP_RAID0 << rnd_below(state, 8);
			} while (third == other);
			other |= third;
		}
		btrfs_set_chunk_type(cb->c, type | other);
		break;
	case CC_SYSTEM_DATA:
		btrfs_set_chunk_type(cb->c, pc->profile | BTRFS_BLOCK_GROUP_SYSTEM |
				     BTRFS_BLOCK_GROUP_DATA);
		break;
	case CC_SYSTEM_METADATA:
		btrfs_set_chunk_type(cb->c, pc->profile | BTRFS_BLOCK_GROUP_SYSTEM |
				     BTRFS_BLOCK_GROUP_METADATA);
		break;
	case CC_NO_TYPE:
		btrfs_set_chunk_type(cb->c, pc->profile);
		break;
	case CC_STRIPE_COUNT: {
		struct btrfs_chunk *c;

		num = bad_stripe_count(pc, state, &sub);
		if (!num)
			return false;
		/* a consistent item of the new size: only the count is wrong */
		c = calloc(1, btrfs_chunk_item_size(num));
		REQUIRE((c) != NULL);
		memcpy(c, cb->c, btrfs_chunk_item_size(num < pc->num ? num : pc->num));
		btrfs_set_chunk_num_stripes(c, num);
		btrfs_set_chunk_sub_stripes(c, sub);
		free(cb->c);
		cb->c = c;
		cb->item_size = btrfs_chunk_item_size(num);
		break;
	}
	default:
		return false;
	}
	return true;
}

START_TEST(test_check_chunk_corrupt)
{
	struct profile_case pc[40];
	int n = all_profiles(pc), step, applied = 0;
	u64 state = seed_state(_i + 300);
	char why[192];

	for (step = 0; step < 3000; step++) {
		const struct profile_case *p = &pc[rnd_below(&state, n)];
		enum chunk_corruption cc = rnd_below(&state, CC_NR);
		struct chunk_buf cb;
		int ret;

		build_chunk(&cb, p, chunk_types[rnd_below(&state, 4)],
			    SECTOR * rnd_below(&state, 1 << 30), &state);
		REQUIRE_INT(check_cb(&cb, why, sizeof(why)), ==, 0);
		if (!corrupt_chunk(&cb, p, cc, &state)) {
			free(cb.c);
			continue;
		}
		applied++;
		ret = check_cb(&cb, why, sizeof(why));
		CM_CHECK(ret == -EUCLEAN,
			 "%s x%d corruption %d accepted (ret %d)",
			 btrfs_bg_type_profile_name(p->profile), p->num, cc, ret);
		CM_CHECK(strstr(why, cc_expect[cc]) != NULL,
			 "%s x%d corruption %d: reason \"%s\" does not name \"%s\"",
			 btrfs_bg_type_profile_name(p->profile), p->num, cc, why,
			 cc_expect[cc]);
		free(cb.c);
	}
	REQUIRE_INT(applied, >, 2000);
}
END_TEST

/* ---- mapping and reading on memfd devices ---- */

struct cm_fs {
	struct btrfs_fs_info *fs;
	int saved_fd[NR_DEVS];
	char last_msg[1024];
	int nr_msgs;
};

static void capture_report(void *ctx, enum btrfs_report_level level,
			   const char *msg)
{
	struct cm_fs *t = ctx;

	(void)level;
	snprintf(t->last_msg, sizeof(t->last_msg), "%s", msg);
	t->nr_msgs++;
}

static void cm_fs_init(struct cm_fs *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->fs = calloc(1, sizeof(*t->fs));
	REQUIRE((t->fs) != NULL);
	t->fs->sectorsize = SECTOR;
	t->fs->nodesize = 16384;
	t->fs->reporter.report = capture_report;
	t->fs->reporter.ctx = t;
	chunk_map_init(&t->fs->chunk_map);
	for (i = 0; i < NR_DEVS; i++) {
		struct btrfs_device *d = &t->fs->devices[i];

		d->devid = i + 1;
		d->fd = memfd_create("unit-chunk-dev", 0);
		REQUIRE_INT(d->fd, >=, 0);
		REQUIRE_INT(ftruncate(d->fd, DEV_SIZE), ==, 0);
		d->size = DEV_SIZE;
		d->total_bytes = DEV_SIZE;
		t->saved_fd[i] = d->fd;
	}
	t->fs->num_devices = NR_DEVS;
}

static void cm_fs_destroy(struct cm_fs *t)
{
	int i;

	for (i = 0; i < NR_DEVS; i++)
		close(t->saved_fd[i]);
	chunk_map_free(&t->fs->chunk_map);
	free(t->fs);
}

/* map @cb through btrfs_chunk_to_map and insert it */
static struct map_lookup *cm_add_chunk(struct cm_fs *t, const struct chunk_buf *cb)
{
	struct map_lookup *ml = NULL;

	REQUIRE_INT(btrfs_chunk_to_map(t->fs, cb->logical, cb->c,
					    cb->item_size, &ml), ==, 0);
	REQUIRE_INT(chunk_map_insert(&t->fs->chunk_map, ml), ==, 0);
	return ml;
}

struct mloc {
	int stripe;
	u64 physical;
	u64 contig;	/* bytes from here on that stay on this stripe */
};

/*
 * The striping model: where chunk offset @off of copy @mirror (0-based)
 * lives.  RAID5/6: each row of stripe elements is laid out starting at
 * device position row % n: data 0, data 1, ..., P (, Q), wrapping around.
 */
static void model_map(const struct profile_case *pc, const struct btrfs_chunk *c,
		      u64 off, int mirror, struct mloc *loc)
{
	u64 elem = off / SLEN, in = off % SLEN, row = 0;
	int stripe = 0, n = pc->num;

	switch (pc->profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		stripe = elem % n;
		row = elem / n;
		break;
	case BTRFS_BLOCK_GROUP_RAID10: {
		int pairs = n / pc->sub;

		stripe = (elem % pairs) * pc->sub + mirror;
		row = elem / pairs;
		break;
	}
	case BTRFS_BLOCK_GROUP_RAID5:
	case BTRFS_BLOCK_GROUP_RAID6: {
		int nr_data = n - (pc->profile == BTRFS_BLOCK_GROUP_RAID5 ? 1 : 2);
		int k = elem % nr_data, pos;

		row = elem / nr_data;
		/* walk the row from its first device to the k-th data element */
		pos = row % n;
		while (k--)
			pos = (pos + 1) % n;
		stripe = pos;
		break;
	}
	default:
		loc->stripe = mirror;
		loc->physical = btrfs_stripe_offset(btrfs_chunk_stripe(c, mirror)) + off;
		loc->contig = btrfs_chunk_length(c) - off;
		return;
	}
	loc->stripe = stripe;
	loc->physical = btrfs_stripe_offset(btrfs_chunk_stripe(c, stripe)) +
			row * SLEN + in;
	loc->contig = SLEN - in;
}

static struct btrfs_device *stripe_dev(struct cm_fs *t, const struct btrfs_chunk *c,
				       int stripe)
{
	return &t->fs->devices[btrfs_stripe_devid(btrfs_chunk_stripe(c, stripe)) - 1];
}

/* one multiply per word: distinct for every word and every copy */
static u64 mix64(u64 x)
{
	return (x + 1) * 0x9E3779B97F4A7C15ULL;
}

/* the byte the test wrote at @logical in copy @mirror (0-based) */
static u8 pattern_byte(u64 logical, int mirror)
{
	u64 w = mix64(logical >> 3) ^ ((u64)(mirror + 1) * 0xD6E8FEB86659FD93ULL);

	return (u8)(w >> ((logical & 7) * 8));
}

static void fill_pattern(u8 *buf, u64 logical, u64 len, int mirror)
{
	u64 i = 0;

	/* byte by byte up to a word boundary, then a word at a time */
	for (; i < len && ((logical + i) & 7); i++)
		buf[i] = pattern_byte(logical + i, mirror);
	for (; i + 8 <= len; i += 8) {
		u64 w = mix64((logical + i) >> 3) ^ ((u64)(mirror + 1) * 0xD6E8FEB86659FD93ULL);

		w = htole64(w);		/* byte b of the word is w >> 8b */
		memcpy(buf + i, &w, sizeof(w));
	}
	for (; i < len; i++)
		buf[i] = pattern_byte(logical + i, mirror);
}

/* write every copy of the chunk where the model says it lives */
static void write_chunk_data(struct cm_fs *t, const struct profile_case *pc,
			     const struct chunk_buf *cb)
{
	u64 length = btrfs_chunk_length(cb->c);
	u8 *buf = malloc(SLEN);
	int m;

	REQUIRE((buf) != NULL);
	for (m = 0; m < model_copies(pc); m++) {
		u64 off = 0;

		while (off < length) {
			struct mloc loc;
			u64 seg;

			model_map(pc, cb->c, off, m, &loc);
			seg = loc.contig < SLEN ? loc.contig : SLEN;
			if (seg > length - off)
				seg = length - off;
			fill_pattern(buf, cb->logical + off, seg, m);
			REQUIRE_INT(pwrite(stripe_dev(t, cb->c, loc.stripe)->fd,
						buf, seg, loc.physical), ==, (ssize_t)seg);
			off += seg;
		}
	}
	free(buf);
}

static bool stripe_present(struct cm_fs *t, const struct btrfs_chunk *c, int stripe)
{
	return stripe_dev(t, c, stripe)->fd >= 0;
}

static u64 rnd_len(u64 *state)
{
	switch (rnd_below(state, 8)) {
	case 0:
		return 1 + rnd_below(state, 4 * SLEN);
	case 1:
		return SECTOR * (1 + rnd_below(state, 32));
	default:
		return 1 + rnd_below(state, 3 * SECTOR);
	}
}

/*
 * Check btrfs_map_block at one random offset of the chunk for every
 * mirror number, including 0 and one past the last copy.
 */
static void check_map_once(struct cm_fs *t, const struct profile_case *pc,
			   const struct chunk_buf *cb, u64 off, u64 len)
{
	int copies = model_copies(pc), mirror;

	REQUIRE_INT(btrfs_num_copies(t->fs, cb->logical + off, len), ==, copies);
	for (mirror = 0; mirror <= copies + 1; mirror++) {
		struct btrfs_device *dev = NULL;
		u64 physical = 0, got_len = len;
		int ret, m, want_m = -1;
		struct mloc loc;

		ret = btrfs_map_block(t->fs, cb->logical + off, &got_len, mirror,
				      &dev, &physical);
		if (mirror > copies) {
			CM_CHECK(ret == -EINVAL, "%s x%d mirror %d of %d: ret %d, expect -EINVAL",
				 btrfs_bg_type_profile_name(pc->profile), pc->num,
				 mirror, copies, ret);
			continue;
		}
		/* which copy the model expects: the first present for mirror 0 */
		for (m = mirror ? mirror - 1 : 0; m < copies; m++) {
			model_map(pc, cb->c, off, m, &loc);
			if (stripe_present(t, cb->c, loc.stripe)) {
				want_m = m;
				break;
			}
			if (mirror)
				break;
		}
		if (want_m < 0) {
			CM_CHECK(ret == -ENODEV, "%s x%d off %llu mirror %d: ret %d, expect -ENODEV",
				 btrfs_bg_type_profile_name(pc->profile), pc->num,
				 (unsigned long long)off, mirror, ret);
			continue;
		}
		CM_CHECK(ret == 0, "%s x%d off %llu mirror %d: ret %d",
			 btrfs_bg_type_profile_name(pc->profile), pc->num,
			 (unsigned long long)off, mirror, ret);
		CM_CHECK(dev == stripe_dev(t, cb->c, loc.stripe) &&
			 physical == loc.physical &&
			 got_len == (len < loc.contig ? len : loc.contig),
			 "%s x%d off %llu len %llu mirror %d: devid %llu physical %llu len %llu, "
			 "model stripe %d devid %llu physical %llu len %llu",
			 btrfs_bg_type_profile_name(pc->profile), pc->num,
			 (unsigned long long)off, (unsigned long long)len, mirror,
			 (unsigned long long)(dev ? dev->devid : 0),
			 (unsigned long long)physical, (unsigned long long)got_len,
			 loc.stripe, (unsigned long long)stripe_dev(t, cb->c, loc.stripe)->devid,
			 (unsigned long long)loc.physical,
			 (unsigned long long)(len < loc.contig ? len : loc.contig));
	}
}

/*
 * What btrfs_read_logical(@mirror) must give for [off, off + len): fills
 * @want and returns 0, or returns -ENODEV when some part has no readable
 * copy.  Mirror 0 picks, per stripe element, the first present copy.
 */
static int model_read(struct cm_fs *t, const struct profile_case *pc,
		      const struct chunk_buf *cb, u64 off, u64 len, int mirror,
		      u8 *want)
{
	int copies = model_copies(pc);
	u64 done = 0;

	while (done < len) {
		struct mloc loc;
		int m, use = -1;
		u64 seg;

		for (m = mirror ? mirror - 1 : 0; m < copies; m++) {
			model_map(pc, cb->c, off + done, m, &loc);
			if (stripe_present(t, cb->c, loc.stripe)) {
				use = m;
				break;
			}
			if (mirror)
				break;
		}
		if (use < 0)
			return -ENODEV;
		seg = loc.contig < len - done ? loc.contig : len - done;
		fill_pattern(want + done, cb->logical + off + done, seg, use);
		done += seg;
	}
	return 0;
}

static void check_read_once(struct cm_fs *t, const struct profile_case *pc,
			    const struct chunk_buf *cb, u64 off, u64 len,
			    u8 *got, u8 *want)
{
	int copies = model_copies(pc), mirror;

	for (mirror = 0; mirror <= copies; mirror++) {
		int expect = model_read(t, pc, cb, off, len, mirror, want);
		int ret;

		memset(got, 0xA5, len);
		ret = btrfs_read_logical(t->fs, cb->logical + off, got, len, mirror);
		CM_CHECK(ret == expect, "%s x%d read off %llu len %llu mirror %d: ret %d expect %d",
			 btrfs_bg_type_profile_name(pc->profile), pc->num,
			 (unsigned long long)off, (unsigned long long)len, mirror,
			 ret, expect);
		if (ret)
			continue;
		if (memcmp(got, want, len)) {
			u64 i = 0;

			while (got[i] == want[i])
				i++;
			ck_abort_msg("%s x%d read off %llu len %llu mirror %d: byte %llu is 0x%02x, expect 0x%02x",
				     btrfs_bg_type_profile_name(pc->profile), pc->num,
				     (unsigned long long)off, (unsigned long long)len,
				     mirror, (unsigned long long)i, got[i], want[i]);
		}
	}
}

/* a random offset and length inside the chunk */
static void rnd_extent(u64 *state, u64 length, u64 *off, u64 *len)
{
	*len = rnd_len(state);
	if (*len > length)
		*len = length;
	if (rnd_below(state, 8) == 0)
		*off = length - *len;		/* up to the very end */
	else if (rnd_below(state, 8) == 0)
		*off = SLEN * rnd_below(state, length / SLEN) -
		       (rnd_below(state, 2) ? 0 : rnd_below(state, 16));
	else
		*off = rnd_below(state, length - *len + 1);
	if (*off > length - *len)
		*off = length - *len;
}

static void run_profile(const struct profile_case *pc, u64 seed, int nr_steps)
{
	u64 state = seed_state(seed);
	u8 *got = malloc(4 * SLEN + 1), *want = malloc(4 * SLEN + 1);
	struct cm_fs t;
	struct chunk_buf cb;
	u64 length;
	int step, k;

	REQUIRE((got) != NULL);
	REQUIRE((want) != NULL);
	cm_fs_init(&t);
	build_chunk(&cb, pc, BTRFS_BLOCK_GROUP_DATA,
		    (1ULL << 30) + SECTOR * rnd_below(&state, 1 << 20), &state);
	length = btrfs_chunk_length(cb.c);
	cm_add_chunk(&t, &cb);
	write_chunk_data(&t, pc, &cb);

	for (step = 0; step < nr_steps; step++) {
		u64 off, len;

		rnd_extent(&state, length, &off, &len);
		check_map_once(&t, pc, &cb, off, len);
		if (step % 12 == 0)
			check_read_once(&t, pc, &cb, off, len, got, want);
	}

	/* unmapped addresses */
	{
		struct btrfs_device *dev;
		u64 phys, len = SECTOR;

		REQUIRE_INT(btrfs_map_block(t.fs, cb.logical - 1, &len, 0,
						 &dev, &phys), ==, -ENOENT);
		len = SECTOR;
		REQUIRE_INT(btrfs_map_block(t.fs, cb.logical + length, &len, 0,
						 &dev, &phys), ==, -ENOENT);
		REQUIRE_INT(btrfs_num_copies(t.fs, cb.logical + length, 1), ==, 0);
		REQUIRE_INT(btrfs_read_logical(t.fs, cb.logical + length - 10,
						    got, 20, 0), ==, -ENOENT);
	}

	/* take devices away one at a time, then two at once */
	for (k = 0; k < pc->num + 1; k++) {
		int gone = k < pc->num ? k : -1, d;

		for (d = 0; d < NR_DEVS; d++)
			t.fs->devices[d].fd = t.saved_fd[d];
		if (gone >= 0) {
			stripe_dev(&t, cb.c, gone)->fd = -1;
		} else {
			stripe_dev(&t, cb.c, 0)->fd = -1;
			stripe_dev(&t, cb.c, pc->num - 1)->fd = -1;
		}
		for (step = 0; step < nr_steps / 8; step++) {
			u64 off, len;

			rnd_extent(&state, length, &off, &len);
			check_map_once(&t, pc, &cb, off, len);
			if (step % 4 == 0)
				check_read_once(&t, pc, &cb, off, len, got, want);
		}
	}
	for (k = 0; k < NR_DEVS; k++)
		t.fs->devices[k].fd = t.saved_fd[k];

	/* a device shorter than the chunk says: -EIO, reported */
	{
		struct btrfs_device *d = stripe_dev(&t, cb.c, 0);
		u64 phys0 = btrfs_stripe_offset(btrfs_chunk_stripe(cb.c, 0));

		d->size = phys0 + SECTOR;
		t.nr_msgs = 0;
		REQUIRE_INT(btrfs_read_logical(t.fs, cb.logical, got, 2 * SECTOR, 1), ==, -EIO);
		REQUIRE_INT(t.nr_msgs, ==, 1);
		REQUIRE((strstr(t.last_msg, "beyond device size")) != NULL);
		d->size = DEV_SIZE;
	}
	free(cb.c);
	cm_fs_destroy(&t);
	free(got);
	free(want);
}

START_TEST(test_map_profiles)
{
	struct profile_case pc[40];
	int n = all_profiles(pc), i;

	for (i = 0; i < n; i++)
		run_profile(&pc[i], _i * 1000 + i + 1, 600);
}
END_TEST

/* layouts written out by hand, to pin the model itself */
START_TEST(test_fixed_layouts)
{
	static const struct {
		struct profile_case pc;
		int stripe[9];		/* stripe of elements 0..8, copy 0 */
		u64 row[9];
	} fixed[] = {
		/* RAID0 x3: round robin */
		{ { BTRFS_BLOCK_GROUP_RAID0, 3, 1 },
		  { 0, 1, 2, 0, 1, 2, 0, 1, 2 }, { 0, 0, 0, 1, 1, 1, 2, 2, 2 } },
		/* RAID10 x4: pairs (0,1) and (2,3) */
		{ { BTRFS_BLOCK_GROUP_RAID10, 4, 2 },
		  { 0, 2, 0, 2, 0, 2, 0, 2, 0 }, { 0, 0, 1, 1, 2, 2, 3, 3, 4 } },
		/* RAID5 x3: rows D0 D1 P, P D0 D1, D1 P D0, ... */
		{ { BTRFS_BLOCK_GROUP_RAID5, 3, 1 },
		  { 0, 1, 1, 2, 2, 0, 0, 1, 1 }, { 0, 0, 1, 1, 2, 2, 3, 3, 4 } },
		/* RAID6 x4: rows D0 D1 P Q, Q D0 D1 P, ... */
		{ { BTRFS_BLOCK_GROUP_RAID6, 4, 1 },
		  { 0, 1, 1, 2, 2, 3, 3, 0, 0 }, { 0, 0, 1, 1, 2, 2, 3, 3, 4 } },
	};
	u64 state = seed_state(9);
	size_t f;
	int e;

	for (f = 0; f < sizeof(fixed) / sizeof(fixed[0]); f++) {
		struct cm_fs t;
		struct chunk_buf cb;

		cm_fs_init(&t);
		build_chunk(&cb, &fixed[f].pc, BTRFS_BLOCK_GROUP_DATA, 1ULL << 30, &state);
		cm_add_chunk(&t, &cb);
		for (e = 0; e < 9; e++) {
			const struct btrfs_stripe *s = btrfs_chunk_stripe(cb.c, fixed[f].stripe[e]);
			u64 off = e * SLEN + 100, len = SLEN, phys;
			struct btrfs_device *dev;
			struct mloc loc;

			model_map(&fixed[f].pc, cb.c, off, 0, &loc);
			REQUIRE_INT(loc.stripe, ==, fixed[f].stripe[e]);
			REQUIRE_INT(btrfs_map_block(t.fs, cb.logical + off, &len, 1,
							 &dev, &phys), ==, 0);
			REQUIRE_UINT(dev->devid, ==, btrfs_stripe_devid(s));
			REQUIRE_UINT(phys, ==, btrfs_stripe_offset(s) +
					  fixed[f].row[e] * SLEN + 100);
			REQUIRE_UINT(len, ==, SLEN - 100);
		}
		free(cb.c);
		cm_fs_destroy(&t);
	}
}
END_TEST

/* several chunks of different profiles back to back: reads cross them */
START_TEST(test_read_across_chunks)
{
	struct profile_case pc[40];
	int n = all_profiles(pc), i, step;
	u64 state = seed_state(_i + 500);
	struct chunk_buf cbs[4];
	const struct profile_case *pcs[4];
	u8 *got = malloc(8 * SLEN), *want = malloc(8 * SLEN);
	u64 logical = 1ULL << 32, total = 0;
	struct cm_fs t;

	REQUIRE((got) != NULL);
	REQUIRE((want) != NULL);
	cm_fs_init(&t);
	for (i = 0; i < 4; i++) {
		pcs[i] = &pc[rnd_below(&state, n)];
		/* DUP and the rest share devices: keep their physical areas apart */
		build_chunk(&cbs[i], pcs[i], BTRFS_BLOCK_GROUP_METADATA, logical, &state);
		for (int s = 0; s < pcs[i]->num; s++) {
			struct btrfs_stripe *st = btrfs_chunk_stripe(cbs[i].c, s);
			u64 phys = 2 * PER_DEV * i;

			/* chunk i owns [2i, 2i + 2) MiB of each device */
			if (pcs[i]->profile == BTRFS_BLOCK_GROUP_DUP && s)
				phys += PER_DEV;
			btrfs_set_stripe_offset(st, phys);
		}
		cm_add_chunk(&t, &cbs[i]);
		write_chunk_data(&t, pcs[i], &cbs[i]);
		logical += btrfs_chunk_length(cbs[i].c);
		total += btrfs_chunk_length(cbs[i].c);
	}
	for (step = 0; step < 300; step++) {
		u64 len = 1 + rnd_below(&state, 8 * SLEN);
		u64 off = rnd_below(&state, total - len + 1), done = 0;

		/* mirror 0 and no device missing: copy 0 everywhere */
		while (done < len) {
			u64 at = off + done, seg;

			i = 0;
			while (at >= btrfs_chunk_length(cbs[i].c)) {
				at -= btrfs_chunk_length(cbs[i].c);
				i++;
			}
			seg = btrfs_chunk_length(cbs[i].c) - at;
			if (seg > len - done)
				seg = len - done;
			fill_pattern(want + done, cbs[i].logical + at, seg, 0);
			done += seg;
		}
		REQUIRE_INT(btrfs_read_logical(t.fs, (1ULL << 32) + off, got, len, 0), ==, 0);
		CM_CHECK(!memcmp(got, want, len), "read of %llu +%llu across chunks differs",
			      (unsigned long long)off, (unsigned long long)len);
	}
	for (i = 0; i < 4; i++)
		free(cbs[i].c);
	cm_fs_destroy(&t);
	free(got);
	free(want);
}
END_TEST

/* chunk items naming absent devices, and invalid items, through chunk_to_map */
START_TEST(test_chunk_to_map)
{
	struct profile_case raid1 = { BTRFS_BLOCK_GROUP_RAID1, 2, 1 };
	struct profile_case single = { 0, 1, 1 };
	u64 state = seed_state(11);
	struct chunk_buf cb;
	struct map_lookup *ml = NULL;
	struct btrfs_device *dev;
	u64 phys, len;
	struct cm_fs t;

	cm_fs_init(&t);
	/* RAID1 whose first stripe names devid 99: mirror 0 uses the second */
	build_chunk(&cb, &raid1, BTRFS_BLOCK_GROUP_DATA, 1ULL << 30, &state);
	btrfs_set_stripe_devid(btrfs_chunk_stripe(cb.c, 0), 99);
	ml = cm_add_chunk(&t, &cb);
	REQUIRE((ml->stripes[0].dev) == NULL);
	REQUIRE((void *)(ml->stripes[1].dev) == (void *)(&t.fs->devices[1]));
	REQUIRE_UINT(ml->stripes[0].devid, ==, 99);
	REQUIRE_UINT(ml->length, ==, PER_DEV);
	REQUIRE_UINT(ml->type, ==, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1);
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical, &len, 0, &dev, &phys), ==, 0);
	REQUIRE((void *)(dev) == (void *)(&t.fs->devices[1]));
	REQUIRE_UINT(phys, ==, btrfs_stripe_offset(btrfs_chunk_stripe(cb.c, 1)));
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical, &len, 1, &dev, &phys), ==, -ENODEV);
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical, &len, 2, &dev, &phys), ==, 0);
	free(cb.c);

	/* single on an absent device: nothing to fall back to */
	build_chunk(&cb, &single, BTRFS_BLOCK_GROUP_DATA, 2ULL << 30, &state);
	btrfs_set_stripe_devid(btrfs_chunk_stripe(cb.c, 0), 1000);
	cm_add_chunk(&t, &cb);
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical, &len, 0, &dev, &phys), ==, -ENODEV);
	REQUIRE_INT(btrfs_read_logical(t.fs, cb.logical, &phys, 8, 0), ==, -ENODEV);

	/* an overlapping chunk */
	{
		struct chunk_buf cb2;

		build_chunk(&cb2, &single, BTRFS_BLOCK_GROUP_DATA,
			    cb.logical + PER_DEV - SECTOR, &state);
		REQUIRE_INT(btrfs_chunk_to_map(t.fs, cb2.logical, cb2.c,
						    cb2.item_size, &ml), ==, 0);
		REQUIRE_INT(chunk_map_insert(&t.fs->chunk_map, ml), ==, -EEXIST);
		free(ml);
		free(cb2.c);
	}
	free(cb.c);

	/* an invalid item is reported and not mapped */
	build_chunk(&cb, &single, BTRFS_BLOCK_GROUP_DATA, 3ULL << 30, &state);
	btrfs_set_chunk_stripe_len(cb.c, 4096);
	t.nr_msgs = 0;
	ml = NULL;
	REQUIRE_INT(btrfs_chunk_to_map(t.fs, cb.logical, cb.c, cb.item_size, &ml), ==, -EUCLEAN);
	REQUIRE((ml) == NULL);
	REQUIRE_INT(t.nr_msgs, ==, 1);
	CM_CHECK(strstr(t.last_msg, "3221225472") && strstr(t.last_msg, "stripe length"),
		      "message \"%s\" names neither the chunk nor the field", t.last_msg);
	free(cb.c);
	cm_fs_destroy(&t);
}
END_TEST

/*
 * A stripe offset near 2^64 (the chunk item is otherwise valid): the
 * physical address must not wrap around to the start of the device, where
 * other data lives.
 */
/* device offsets back to logical addresses, against the striping model */
START_TEST(test_physical_to_logical)
{
	struct profile_case pc[40];
	int n = all_profiles(pc), i;

	for (i = 0; i < n; i++) {
		u64 state = seed_state(_i * 977 + i + 1);
		struct btrfs_physical_hit hit;
		struct cm_fs t;
		struct chunk_buf cb;
		u64 length, elems, *seen;
		int step, m, copies, s, nr_par, parity = 0;
		u64 row, rows;

		cm_fs_init(&t);
		build_chunk(&cb, &pc[i], BTRFS_BLOCK_GROUP_DATA,
			    (1ULL << 30) + SECTOR * rnd_below(&state, 1 << 20), &state);
		length = btrfs_chunk_length(cb.c);
		cm_add_chunk(&t, &cb);
		copies = pc[i].profile == BTRFS_BLOCK_GROUP_RAID10 ? pc[i].sub :
			 (pc[i].profile & (BTRFS_BLOCK_GROUP_RAID0 | BTRFS_BLOCK_GROUP_RAID5 |
					   BTRFS_BLOCK_GROUP_RAID6)) ? 1 : pc[i].num;
		for (step = 0; step < 300; step++) {
			u64 off = rnd_below(&state, length / SECTOR) * SECTOR +
				  rnd_below(&state, SECTOR);

			for (m = 0; m < copies; m++) {
				struct mloc loc;
				u64 devid;

				model_map(&pc[i], cb.c, off, m, &loc);
				devid = btrfs_stripe_devid(btrfs_chunk_stripe(cb.c, loc.stripe));
				REQUIRE_INT(btrfs_physical_to_logical(t.fs, devid, loc.physical,
								      &hit), ==, 0);
				REQUIRE(!hit.parity);
				REQUIRE_UINT(hit.chunk_logical, ==, cb.logical);
				REQUIRE_UINT(hit.logical, ==, cb.logical + off);
			}
		}
		/* every element of every stripe, one probe each */
		nr_par = pc[i].profile == BTRFS_BLOCK_GROUP_RAID5 ? 1 :
			 pc[i].profile == BTRFS_BLOCK_GROUP_RAID6 ? 2 : 0;
		rows = PER_DEV / SLEN;
		elems = length / SLEN;
		seen = calloc(elems + 1, sizeof(*seen));
		REQUIRE(seen != NULL);
		for (s = 0; s < pc[i].num; s++) {
			const struct btrfs_stripe *st = btrfs_chunk_stripe(cb.c, s);
			u64 per_dev = pc[i].profile & (BTRFS_BLOCK_GROUP_RAID0 |
				BTRFS_BLOCK_GROUP_RAID10 | BTRFS_BLOCK_GROUP_RAID5 |
				BTRFS_BLOCK_GROUP_RAID6) ? PER_DEV : length;

			for (row = 0; row < per_dev / SLEN; row++) {
				REQUIRE_INT(btrfs_physical_to_logical(t.fs,
					btrfs_stripe_devid(st),
					btrfs_stripe_offset(st) + row * SLEN + 7, &hit), ==, 0);
				if (hit.parity) {
					parity++;
					continue;
				}
				REQUIRE_UINT((hit.logical - cb.logical) % SLEN, ==, 7);
				REQUIRE_UINT((hit.logical - cb.logical) / SLEN, <, elems);
				seen[(hit.logical - cb.logical) / SLEN]++;
			}
			/* just past the stripe: nothing (devices hold nothing else) */
			REQUIRE_INT(btrfs_physical_to_logical(t.fs, btrfs_stripe_devid(st),
				btrfs_stripe_offset(st) + per_dev + SECTOR * 1000000, &hit), ==, -ENOENT);
		}
		for (row = 0; row < elems; row++)
			REQUIRE_UINT(seen[row], ==, (u64)copies);
		REQUIRE_UINT(parity, ==, (u64)nr_par * rows);
		free(seen);
		free(cb.c);
		cm_fs_destroy(&t);
	}
}
END_TEST

START_TEST(test_physical_wrap)
{
	struct profile_case single = { 0, 1, 1 };
	struct profile_case raid0 = { BTRFS_BLOCK_GROUP_RAID0, 2, 1 };
	u64 state = seed_state(13);
	struct btrfs_device *dev;
	struct chunk_buf cb;
	u64 phys, len, buf[2];
	struct cm_fs t;

	cm_fs_init(&t);
	build_chunk(&cb, &single, BTRFS_BLOCK_GROUP_DATA, 1ULL << 30, &state);
	btrfs_set_stripe_offset(btrfs_chunk_stripe(cb.c, 0), (u64)0 - SECTOR);
	cm_add_chunk(&t, &cb);
	len = SECTOR;
	/* the first sector is at 2^64 - 4096: fine to map, past the device */
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical, &len, 0, &dev, &phys), ==, 0);
	REQUIRE_UINT(phys, ==, (u64)0 - SECTOR);
	REQUIRE_INT(btrfs_read_logical(t.fs, cb.logical, buf, sizeof(buf), 0), ==, -EIO);
	/* the next ones would wrap to 0, 4096, ... */
	for (u64 off = SECTOR; off < 8 * SECTOR; off += SECTOR / 2) {
		len = SECTOR;
		REQUIRE_INT(btrfs_map_block(t.fs, cb.logical + off, &len, 0, &dev, &phys),
			    ==, -EUCLEAN);
		REQUIRE_INT(btrfs_read_logical(t.fs, cb.logical + off, buf, sizeof(buf), 0),
			    ==, -EUCLEAN);
	}
	free(cb.c);

	/* RAID0: the wrap comes from the row number */
	build_chunk(&cb, &raid0, BTRFS_BLOCK_GROUP_DATA, 2ULL << 30, &state);
	btrfs_set_stripe_offset(btrfs_chunk_stripe(cb.c, 1), (u64)0 - SLEN);
	cm_add_chunk(&t, &cb);
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical + SLEN, &len, 0, &dev, &phys), ==, 0);
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical + 3 * SLEN, &len, 0, &dev, &phys),
		    ==, -EUCLEAN);
	/* stripe 0 is untouched */
	len = SECTOR;
	REQUIRE_INT(btrfs_map_block(t.fs, cb.logical + 2 * SLEN, &len, 0, &dev, &phys), ==, 0);
	free(cb.c);
	cm_fs_destroy(&t);
}
END_TEST

Suite *chunk_map_suite(void)
{
	Suite *s = suite_create("chunk_map");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_map_random, 0, 4);
	tcase_add_loop_test(tc, test_map_shuffled, 0, 2);
	tcase_add_test(tc, test_check_chunk_valid);
	tcase_add_loop_test(tc, test_check_chunk_corrupt, 0, 3);
	tcase_add_test(tc, test_fixed_layouts);
	tcase_add_loop_test(tc, test_map_profiles, 0, 2);
	tcase_add_loop_test(tc, test_read_across_chunks, 0, 3);
	tcase_add_test(tc, test_chunk_to_map);
	tcase_add_test(tc, test_physical_wrap);
	tcase_add_loop_test(tc, test_physical_to_logical, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
