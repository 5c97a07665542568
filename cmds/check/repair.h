/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee check --repair: the findings of a check, the repair actions that
 * fix them, and what each action changed.
 *
 * One code path plans and repairs: an action reads what it is about to
 * change through the engine, describes every change (item inserted,
 * deleted or changed, old and new value) with repair_note(), and applies
 * it in the pass's transaction.  --dry-run runs the same actions, with
 * their transactions committed into an in-memory overlay (repair.c).
 */
#ifndef GHEE_CHECK_REPAIR_H
#define GHEE_CHECK_REPAIR_H

#include <stdbool.h>
#include "check.h"

struct btrfs_trans_handle;
struct btrfs_path;
struct btrfs_root;
struct repair_block_fixes;
struct repair_guard_reach;

enum repair_op {
	REPAIR_OP_CHANGE,	/* a field of an item or of the superblock */
	REPAIR_OP_INSERT,	/* an item */
	REPAIR_OP_DELETE,	/* an item */
	REPAIR_OP_REBUILD,	/* entries recomputed at commit */
};

struct repair_change {
	enum repair_op op;
	bool has_values;
	u64 old_value;
	u64 new_value;
	char what[200];		/* "root 5 (259 INODE_ITEM 0) nlink" */
};

enum repair_status {
	REPAIR_NO_ACTION,	/* no repair action for this code (yet) */
	REPAIR_PLANNED,		/* dry run: would be fixed */
	REPAIR_FIXED,		/* applied; the commit makes it final */
	REPAIR_FAILED,		/* the action could not be applied */
	REPAIR_NOT_PREEN,	/* -p: not a class preen fixes */
	REPAIR_NOT_WRITTEN,	/* it ran, but its pass was given up: nothing written */
};

/* one finding of a check, with the action taken for it */
struct repair_item {
	enum problem_code code;
	int phase;			/* index in check_phases */
	struct problem_ctx pctx;	/* name and detail are copies */
	char *message;
	enum repair_status status;
	int error;			/* REPAIR_FAILED: -errno */
	char *why;			/* REPAIR_FAILED: the reason, NULL: strerror(error) */
	struct repair_change *changes;
	size_t nr_changes;
	size_t alloc_changes;
};

struct repair_list {
	struct repair_item *v;
	size_t nr;
	size_t alloc;
};

struct repair_ctx {
	struct btrfs_fs_info *fs_info;
	/*
	 * The pass's transaction: every action runs in one.  NULL only while
	 * the dry run prints the plan lines of the global options
	 * (repair_global_options(), repair_rebuild_trees()).
	 */
	struct btrfs_trans_handle *trans;
	const struct check_options *opts;
	struct repair_item *cur;		/* the finding being fixed */
	struct repair_list *list;		/* the findings of this pass */
	/* repair-extents.c: its choice for this pass, made once */
	int extents_mode;
	bool extent_tree_rebuilt;
	FILE *out;				/* text report, NULL with JSON */
	/* blocks mended in memory when read (repair-tree-block.h) */
	struct repair_block_fixes *block_fixes;
	/* the log root the open for writing dropped (LOG_TREE_INVALID), or 0 */
	u64 dropped_log_root;
	/* repair_fail_pass(): the transaction must not be committed (-errno) */
	int pass_error;
	/* repair_why(): why the current action failed, "" when no reason given */
	char why[320];
	/* the findings whose action ran in this pass, in the order they ran */
	size_t *ran;
	size_t nr_ran;
	size_t alloc_ran;
	/* repair-guard.c: which trees reach which unreadable blocks */
	struct repair_guard_reach *reach;
	size_t nr_reach;
	size_t alloc_reach;
};

/*
 * An action returns 0 fixed, 1 nothing to change, <0 -errno,
 * or REPAIR_LATER: the finding depends on another fix of this pass and
 * is judged again by the check after its commit (nothing reported now).
 */
#define REPAIR_LATER	2

typedef int (*repair_fn)(struct repair_ctx *r, const struct problem_ctx *p);

/* the action for @code, NULL when it has none (repair-actions.c) */
repair_fn repair_action(enum problem_code code);
/*
 * Actions run in table order within a pass (structural fixes before the
 * counters that depend on them): the rank of @code, -1 without action.
 */
int repair_action_rank(enum problem_code code);
int repair_nr_actions(void);
/* -p may fix @code: counters, sizes, free space, orphan leftovers */
bool repair_preen_safe(enum problem_code code);

/*
 * --clear-log, --clear-space-cache: their changes (repair-actions.c);
 * without r->trans only their plan lines
 */
void repair_global_options(struct repair_ctx *r);

/*
 * An action that fails half way, with changes in the transaction that
 * must not be committed, marks the pass failed: no later action of the
 * pass runs, the pass gives the transaction up (once) and the repair
 * writes nothing.  The transaction belongs to the pass: an action never
 * ends it.
 */
void repair_fail_pass(struct repair_ctx *r, int error);
/*
 * @ret of a step after the action's first change: a failure gives the
 * pass up (half a fix is never committed); returns @ret
 */
int repair_fail_after_change(struct repair_ctx *r, int ret);

/*
 * Why the current action fails, said instead of the error's text ("could
 * not fix [CODE] message: why"); the first reason given stays.
 */
void repair_why(struct repair_ctx *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* describe one change of the current finding */
void repair_note(struct repair_ctx *r, enum repair_op op, bool has_values,
		 u64 old_value, u64 new_value, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * A tree by id: the fixed trees, or a subvolume read on first use and
 * tracked by the write state.  NULL if it cannot be read.
 */
struct btrfs_root *repair_get_root(struct repair_ctx *r, u64 objectid);

/*
 * Find @key in @root (@path is initialised here), the path copied on
 * write so the item can be changed in place.  0 found, 1 not found, <0
 * error.
 */
int repair_search(struct repair_ctx *r, struct btrfs_root *root,
		  const struct btrfs_key *key, struct btrfs_path *path);

/* "(257 INODE_ITEM 0)" */
void repair_key_str(const struct btrfs_key *key, char *buf, size_t len);

/* repair-extents.c: findings that need the extent tree rebuilt before any other write */
bool repair_extents_rebuild_first(const struct repair_list *found);
/* the extent tree rebuild fixes findings of @code (when nothing else keeps it from it) */
bool repair_extents_by_rebuild(enum problem_code code);
/*
 * The extent tree was rebuilt in r->trans before any action (as
 * --init-extent-tree): the actions of its findings name the rebuild as
 * their fix, and do not run it again.
 */
void repair_extents_rebuilt(struct repair_ctx *r);
/* then: the fix of a finding of repair_extents_by_rebuild(), naming the rebuild */
int repair_extents_rebuild_fix(struct repair_ctx *r, const struct problem_ctx *p);

/* main.c option checks for the repair options: true when invalid */
bool check_repair_options_invalid(const struct check_options *o, bool readonly);

#endif
