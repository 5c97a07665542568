/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee check: a table of phases run in order over one opened filesystem.
 * Each phase lives in its own file, reads the filesystem through the
 * engine, and reports every finding through check_problem() with a code
 * from the catalog (problems.def).  Nothing here writes to the devices.
 */
#ifndef GHEE_CHECK_H
#define GHEE_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include "kernel-shared/format.h"
#include "kernel-shared/disk-io.h"
#include "progress.h"
#include "shared.h"

enum problem_code {
#define PROBLEM(code, repairable, msg) PR_##code,
#include "problems.def"
#undef PROBLEM
	PR_COUNT
};

/*
 * What a finding is about.  Only the fields named by the code's template
 * are printed (and emitted in JSON); the rest may stay zero.
 */
struct problem_ctx {
	u64 root;
	u64 block;
	u64 inode;
	u64 bytenr;
	u64 len;
	u64 devid;
	u64 index;
	u64 expected;
	u64 found;
	int mirror;
	int slot;
	struct btrfs_key key;
	const char *name;
	const char *detail;
	/*
	 * A tree block the walk could not use (TREE_BLOCK_UNREADABLE,
	 * TREE_BLOCK_INVALID): the keys its tree may hold in it, from
	 * range_lo up to range_hi (excluded; none without has_range_hi).
	 * Its items are invisible to searches: the repair inserts nothing
	 * there.
	 */
	bool has_range;
	bool has_range_hi;
	struct btrfs_key range_lo;
	struct btrfs_key range_hi;
};

/*
 * Exit status bits of fsck(8), documented in ghee-check(8); bits combine
 * (a repair that fixed some errors and left others exits 1 | 4).
 */
enum check_exit {
	CHECK_EXIT_CLEAN	= 0,	/* no errors */
	CHECK_EXIT_CORRECTED	= 1,	/* errors were corrected */
	CHECK_EXIT_ERRORS	= 4,	/* errors left uncorrected */
	CHECK_EXIT_CANNOT	= 8,	/* operational error: could not check */
	CHECK_EXIT_USAGE	= 16,	/* usage or syntax error */
	CHECK_EXIT_CANCELLED	= 32,	/* cancelled by the user */
};

enum check_format {
	CHECK_FORMAT_TEXT,
	CHECK_FORMAT_JSON,
};

struct check_options {
	int super_mirror;		/* -s N; -1 for the primary */
	bool use_backup_roots;		/* -b */
	u64 tree_root;			/* -r */
	u64 chunk_root;			/* --chunk-root */
	bool check_data_csum;
	bool progress;
	bool quiet;
	bool noscan;		/* only the listed devices */
	bool force;		/* go on when mounted read-only */
	enum check_format format;
	/*
	 * Not an option: the repair's writes not yet on the device (its
	 * superblocks, or everything in a dry run); the check reads through.
	 */
	struct btrfs_overlay *overlay;
	/* --repair / -y, -p (preen), --dry-run, --undo ... (repair.h) */
	bool repair;
	bool preen;
	bool dry_run;
	bool assume_yes;	/* -y / --force: never ask */
	bool clear_log;
	int clear_space_cache;	/* 0, or 1 / 2 for v1 / v2 */
	bool init_csum_tree;	/* rebuilds: repair-rebuild.h */
	bool init_extent_tree;
	bool init_uuid_tree;
	const char *undo_file;
	const char *const *devices;
	int nr_devices;
};

struct check_phase;
struct check_shared;	/* results one phase leaves for later ones: shared.h */

struct check_ctx {
	struct btrfs_fs_info *fs_info;
	const struct check_options *opts;
	const struct check_phase *phase;	/* the phase running now */
	int phase_index;
	u64 problems_total;
	u64 warnings_total;	/* check_warning(): not errors */
	u64 problems_by_phase[16];
	u64 problems_by_code[PR_COUNT];
	struct check_progress progress;
	struct check_shared *shared;
	FILE *out;		/* findings and the summary */
	struct check_json *json;	/* non-NULL with --format json */
	/* every finding is also passed here when set (repair records them) */
	void (*on_problem)(void *data, const struct check_ctx *ctx,
			   enum problem_code code, const struct problem_ctx *pctx);
	void *on_problem_data;
	/* on_problem() is called for a warning (check_warning()) */
	bool reporting_warning;
};

struct check_phase {
	const char *name;	/* short id: "super", "chunks", ... */
	const char *title;	/* "checking superblocks and backup roots" */
	/* 0 when the phase could run (findings or not); <0 when it could not */
	int (*run)(struct check_ctx *ctx);
};

/* the phases, in order (phases.c) */
extern const struct check_phase check_phases[];
extern const int check_nr_phases;

/* phase entry points: one file each */
int check_phase_super(struct check_ctx *ctx);
int check_phase_chunks(struct check_ctx *ctx);
/* phase 2's checks of the chunk and device items where they are stored */
void check_chunk_items(struct check_ctx *ctx);
int check_phase_tree_blocks(struct check_ctx *ctx);
int check_phase_roots(struct check_ctx *ctx);
int check_phase_extents(struct check_ctx *ctx);
int check_phase_free_space(struct check_ctx *ctx);
int check_phase_fs_trees(struct check_ctx *ctx);
int check_phase_csums(struct check_ctx *ctx);
int check_phase_qgroups_log(struct check_ctx *ctx);

/* record one finding */
void check_problem(struct check_ctx *ctx, enum problem_code code,
		   const struct problem_ctx *pctx);
/* record a warning: printed like a finding, not counted as an error */
void check_warning(struct check_ctx *ctx, enum problem_code code,
		   const struct problem_ctx *pctx);
/*
 * Findings held back to be reported later, in their phase: phase 3 checks
 * the filesystem trees it can while it reads them, and phase 7 reports
 * what that found.  Strings are copied.
 */
struct problem_queue;
struct problem_queue *problem_queue_create(void);
/* 0, or -ENOMEM */
int problem_queue_add(struct problem_queue *q, enum problem_code code,
		      const struct problem_ctx *pctx);
size_t problem_queue_len(const struct problem_queue *q);
/* report every queued finding through check_problem(), in order */
void problem_queue_report(struct check_ctx *ctx, const struct problem_queue *q);
void problem_queue_destroy(struct problem_queue *q);

/* a note that is not a finding (e.g. "quota disabled, skipping") */
void check_info(struct check_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * One full check of the devices of @opts, findings and summary to @out
 * (JSON when @opts asks for it); each finding is also passed to
 * @on_problem when not NULL.  Returns the exit status (CHECK_EXIT_*).
 */
int check_run(const struct check_options *opts, FILE *out,
	      void (*on_problem)(void *data, const struct check_ctx *ctx,
				 enum problem_code code,
				 const struct problem_ctx *pctx),
	      void *on_problem_data);

/* ghee check --repair / --dry-run / -p / --clear-*: repair.c */
int check_repair(const struct check_options *opts);

/* catalog lookups */
const char *problem_code_name(enum problem_code code);
const char *problem_template(enum problem_code code);
bool problem_repairable(enum problem_code code);
/* expand a template into @buf */
void problem_format(enum problem_code code, const struct problem_ctx *pctx,
		    char *buf, size_t len);

/* "(objectid TYPE offset)" with the type's name, for messages */
void check_format_key(const struct btrfs_key *key, char *buf, size_t len);

#endif
