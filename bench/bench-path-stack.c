// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree search paths: a struct btrfs_path (kernel-shared/ctree.h) on the
 * caller's stack vs one allocated and freed for every search.  The
 * searches run over a synthetic in-memory three-level tree: binary search
 * of the keys at each level, recording node and slot in the path, then a
 * release that drops the nodes, as btrfs_search_slot() and
 * btrfs_release_path() do.  Two key patterns: random keys (every search
 * misses the CPU caches) and ascending keys with small steps (a walk or
 * a run of inserts: the path stays in cache); the ratio is over both.
 */
#include <string.h>
#include "bench.h"
#include "ctree.h"

#define FANOUT		121		/* keys per node: 16 KiB nodes */
#define LEVELS		3
#define SEARCHES	(1U << 18)

struct fake_node {
	u64 keys[FANOUT];
	struct fake_node *child[FANOUT];
	int refs;
};

/* a full tree: node keys are the first key of each child */
static struct fake_node *build(int level, u64 first, u64 span)
{
	struct fake_node *n = calloc(1, sizeof(*n));
	int i;

	if (!n)
		bench_die("bench-path-stack", "out of memory");
	for (i = 0; i < FANOUT; i++) {
		n->keys[i] = first + (u64)i * span;
		if (level)
			n->child[i] = build(level - 1, n->keys[i], span / FANOUT);
	}
	return n;
}

static int bin_search(const struct fake_node *n, u64 key)
{
	int lo = 0, hi = FANOUT - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (n->keys[mid] <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* fills the path like a search does; the leaf slot is the result */
static int search(struct fake_node *root, u64 key, struct btrfs_path *path)
{
	struct fake_node *n = root;
	int level, slot = 0;

	for (level = LEVELS - 1; level >= 0; level--) {
		slot = bin_search(n, key);
		n->refs++;
		path->nodes[level] = (struct extent_buffer *)n;
		path->slots[level] = slot;
		if (level)
			n = n->child[slot];
	}
	return slot;
}

static void release(struct btrfs_path *path)
{
	int level;

	for (level = 0; level < BTRFS_MAX_LEVEL; level++) {
		if (!path->nodes[level])
			continue;
		((struct fake_node *)path->nodes[level])->refs--;
		path->nodes[level] = NULL;
	}
}

static double run_stack(struct fake_node *root, const u64 *keys, u64 *sum)
{
	double t0 = bench_now();
	unsigned int i;

	for (i = 0; i < SEARCHES; i++) {
		struct btrfs_path path;

		btrfs_init_path(&path);
		*sum += (u64)search(root, keys[i], &path);
		release(&path);
	}
	return bench_now() - t0;
}

static double run_heap(struct fake_node *root, const u64 *keys, u64 *sum)
{
	double t0 = bench_now();
	unsigned int i;

	for (i = 0; i < SEARCHES; i++) {
		struct btrfs_path *path = malloc(sizeof(*path));

		if (!path)
			bench_die("bench-path-stack", "out of memory");
		btrfs_init_path(path);
		*sum += (u64)search(root, keys[i], path);
		release(path);
		free(path);
	}
	return bench_now() - t0;
}

/* @sequential: ascending keys with small steps, else uniformly random */
static u64 *make_keys(u64 span, bool sequential)
{
	u64 *keys = malloc(SEARCHES * sizeof(*keys)), key = 0;
	uint64_t seed = sequential ? 78 : 77;
	unsigned int i;

	if (!keys)
		bench_die("bench-path-stack", "out of memory");
	for (i = 0; i < SEARCHES; i++) {
		if (sequential)
			key = (key + bench_rand_below(&seed, 64)) % span;
		else
			key = bench_rand_below(&seed, span);
		keys[i] = key;
	}
	return keys;
}

int main(void)
{
	static const char * const names[] = { "random keys", "ascending keys" };
	double best_stack[2] = { 0, 0 }, best_heap[2] = { 0, 0 };
	u64 span = 1, sum_stack = 0, sum_heap = 0, *keys[2];
	struct fake_node *root;
	int round, i;

	for (i = 0; i < LEVELS; i++)
		span *= FANOUT;
	root = build(LEVELS - 1, 0, span / FANOUT);
	for (i = 0; i < 2; i++)
		keys[i] = make_keys(span, i);
	printf("bench-path-stack: %u searches of a %d-level tree per key pattern,\n"
	       "struct btrfs_path of %zu bytes on the stack vs malloc+free per search\n",
	       SEARCHES, LEVELS, sizeof(struct btrfs_path));
	for (round = 0; round < BENCH_ROUNDS; round++) {
		for (i = 0; i < 2; i++) {
			/* alternate which goes first: neither gets the warmer caches */
			if (round & 1)
				bench_min(&best_stack[i], run_stack(root, keys[i], &sum_stack));
			bench_min(&best_heap[i], run_heap(root, keys[i], &sum_heap));
			if (!(round & 1))
				bench_min(&best_stack[i], run_stack(root, keys[i], &sum_stack));
		}
	}
	if (sum_heap != sum_stack || root->refs)
		bench_die("bench-path-stack", "the two ways searched differently");
	for (i = 0; i < 2; i++)
		printf("  %-15s heap %8.3f ms, stack %8.3f ms (%.2fx)\n", names[i],
		       best_heap[i] * 1e3, best_stack[i] * 1e3,
		       best_heap[i] / best_stack[i]);
	bench_report("plain (path malloc'ed per search)", best_heap[0] + best_heap[1],
		     "improved (path on the stack)", best_stack[0] + best_stack[1],
		     2.0 * SEARCHES, "search");
	for (i = 0; i < 2; i++)
		free(keys[i]);
	return 0;
}
