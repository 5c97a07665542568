// SPDX-License-Identifier: GPL-2.0
/*
 * Red-black tree: random inserts, erases, replacements and neighbour
 * inserts checked against a sorted array of the same nodes, with the
 * colour rules, parent links and order verified after every step.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "rbtree.h"

/* ck_assert records a mark per call; in hot loops only fail loudly */
#define RB_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

struct item {
	struct rb_node rb;
	int key;
	int id;
	unsigned int seen;	/* post-order check: stamp of the last visit */
};

struct model {
	struct rb_root root;
	struct item **sorted;	/* the same nodes, in tree order */
	int nr;
	int cap;
	uint64_t rand;
	int next_id;
	unsigned int stamp;
};

static uint64_t rnd(struct model *m)
{
	return test_rand(&m->rand);
}

static unsigned int rnd_below(struct model *m, unsigned int n)
{
	return (unsigned int)((rnd(m) >> 11) % n);
}

static void model_init(struct model *m, uint64_t seed, int cap)
{
	memset(m, 0, sizeof(*m));
	m->root = RB_ROOT;
	m->sorted = calloc(cap, sizeof(*m->sorted));
	ck_assert_ptr_nonnull(m->sorted);
	m->cap = cap;
	m->rand = seed | 1;
}

static struct item *new_item(struct model *m, int key)
{
	struct item *it = malloc(sizeof(*it));

	ck_assert_ptr_nonnull(it);
	it->key = key;
	it->id = m->next_id++;
	it->seen = 0;
	RB_CLEAR_NODE(&it->rb);
	return it;
}

static void model_insert_at(struct model *m, int idx, struct item *it)
{
	memmove(&m->sorted[idx + 1], &m->sorted[idx],
		(m->nr - idx) * sizeof(*m->sorted));
	m->sorted[idx] = it;
	m->nr++;
}

static void model_remove_at(struct model *m, int idx)
{
	memmove(&m->sorted[idx], &m->sorted[idx + 1],
		(m->nr - idx - 1) * sizeof(*m->sorted));
	m->nr--;
}

/* caller-driven descent: equal keys go right, after their equals */
static void tree_insert(struct rb_root *root, struct item *it)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (it->key < rb_entry(parent, struct item, rb)->key)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&it->rb, parent, link);
	rb_insert_color(&it->rb, root);
}

