/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intrusive red-black tree.
 *
 * A struct rb_node is embedded in the user's structure; the tree never
 * allocates and never compares keys.  The caller descends the tree itself
 * (it knows its own ordering), links the new node where the descent ended
 * with rb_link_node() and then calls rb_insert_color() to rebalance:
 *
 *	struct rb_node **link = &root->rb_node, *parent = NULL;
 *
 *	while (*link) {
 *		parent = *link;
 *		if (key < rb_entry(parent, struct thing, rb)->key)
 *			link = &parent->rb_left;
 *		else
 *			link = &parent->rb_right;
 *	}
 *	rb_link_node(&new->rb, parent, link);
 *	rb_insert_color(&new->rb, root);
 *
 * The parent pointer and the colour share one word: nodes are at least
 * pointer aligned, so bit 0 of the parent address is free for the colour.
 */
#ifndef GHEE_RBTREE_H
#define GHEE_RBTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "list.h"	/* container_of */

struct rb_node {
	uintptr_t rb_parent_color;	/* parent address | colour bit */
	union {
		struct {
			struct rb_node *rb_left;
			struct rb_node *rb_right;
		};
		/* [0] is left, [1] right: lets one code path serve both sides */
		struct rb_node *rb_child[2];
	};
} __attribute__((aligned(sizeof(void *))));

struct rb_root {
	struct rb_node *rb_node;
};

#define RB_ROOT ((struct rb_root){ NULL })
#define RB_RED		0UL
#define RB_BLACK	1UL

#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member) \
	({ struct rb_node *__n = (ptr); __n ? rb_entry(__n, type, member) : NULL; })

static inline struct rb_node *rb_parent(const struct rb_node *node)
{
	return (struct rb_node *)(node->rb_parent_color & ~RB_BLACK);
}

static inline bool rb_is_black(const struct rb_node *node)
{
	return node->rb_parent_color & RB_BLACK;
}

static inline bool rb_is_red(const struct rb_node *node)
{
	return !rb_is_black(node);
}

static inline bool RB_EMPTY_ROOT(const struct rb_root *root)
{
	return root->rb_node == NULL;
}

/*
 * A node that is in no tree points to itself as its parent: this lets
 * code that may or may not have linked a node ask which is the case.
 */
static inline void RB_CLEAR_NODE(struct rb_node *node)
{
	node->rb_parent_color = (uintptr_t)node;
}

static inline bool RB_EMPTY_NODE(const struct rb_node *node)
{
	return node->rb_parent_color == (uintptr_t)node;
}

/* put @node (red, no children) at *@link, a child slot of @parent */
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **link)
{
	node->rb_parent_color = (uintptr_t)parent;
	node->rb_left = NULL;
	node->rb_right = NULL;
	*link = node;
}

/* rebalance after rb_link_node() */
void rb_insert_color(struct rb_node *node, struct rb_root *root);
/* unlink @node and rebalance; @node's own fields are left stale */
void rb_erase(struct rb_node *node, struct rb_root *root);
/* put @new exactly where @victim is (same order assumed), no rebalancing */
void rb_replace_node(struct rb_node *victim, struct rb_node *new,
		     struct rb_root *root);

/*
 * Link @node as the in-order neighbour right after (or before) @pos,
 * without comparing keys: for callers that know where the node belongs,
 * such as when a range is split in two.  Rebalances.
 */
void rb_insert_after(struct rb_node *pos, struct rb_node *node,
		     struct rb_root *root);
void rb_insert_before(struct rb_node *pos, struct rb_node *node,
		      struct rb_root *root);

/* in-order walk; NULL at either end */
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

/*
 * Post-order walk: children before their parent, so each node may be
 * freed as soon as it is returned (the tree is then garbage: reset the
 * root afterwards).  Used to tear a whole tree down in O(n).
 */
struct rb_node *rb_first_postorder(const struct rb_root *root);
struct rb_node *rb_next_postorder(const struct rb_node *node);

#define rb_for_each_postorder_safe(pos, n, root)				\
	for (pos = rb_first_postorder(root),					\
	     n = pos ? rb_next_postorder(pos) : NULL;				\
	     pos; pos = n, n = pos ? rb_next_postorder(pos) : NULL)

#endif
