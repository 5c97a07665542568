// SPDX-License-Identifier: GPL-2.0
/*
 * Extent-io tree: clearing a range whose first and last records stick
 * out of it, so each clear cuts the tail off one record and the head off
 * the next.  Plain: split each record at the range edge (allocate and
 * insert a record), then delete the part inside.  Improved: trim the
 * record's end or start in place.  The same tree code runs both ways
 * (the trim_disabled knob); the resulting trees must be identical.
 *
 * Records of 64 bytes every 128 bytes; pass k clears, between every two
 * neighbours, the gap plus one more byte of each side.
 */
#include <string.h>
#include "bench.h"
#include "extent-io-tree.h"

#define NR_RECORDS	10000ULL
#define STRIDE		128ULL
#define REC_LEN		64ULL
#define PASSES		30ULL

static void build(struct extent_io_tree *tree, bool trim_disabled)
{
	u64 i;

	extent_io_tree_init(tree);
	tree->trim_disabled = trim_disabled;
	for (i = 0; i < NR_RECORDS; i++) {
		if (set_extent_bits(tree, i * STRIDE, i * STRIDE + REC_LEN - 1,
				    EXTENT_DIRTY))
			bench_die("bench-extent-io-trim", "set_extent_bits failed");
	}
}

static double run_clears(struct extent_io_tree *tree)
{
	double t0 = bench_now();
	u64 k, i, start, end;

	for (k = 0; k < PASSES; k++) {
		for (i = 0; i + 1 < NR_RECORDS; i++) {
			start = i * STRIDE + REC_LEN - 1 - k;
			end = (i + 1) * STRIDE + k;
			if (clear_extent_bits(tree, start, end, EXTENT_DIRTY))
				bench_die("bench-extent-io-trim", "clear failed");
		}
	}
	return bench_now() - t0;
}

static void check_same(struct extent_io_tree *a, struct extent_io_tree *b)
{
	struct extent_state *x = extent_io_tree_first(a);
	struct extent_state *y = extent_io_tree_first(b);

	if (a->nr_states != NR_RECORDS)
		bench_die("bench-extent-io-trim", "unexpected record count");
	for (; x && y; x = extent_state_next(x), y = extent_state_next(y)) {
		if (x->start != y->start || x->end != y->end || x->bits != y->bits)
			bench_die("bench-extent-io-trim", "trees differ");
	}
	if (x || y)
		bench_die("bench-extent-io-trim", "trees differ in length");
}

int main(void)
{
	struct extent_io_tree plain, trim;
	double best_plain = 0, best_trim = 0;
	int round;

	printf("bench-extent-io-trim: %llu clears, each cutting the tail of one\n"
	       "record and the head of the next (%llu records, %llu passes)\n",
	       (NR_RECORDS - 1) * PASSES, NR_RECORDS, PASSES);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		build(&plain, true);
		build(&trim, false);
		/* alternate which goes first: neither gets the warmer caches */
		if (round & 1)
			bench_min(&best_trim, run_clears(&trim));
		bench_min(&best_plain, run_clears(&plain));
		if (!(round & 1))
			bench_min(&best_trim, run_clears(&trim));
		check_same(&plain, &trim);
		extent_io_tree_release(&plain);
		extent_io_tree_release(&trim);
	}
	bench_report("plain (split + delete)", best_plain, "improved (trim in place)",
		     best_trim, (double)((NR_RECORDS - 1) * PASSES), "clear");
	return 0;
}
