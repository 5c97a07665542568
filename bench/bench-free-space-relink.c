// SPDX-License-Identifier: GPL-2.0
/*
 * Free space cache: allocating from a block group whose free space is a
 * few hundred extents.  Plain: every entry an allocation shrinks is
 * unlinked from both rb-trees (offset and size) and linked again.
 * Improved: it stays where it is unless it passed a neighbour in size
 * order.  The same code runs both ways (the relink_always knob); both
 * must hand out the same addresses.
 *
 * Workload: a 4 GiB block group with 600 free extents between used
 * gaps; allocations of 4 to 64 KiB, 7 of 8 hinted (at the end of the
 * previous allocation, as a cluster would), 1 of 8 not (largest entry
 * first), until 60% of the free space is gone.  Two layouts:
 *
 * - typical: 590 small holes (64 KiB - 1 MiB) and 10 large extents
 *   (64 - 192 MiB), a used block group with some big free areas left;
 *   allocations carve the large extents and rarely change size order;
 * - uniform: 600 extents of 64 KiB - 8 MiB, so close in size that
 *   nearly every allocation moves its entry in the size tree (only the
 *   offset tree relink is saved).
 *
 * Only the allocations are timed; each layout is repeated with 4 seeds.
 * The ratio is over both layouts together.
 */
#include <string.h>
#include "bench.h"
#include "free-space-cache.h"

#define SECTOR		4096ULL
#define BG_START	(16ULL << 30)
#define BG_LEN		(4ULL << 30)
#define NR_EXTENTS	600
#define NR_SEEDS	4

struct world {
	struct btrfs_free_space_ctl ctl;
	uint64_t seed;
	u64 nr_allocs;
	u64 checksum;		/* of every address handed out */
};

static u64 extent_size(struct world *w, int i, bool uniform)
{
	if (uniform)
		return (16 + bench_rand_below(&w->seed, 2033)) * SECTOR;
	if (i % 60 == 59)
		return (16384 + bench_rand_below(&w->seed, 32768)) * SECTOR;
	return (16 + bench_rand_below(&w->seed, 241)) * SECTOR;
}

static void setup(struct world *w, int seed, bool uniform, bool relink_always)
{
	u64 pos = BG_START, len;
	int i;

	memset(w, 0, sizeof(*w));
	w->seed = 0xf5ee + (uint64_t)seed * 7919;
	if (free_space_ctl_init(&w->ctl, BG_START, BG_LEN, SECTOR))
		bench_die("bench-free-space-relink", "init failed");
	w->ctl.relink_always = relink_always;
	for (i = 0; i < NR_EXTENTS; i++) {
		pos += (1 + bench_rand_below(&w->seed, 256)) * SECTOR;
		len = extent_size(w, i, uniform);
		if (pos + len > BG_START + BG_LEN)
			break;
		if (add_free_space(&w->ctl, pos, len))
			bench_die("bench-free-space-relink", "setup failed");
		pos += len;
	}
}

static double run_allocs(struct world *w)
{
	u64 stop = free_space_total(&w->ctl) * 4 / 10, last_end = 0, bytes, got;
	double t0 = bench_now();

	while (free_space_total(&w->ctl) > stop) {
		bytes = (1 + bench_rand_below(&w->seed, 16)) * SECTOR;
		if (btrfs_find_space_for_alloc(&w->ctl, (w->nr_allocs % 8) ? last_end :
					       BTRFS_FREE_SPACE_NO_HINT,
					       bytes, 0, &got))
			bench_die("bench-free-space-relink", "allocation failed");
		last_end = got + bytes;
		w->nr_allocs++;
		w->checksum = w->checksum * 31 + got;
	}
	return bench_now() - t0;
}

struct layout_result {
	double plain;
	double improved;
	u64 allocs;
	u64 relinks_plain;
	u64 relinks_improved;
};

/* one layout, NR_SEEDS block groups, both ways */
static void run_layout(bool uniform, bool improved_first, struct layout_result *r)
{
	struct world plain, improved;
	int seed;

	memset(r, 0, sizeof(*r));
	for (seed = 0; seed < NR_SEEDS; seed++) {
		setup(&plain, seed, uniform, true);
		setup(&improved, seed, uniform, false);
		if (improved_first)
			r->improved += run_allocs(&improved);
		r->plain += run_allocs(&plain);
		if (!improved_first)
			r->improved += run_allocs(&improved);
		if (plain.checksum != improved.checksum ||
		    plain.nr_allocs != improved.nr_allocs)
			bench_die("bench-free-space-relink",
				  "the two ways allocated differently");
		r->allocs += improved.nr_allocs;
		r->relinks_plain += plain.ctl.nr_relinks;
		r->relinks_improved += improved.ctl.nr_relinks;
		free_space_ctl_release(&plain.ctl);
		free_space_ctl_release(&improved.ctl);
	}
}

int main(void)
{
	static const char * const names[] = { "typical", "uniform" };
	struct layout_result best[2], r;
	u64 allocs = 0;
	int round, l;

	printf("bench-free-space-relink: allocations of 4-64 KiB from 600 free\n"
	       "extents of a 4 GiB block group, 7/8 hinted, 1/8 largest-first\n");
	memset(best, 0, sizeof(best));
	for (round = 0; round < BENCH_ROUNDS; round++) {
		for (l = 0; l < 2; l++) {
			/* alternate which goes first: neither gets the warmer caches */
			run_layout(l, round & 1, &r);
			bench_min(&best[l].plain, r.plain);
			bench_min(&best[l].improved, r.improved);
			best[l].allocs = r.allocs;
			best[l].relinks_plain = r.relinks_plain;
			best[l].relinks_improved = r.relinks_improved;
		}
	}
	for (l = 0; l < 2; l++) {
		printf("  %-8s %7llu allocs, size-tree moves %7llu of %7llu: %.2fx\n",
		       names[l], (unsigned long long)best[l].allocs,
		       (unsigned long long)best[l].relinks_improved,
		       (unsigned long long)best[l].relinks_plain,
		       best[l].plain / best[l].improved);
		allocs += best[l].allocs;
	}
	bench_report("plain (always unlink + relink)", best[0].plain + best[1].plain,
		     "improved (relink only when needed)",
		     best[0].improved + best[1].improved, (double)allocs, "alloc");
	return 0;
}
