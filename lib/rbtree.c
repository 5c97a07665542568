// SPDX-License-Identifier: GPL-2.0
/*
 * Red-black tree rebalancing.
 *
 * Rules kept after every operation: the root is black, a red node has no
 * red child, and every path from a node down to a NULL leaf crosses the
 * same number of black nodes.  Together they bound the height by twice
 * the logarithm of the node count.
 *
 * Children are reached as rb_child[dir] so that each fix-up is written
 * once with a direction instead of twice as mirror images.
 */
#include "rbtree.h"

static inline void rb_set_parent(struct rb_node *node, struct rb_node *parent)
{
	node->rb_parent_color = (uintptr_t)parent | (node->rb_parent_color & RB_BLACK);
}

static inline void rb_set_black(struct rb_node *node)
{
	node->rb_parent_color |= RB_BLACK;
}

static inline void rb_set_red(struct rb_node *node)
{
	node->rb_parent_color &= ~RB_BLACK;
}

static inline void rb_copy_color(struct rb_node *dst, const struct rb_node *src)
{
	dst->rb_parent_color = (dst->rb_parent_color & ~RB_BLACK) |
			       (src->rb_parent_color & RB_BLACK);
}

/* a missing child counts as black */
static inline bool rb_red_node(const struct rb_node *node)
{
	return node && rb_is_red(node);
}

/* which child of @parent is @node: 0 left, 1 right */
static inline int rb_dir(const struct rb_node *parent, const struct rb_node *node)
{
	return parent->rb_right == node;
}

/* make whatever pointed at @old (its parent or the root) point at @new */
static inline void rb_change_child(struct rb_node *parent, struct rb_node *old,
				   struct rb_node *new, struct rb_root *root)
{
	if (parent)
		parent->rb_child[rb_dir(parent, old)] = new;
	else
		root->rb_node = new;
}

/*
 * Rotate @x down towards @dir: its child on the other side takes its
 * place and @x becomes that child's @dir child.  Colours are kept.
 */
static void rb_rotate(struct rb_node *x, int dir, struct rb_root *root)
{
	struct rb_node *y = x->rb_child[!dir];
	struct rb_node *parent = rb_parent(x);
	struct rb_node *inner = y->rb_child[dir];

	x->rb_child[!dir] = inner;
	if (inner)
		rb_set_parent(inner, x);
	y->rb_child[dir] = x;
	rb_set_parent(y, parent);
	rb_set_parent(x, y);
	rb_change_child(parent, x, y, root);
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent, *gparent, *uncle;
	int dir;

	/* the new node is red: only a red parent breaks a rule */
	while ((parent = rb_parent(node)) && rb_is_red(parent)) {
		/* a red parent is never the root, so the grandparent exists */
		gparent = rb_parent(parent);
		dir = rb_dir(gparent, parent);
		uncle = gparent->rb_child[!dir];

		if (rb_red_node(uncle)) {
			/* push the grandparent's blackness down, retry above */
			rb_set_black(parent);
			rb_set_black(uncle);
			rb_set_red(gparent);
			node = gparent;
			continue;
		}
		if (node == parent->rb_child[!dir]) {
			/* inner grandchild: make it the outer one first */
			rb_rotate(parent, dir, root);
			node = parent;
			parent = rb_parent(node);
		}
		rb_set_black(parent);
		rb_set_red(gparent);
		rb_rotate(gparent, !dir, root);
		break;
	}
	rb_set_black(root->rb_node);
}

/*
 * One black node is missing on every path through the (possibly NULL)
 * @node, a child of @parent.  Borrow from the sibling subtree or move the
 * deficit upwards until it can be absorbed.
 */
static void rb_erase_fixup(struct rb_node *node, struct rb_node *parent,
			   struct rb_root *root)
{
	struct rb_node *sib;
	int dir;

	while (node != root->rb_node && !rb_red_node(node)) {
		/*
		 * The sibling cannot be NULL: its side has at least one black
		 * node more than ours.  So a NULL @node is the NULL child.
		 */
		dir = rb_dir(parent, node);
		sib = parent->rb_child[!dir];
		if (rb_is_red(sib)) {
			/* get a black sibling; the parent turns red */
			rb_set_black(sib);
			rb_set_red(parent);
			rb_rotate(parent, dir, root);
			sib = parent->rb_child[!dir];
		}
		if (!rb_red_node(sib->rb_left) && !rb_red_node(sib->rb_right)) {
			/* both sides now short by one: move the deficit up */
			rb_set_red(sib);
			node = parent;
			parent = rb_parent(node);
			continue;
		}
		if (!rb_red_node(sib->rb_child[!dir])) {
			/* only the near nephew is red: turn it outwards */
			rb_set_black(sib->rb_child[dir]);
			rb_set_red(sib);
			rb_rotate(sib, !dir, root);
			sib = parent->rb_child[!dir];
		}
		/* far nephew red: one rotation gives our side its black node */
		rb_copy_color(sib, parent);
		rb_set_black(parent);
		rb_set_black(sib->rb_child[!dir]);
		rb_rotate(parent, dir, root);
		node = root->rb_node;
		break;
	}
	if (node)
		rb_set_black(node);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *child, *parent, *succ;
	bool removed_black;