/* the array index after every item whose key is <= @key */
static int model_upper_bound(const struct model *m, int key)
{
	int lo = 0, hi = m->nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (m->sorted[mid]->key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* black height of the subtree at @node, checking every rule below it */
static int check_subtree(const struct rb_node *node, const struct rb_node *parent,
			 int *count)
{
	int lh, rh;

	if (!node)
		return 1;
	RB_CHECK(rb_parent(node) == parent, "parent link wrong");
	if (rb_is_red(node)) {
		RB_CHECK(!node->rb_left || rb_is_black(node->rb_left),
			 "red node with red left child");
		RB_CHECK(!node->rb_right || rb_is_black(node->rb_right),
			 "red node with red right child");
	}
	lh = check_subtree(node->rb_left, node, count);
	rh = check_subtree(node->rb_right, node, count);
	RB_CHECK(lh == rh, "black height differs: %d vs %d", lh, rh);
	(*count)++;
	return lh + rb_is_black(node);
}

static bool visited(const struct rb_node *node, unsigned int stamp)
{
	return !node || rb_entry(node, struct item, rb)->seen == stamp;
}

/* every node exactly once, each after both of its children */
static void check_postorder(struct model *m)
{
	struct rb_node *node;
	int n = 0;

	m->stamp++;
	for (node = rb_first_postorder(&m->root); node;
	     node = rb_next_postorder(node)) {
		RB_CHECK(!visited(node, m->stamp), "post-order node visited twice");
		RB_CHECK(visited(node->rb_left, m->stamp) &&
			 visited(node->rb_right, m->stamp),
			 "post-order reached a parent before its children");
		rb_entry(node, struct item, rb)->seen = m->stamp;
		n++;
	}
	RB_CHECK(n == m->nr, "post-order visited %d of %d nodes", n, m->nr);
}

static void check_tree(const struct model *m)
{
	const struct rb_node *node;
	int count = 0, i;

	if (m->root.rb_node)
		RB_CHECK(rb_is_black(m->root.rb_node), "red root");
	check_subtree(m->root.rb_node, NULL, &count);
	RB_CHECK(count == m->nr, "tree has %d nodes, model %d", count, m->nr);

	node = rb_first(&m->root);
	for (i = 0; i < m->nr; i++, node = rb_next(node)) {
		RB_CHECK(node == &m->sorted[i]->rb, "in-order node %d wrong", i);
		if (i)
			RB_CHECK(m->sorted[i - 1]->key <= m->sorted[i]->key,
				 "keys out of order at %d", i);
	}
	RB_CHECK(node == NULL, "in-order walk too long");

	node = rb_last(&m->root);
	for (i = m->nr - 1; i >= 0; i--, node = rb_prev(node))
		RB_CHECK(node == &m->sorted[i]->rb, "reverse node %d wrong", i);
	RB_CHECK(node == NULL, "reverse walk too long");
}

static void op_insert(struct model *m, int key_space)
{
	struct item *it = new_item(m, rnd_below(m, key_space));

	tree_insert(&m->root, it);
	model_insert_at(m, model_upper_bound(m, it->key), it);
}

static void op_erase(struct model *m)
{
	int idx = rnd_below(m, m->nr);
	struct item *it = m->sorted[idx];

	rb_erase(&it->rb, &m->root);
	model_remove_at(m, idx);
	free(it);
}

static void op_replace(struct model *m)
{
	int idx = rnd_below(m, m->nr);
	struct item *old = m->sorted[idx];
	struct item *it = new_item(m, old->key);

	rb_replace_node(&old->rb, &it->rb, &m->root);
	m->sorted[idx] = it;
	free(old);
}

/* a new node with the same key right after or before a random one */
static void op_insert_beside(struct model *m, bool after)
{
	int idx = rnd_below(m, m->nr);
	struct item *pos = m->sorted[idx];
	struct item *it = new_item(m, pos->key);

	if (after) {
		rb_insert_after(&pos->rb, &it->rb, &m->root);
		model_insert_at(m, idx + 1, it);
	} else {
		rb_insert_before(&pos->rb, &it->rb, &m->root);
		model_insert_at(m, idx, it);
	}
}

static void model_free(struct model *m)
{
	struct rb_node *node, *next;
	int n = 0;

	rb_for_each_postorder_safe(node, next, &m->root) {
		free(rb_entry(node, struct item, rb));
		n++;
	}
	ck_assert_int_eq(n, m->nr);
	m->root = RB_ROOT;
	free(m->sorted);
}

/*
 * @steps random operations; inserts dominate until @cap/2 nodes, then the
 * mix balances so the tree keeps growing and shrinking.
 */
static void run_random(uint64_t seed, int steps, int cap, int key_space)
{
	struct model m;
	int step;

	model_init(&m, seed, cap);
	for (step = 0; step < steps; step++) {
		unsigned int op = rnd_below(&m, 100);
		bool grow = m.nr < cap / 2;

		if (m.nr == 0 || (m.nr < cap - 1 && op < (grow ? 60U : 35U)))
			op_insert(&m, key_space);
		else if (op < 70)
			op_erase(&m);
		else if (op < 80)
			op_replace(&m);
		else if (m.nr < cap - 1)
			op_insert_beside(&m, op < 90);
		else
			op_erase(&m);
		check_tree(&m);
		if (step % 64 == 0)
			check_postorder(&m);
	}
	/* drain through erases, checking as the tree shrinks */
	while (m.nr) {
		op_erase(&m);
		check_tree(&m);
	}
	model_free(&m);
}

START_TEST(test_random_small_keys)
{
	/* few distinct keys: lots of duplicates */
	run_random(0x1234 + _i, 10000, 256, 16);
}
END_TEST

START_TEST(test_random_wide_keys)
{
	run_random(0xabcdef + 77 * _i, 10000, 512, 1 << 30);
}
END_TEST

static int tree_height(const struct rb_node *node)
{
	int l, r;

	if (!node)
		return 0;
	l = tree_height(node->rb_left);
	r = tree_height(node->rb_right);
	return 1 + (l > r ? l : r);
}

/* sorted input is the classic worst case for an unbalanced tree */
START_TEST(test_sequential_height)
{
	const int n = 100000;
	struct model m;
	int i, h, limit = 0;

	model_init(&m, 42, n + 1);
	for (i = 0; i < n; i++) {
		struct item *it = new_item(&m, _i ? n - i : i);

		tree_insert(&m.root, it);
		/* descending keys: the i-th inserted node ends up i-th from the end */
		m.sorted[_i ? n - 1 - i : i] = it;
	}
	m.nr = n;
	check_tree(&m);
	check_postorder(&m);
	for (i = n + 1; i > 1; i >>= 1)
		limit++;
	h = tree_height(m.root.rb_node);
	ck_assert_msg(h <= 2 * limit, "height %d for %d nodes", h, n);
	model_free(&m);
}
END_TEST

START_TEST(test_empty_and_single)
{
	struct rb_root root = RB_ROOT;
	struct item a = { .key = 1 }, b = { .key = 1 };

	ck_assert(RB_EMPTY_ROOT(&root));
	ck_assert_ptr_null(rb_first(&root));
	ck_assert_ptr_null(rb_last(&root));
	ck_assert_ptr_null(rb_first_postorder(&root));
	RB_CLEAR_NODE(&a.rb);
	ck_assert(RB_EMPTY_NODE(&a.rb));
	tree_insert(&root, &a);
	ck_assert(!RB_EMPTY_NODE(&a.rb));
	ck_assert(rb_is_black(&a.rb));
	ck_assert_ptr_eq(rb_first(&root), &a.rb);
	ck_assert_ptr_eq(rb_last(&root), &a.rb);
	ck_assert_ptr_null(rb_next(&a.rb));
	ck_assert_ptr_null(rb_prev(&a.rb));
	rb_replace_node(&a.rb, &b.rb, &root);
	ck_assert_ptr_eq(root.rb_node, &b.rb);
	ck_assert(rb_is_black(&b.rb));
	rb_erase(&b.rb, &root);
	ck_assert(RB_EMPTY_ROOT(&root));
}
END_TEST

Suite *rbtree_suite(void)
{
	Suite *s = suite_create("rbtree");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_empty_and_single);
	tcase_add_loop_test(tc, test_random_small_keys, 0, 3);
	tcase_add_loop_test(tc, test_random_wide_keys, 0, 3);
	tcase_add_loop_test(tc, test_sequential_height, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
