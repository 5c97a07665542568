// SPDX-License-Identifier: GPL-2.0
/*
 * Pending-free tree: recording freed extents with set_extent_bits() when
 * most frees touch a range freed before (a transaction frees runs of
 * neighbouring tree blocks).  Plain: insert a new record for the freed
 * range, then merge it with its neighbours (erase and free it again).
 * Improved: see the touching neighbour with the same bits first and grow
 * it over the range, no record allocated or inserted.  The same tree
 * code runs both ways (the premerge_disabled knob); the resulting trees
 * must be identical.
 *
 * Workload: transactions of 65536 frees of 16 KiB blocks (a few thousand
 * records per tree): runs of 1 to 32 neighbouring blocks freed in random
 * order, each run in address order or backwards.
 */
#include <string.h>
#include "bench.h"
#include "extent-io-tree.h"

#define NR_FREES	(1U << 16)	/* per transaction */
#define NR_TRANS	16
#define BLOCK		16384ULL

struct free_op {
	u64 start;
	u64 end;
};

/* runs of neighbouring blocks, 1..32 long, separated by used blocks */
static struct free_op *make_workload(unsigned int nr)
{
	struct free_op *ops = malloc(nr * sizeof(*ops));
	uint64_t seed = 0x5eed;
	u64 *run_starts, addr = 1ULL << 30;
	unsigned int i = 0, r, n, len, nr_runs = 0, j;

	run_starts = malloc(nr * sizeof(*run_starts));
	if (!ops || !run_starts)
		bench_die("bench-merge-before-insert", "out of memory");
	/* lay the runs out, then shuffle the order in which runs are freed */
	while (i < nr) {
		len = 1 + (unsigned int)bench_rand_below(&seed, 32);
		if (len > nr - i)
			len = nr - i;
		run_starts[nr_runs++] = addr | len;	/* len fits below BLOCK */
		addr += (len + 1 + bench_rand_below(&seed, 4)) * BLOCK;
		i += len;
	}
	for (r = nr_runs - 1; r > 0; r--) {
		j = (unsigned int)bench_rand_below(&seed, r + 1);
		addr = run_starts[r];
		run_starts[r] = run_starts[j];
		run_starts[j] = addr;
	}
	for (i = 0, r = 0; r < nr_runs; r++) {
		u64 base = run_starts[r] & ~(BLOCK - 1);
		bool backwards = bench_rand_below(&seed, 2);

		len = (unsigned int)(run_starts[r] & (BLOCK - 1));
		for (n = 0; n < len; n++, i++) {
			u64 b = base + (backwards ? len - 1 - n : n) * BLOCK;

			ops[i].start = b;
			ops[i].end = b + BLOCK - 1;
		}
	}
	free(run_starts);
	return ops;
}

static double run_frees(struct extent_io_tree *tree, const struct free_op *ops,
			unsigned int nr)
{
	double t0 = bench_now();
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (set_extent_bits(tree, ops[i].start, ops[i].end, EXTENT_DIRTY))
			bench_die("bench-merge-before-insert", "set_extent_bits failed");
	}
	return bench_now() - t0;
}

static void check_same(struct extent_io_tree *a, struct extent_io_tree *b)
{
	struct extent_state *x = extent_io_tree_first(a);
	struct extent_state *y = extent_io_tree_first(b);

	for (; x && y; x = extent_state_next(x), y = extent_state_next(y)) {
		if (x->start != y->start || x->end != y->end || x->bits != y->bits)
			bench_die("bench-merge-before-insert", "trees differ");
	}
	if (x || y)
		bench_die("bench-merge-before-insert", "trees differ in length");
}

/* one round: NR_TRANS transactions, each recorded in a fresh tree */
static double run_round(const struct free_op *ops, bool premerge_disabled,
			struct extent_io_tree *last)
{
	struct extent_io_tree tree;
	double total = 0;
	int t;

	for (t = 0; t < NR_TRANS; t++) {
		extent_io_tree_init(&tree);
		tree.premerge_disabled = premerge_disabled;
		total += run_frees(&tree, ops + (size_t)t * NR_FREES, NR_FREES);
		if (t < NR_TRANS - 1)
			extent_io_tree_release(&tree);
	}
	*last = tree;
	return total;
}

int main(void)
{
	struct free_op *ops = make_workload(NR_FREES * NR_TRANS);
	struct extent_io_tree plain, merged;
	double best_plain = 0, best_merged = 0;
	int round;

	printf("bench-merge-before-insert: %d transactions of %u frees of 16 KiB\n"
	       "blocks, each recorded in a pending-free tree; runs of 1-32\n"
	       "neighbouring blocks freed in random order\n", NR_TRANS, NR_FREES);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		/* alternate which goes first: neither gets the warmer caches */
		if (round & 1)
			bench_min(&best_merged, run_round(ops, false, &merged));
		bench_min(&best_plain, run_round(ops, true, &plain));
		if (!(round & 1))
			bench_min(&best_merged, run_round(ops, false, &merged));
		check_same(&plain, &merged);
		if (round == 0)
			printf("  %llu records per tree after merging\n",
			       (unsigned long long)merged.nr_states);
		extent_io_tree_release(&plain);
		extent_io_tree_release(&merged);
	}
	bench_report("plain (insert, then merge)", best_plain,
		     "improved (merge before insert)", best_merged,
		     (double)NR_FREES * NR_TRANS, "free");
	free(ops);
	return 0;
}