	if (!node->rb_left || !node->rb_right) {
		/* at most one child: splice the node out */
		child = node->rb_left ? node->rb_left : node->rb_right;
		parent = rb_parent(node);
		removed_black = rb_is_black(node);
		rb_change_child(parent, node, child, root);
		if (child)
			rb_set_parent(child, parent);
	} else {
		/*
		 * Two children: the in-order successor (no left child) takes
		 * over the node's position and colour, so the hole moves to
		 * the successor's old place.
		 */
		succ = node->rb_right;
		while (succ->rb_left)
			succ = succ->rb_left;
		child = succ->rb_right;
		removed_black = rb_is_black(succ);
		if (succ == node->rb_right) {
			parent = succ;
		} else {
			parent = rb_parent(succ);
			parent->rb_left = child;
			if (child)
				rb_set_parent(child, parent);
			succ->rb_right = node->rb_right;
			rb_set_parent(node->rb_right, succ);
		}
		succ->rb_left = node->rb_left;
		rb_set_parent(node->rb_left, succ);
		succ->rb_parent_color = node->rb_parent_color;
		rb_change_child(rb_parent(node), node, succ, root);
	}
	if (removed_black)
		rb_erase_fixup(child, parent, root);
}

void rb_replace_node(struct rb_node *victim, struct rb_node *new,
		     struct rb_root *root)
{
	struct rb_node *parent = rb_parent(victim);

	*new = *victim;
	if (victim->rb_left)
		rb_set_parent(victim->rb_left, new);
	if (victim->rb_right)
		rb_set_parent(victim->rb_right, new);
	rb_change_child(parent, victim, new, root);
}

/* link @node as the in-order neighbour of @pos on side @dir */
static void rb_insert_beside(struct rb_node *pos, struct rb_node *node,
			     int dir, struct rb_root *root)
{
	struct rb_node *parent = pos;

	/* the neighbour slot is either pos's empty @dir child or ... */
	if (pos->rb_child[dir]) {
		/* ... the far end, towards pos, of pos's @dir subtree */
		parent = pos->rb_child[dir];
		while (parent->rb_child[!dir])
			parent = parent->rb_child[!dir];
		dir = !dir;
	}
	rb_link_node(node, parent, &parent->rb_child[dir]);
	rb_insert_color(node, root);
}

void rb_insert_after(struct rb_node *pos, struct rb_node *node,
		     struct rb_root *root)
{
	rb_insert_beside(pos, node, 1, root);
}

void rb_insert_before(struct rb_node *pos, struct rb_node *node,
		      struct rb_root *root)
{
	rb_insert_beside(pos, node, 0, root);
}

/* the far end of the subtree at @node on side @dir */
static struct rb_node *rb_extreme(struct rb_node *node, int dir)
{
	if (!node)
		return NULL;
	while (node->rb_child[dir])
		node = node->rb_child[dir];
	return node;
}

struct rb_node *rb_first(const struct rb_root *root)
{
	return rb_extreme(root->rb_node, 0);
}

struct rb_node *rb_last(const struct rb_root *root)
{
	return rb_extreme(root->rb_node, 1);
}

/* in-order neighbour of @node on side @dir */
static struct rb_node *rb_step(const struct rb_node *node, int dir)
{
	struct rb_node *parent;

	if (node->rb_child[dir])
		return rb_extreme(node->rb_child[dir], !dir);
	/* climb while we come from the @dir side */
	while ((parent = rb_parent(node)) && node == parent->rb_child[dir])
		node = parent;
	return parent;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	return rb_step(node, 1);
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	return rb_step(node, 0);
}

/* the first node in post-order of the subtree at @node: its deepest-left leaf */
static struct rb_node *rb_deepest_left(struct rb_node *node)
{
	for (;;) {
		if (node->rb_left)
			node = node->rb_left;
		else if (node->rb_right)
			node = node->rb_right;
		else
			return node;
	}
}

struct rb_node *rb_first_postorder(const struct rb_root *root)
{
	if (!root->rb_node)
		return NULL;
	return rb_deepest_left(root->rb_node);
}

struct rb_node *rb_next_postorder(const struct rb_node *node)
{
	struct rb_node *parent = rb_parent(node);

	if (parent && node == parent->rb_left && parent->rb_right)
		return rb_deepest_left(parent->rb_right);
	return parent;
}
