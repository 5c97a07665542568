// SPDX-License-Identifier: GPL-2.0
/*
 * ghee check --repair, -y, -p, --dry-run: check, then fix.
 *
 * The first check records every finding.  The repair then opens the
 * filesystem for writing once, and, phase by phase in check order, runs
 * the action of each finding of the earliest phase that has one in one
 * transaction, commits it, and checks the whole filesystem again: later
 * phases are judged on what the earlier fixes left, and a fix that did
 * not hold is seen at once.  The last check is a full one and decides the
 * exit status; success is never reported while a finding remains.
 *
 * The repair is atomic.  The write state keeps every freed block pinned
 * until it is closed, so no block the filesystem used when the repair
 * began is overwritten, and the commits between phases write their tree
 * blocks but keep their superblocks in a device overlay (dev-overlay.h),
 * which the checks between the phases read through: they judge the new
 * state while the device still holds the old one.  Only when the loop is
 * done are the last superblocks written (mirrors, then the primaries): an
 * interruption at any point leaves the old filesystem or the repaired one.
 *
 * --dry-run runs exactly the same passes and commits with every device
 * write held in the overlay (the devices are opened read-only): what it
 * prints is what the repair would change, phase after phase.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "repair.h"
#include "repair-rebuild.h"
#include "repair-tree-block.h"
#include "repair-guard.h"
#include "repair-lost-found.h"
#include "repair-open.h"
#include "array.h"
#include "json-writer.h"
#include "cmds/mount-probe.h"
#include "cmds/undo.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/write-io.h"
#include "kernel-shared/dev-overlay.h"

/* a repair that needs more passes than this does not converge */
#define REPAIR_MAX_PASSES	12

bool check_repair_options_invalid(const struct check_options *o, bool readonly)
{
	bool writes = o->repair || o->preen || o->clear_log || o->clear_space_cache ||
		      repair_rebuild_requested(o);

	if (repair_rebuild_options_invalid(o))
		return true;

	if (readonly && writes) {
		fprintf(stderr, "ghee check: --readonly cannot be combined with a repair option\n");
		return true;
	}
	if ((o->dry_run || o->undo_file) && !writes) {
		fprintf(stderr, "ghee check: %s needs --repair, -y, -p or a --clear option\n",
			o->dry_run ? "--dry-run" : "--undo");
		return true;
	}
	if (o->dry_run && o->undo_file) {
		fprintf(stderr, "ghee check: --dry-run writes nothing, --undo has nothing to save\n");
		return true;
	}
	if (writes && check_source_given(o) && !o->repair) {
		fprintf(stderr, "ghee check: -s, -b, -r and --chunk-root need --repair (the repair makes the chosen state the current one)\n");
		return true;
	}
	if (writes && o->check_data_csum) {
		fprintf(stderr, "ghee check: --check-data-csum is read-only; run it without repair options\n");
		return true;
	}
	return false;
}

/* ---- findings ---- */

static void repair_list_release(struct repair_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free((char *)l->v[i].pctx.name);
		free((char *)l->v[i].pctx.detail);
		free(l->v[i].message);
		free(l->v[i].why);
		free(l->v[i].changes);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct record_state {
	struct repair_list *list;
	int error;
};

static void record_finding(void *data, const struct check_ctx *ctx,
			   enum problem_code code, const struct problem_ctx *pctx)
{
	struct record_state *rs = data;
	struct repair_list *l = rs->list;
	struct repair_item *it;
	char msg[1024];

	/* a warning is only a finding of the repair when it can be fixed */
	if (ctx->reporting_warning && !repair_action(code))
		return;
	if (ARRAY_RESERVE(l->v, l->alloc, l->nr + 1, 16)) {
		rs->error = -ENOMEM;
		return;
	}
	it = &l->v[l->nr];
	memset(it, 0, sizeof(*it));
	it->code = code;
	it->phase = ctx->phase_index;
	it->pctx = *pctx;
	it->pctx.name = pctx->name ? strdup(pctx->name) : NULL;
	it->pctx.detail = pctx->detail ? strdup(pctx->detail) : NULL;
	problem_format(code, pctx, msg, sizeof(msg));
	it->message = strdup(msg);
	if ((pctx->name && !it->pctx.name) || (pctx->detail && !it->pctx.detail) ||
	    !it->message) {
		free((char *)it->pctx.name);
		free((char *)it->pctx.detail);
		free(it->message);
		rs->error = -ENOMEM;
		return;
	}
	l->nr++;
}

/*
 * One check of the filesystem; findings into @list.  @loud: the normal
 * output on stdout (the first check in text format), else nothing.
 */
static int run_check(const struct check_options *opts, bool loud,
		     struct repair_list *list)
{
	struct check_options o = *opts;
	struct record_state rs = { list, 0 };
	FILE *out = stdout;
	int code;

	repair_list_release(list);
	o.format = CHECK_FORMAT_TEXT;
	if (!loud) {
		o.quiet = true;
		o.progress = false;
		out = fopen("/dev/null", "w");
		if (!out)
			return CHECK_EXIT_CANNOT;
	}
	code = check_run(&o, out, record_finding, &rs);
	if (out != stdout)
		fclose(out);
	else
		fflush(stdout);
	if (rs.error)
		return CHECK_EXIT_CANNOT;
	return code;
}

/* ---- helpers for the actions ---- */

void repair_note(struct repair_ctx *r, enum repair_op op, bool has_values,
		 u64 old_value, u64 new_value, const char *fmt, ...)
{
	struct repair_item *it = r->cur;
	struct repair_change *c;
	va_list ap;

	if (!it || ARRAY_RESERVE(it->changes, it->alloc_changes,
				 it->nr_changes + 1, 4))
		return;
	c = &it->changes[it->nr_changes++];
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->has_values = has_values;
	c->old_value = old_value;
	c->new_value = new_value;
	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
}

void repair_fail_pass(struct repair_ctx *r, int error)
{
	if (!r->pass_error)
		r->pass_error = error < 0 ? error : -EIO;
	/* the engine refuses any further change in it */
	r->trans->aborted = true;
}

int repair_fail_after_change(struct repair_ctx *r, int ret)
{
	if (ret < 0)
		repair_fail_pass(r, ret);
	return ret;
}

void repair_why(struct repair_ctx *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

void repair_key_str(const struct btrfs_key *key, char *buf, size_t len)
{
	check_format_key(key, buf, len);
}

static struct btrfs_root *fixed_root(struct btrfs_fs_info *fs, u64 objectid)
{
	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID:
		return &fs->tree_root;
	case BTRFS_EXTENT_TREE_OBJECTID:
		return &fs->extent_root;
	case BTRFS_CHUNK_TREE_OBJECTID:
		return &fs->chunk_root;
	case BTRFS_DEV_TREE_OBJECTID:
		return &fs->dev_root;
	case BTRFS_FS_TREE_OBJECTID:
		return &fs->fs_root;
	case BTRFS_CSUM_TREE_OBJECTID:
		return &fs->csum_root;
	case BTRFS_UUID_TREE_OBJECTID:
		return &fs->uuid_root;
	case BTRFS_QUOTA_TREE_OBJECTID:
		return &fs->quota_root;
	case BTRFS_FREE_SPACE_TREE_OBJECTID:
		return &fs->free_space_root;
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
		return &fs->block_group_root;
	}
	return NULL;
}

struct btrfs_root *repair_get_root(struct repair_ctx *r, u64 objectid)
{
	struct btrfs_root *root = btrfs_get_root(r->fs_info, objectid);

	if (!root)
		root = fixed_root(r->fs_info, objectid);
	if (root)
		return root->node ? root : NULL;
	root = calloc(1, sizeof(*root));
	if (!root)
		return NULL;
	/* the write state owns it from now on */
	if (btrfs_read_root(r->fs_info, objectid, root) || !root->node ||
	    btrfs_track_root(r->fs_info, root)) {
		btrfs_release_root(root);
		free(root);
		return NULL;
	}
	return root;
}

int repair_search(struct repair_ctx *r, struct btrfs_root *root,
		  const struct btrfs_key *key, struct btrfs_path *path)
{
	btrfs_init_path(path);
	return btrfs_search_slot(r->trans, root, key, path, 0, 1);
}

/* ---- the repair session ---- */

struct repair_session {
	const struct check_options *opts;
	struct repair_list found;	/* the first check's findings */
	struct repair_list now;		/* the latest check's findings */
	struct repair_list done;	/* every finding an action ran for */
	u64 fixed_by_code[PR_COUNT];
	u64 failed_by_code[PR_COUNT];
	int passes;
	bool wrote;
	bool write_failed;
	bool gave_up;		/* failed: nothing it did is published */
	int not_published;	/* fixes of committed passes left unwritten */
	bool rebuilt;			/* a --init-* rebuild was committed */
	bool dry_run;			/* every write held in the overlay */
	struct btrfs_overlay *overlay;	/* writes not on the devices (yet) */
	struct btrfs_fs_info *fs_info;	/* writable, while repairing */
	struct undo_writer *undo;
	FILE *out;			/* text report; NULL with JSON */
	/*
	 * The first check found the log tree invalid: the open for writing
	 * drops it (nothing of the log may stay pointed to once the first
	 * commit can reuse its blocks), and the first pass reports it.
	 */
	bool drop_log;
	u64 dropped_log_root;
	struct repair_block_fixes block_fixes;
	/* -s, -b, -r, --chunk-root: the state the repair makes current */
	struct repair_source source;
	struct check_options plain_opts;	/* the options without them */
};

static const char *status_name(enum repair_status s)
{
	switch (s) {
	case REPAIR_NO_ACTION:
		return "no-action";
	case REPAIR_PLANNED:
		return "planned";
	case REPAIR_FIXED:
		return "fixed";
	case REPAIR_FAILED:
		return "failed";
	case REPAIR_NOT_PREEN:
		return "needs-full-repair";
	case REPAIR_NOT_WRITTEN:
		return "not-written";
	}
	return "?";
}

static const char *op_name(enum repair_op op)
{
	switch (op) {
	case REPAIR_OP_CHANGE:
		return "change";
	case REPAIR_OP_INSERT:
		return "insert";
	case REPAIR_OP_DELETE:
		return "delete";
	case REPAIR_OP_REBUILD:
		return "rebuild";
	}
	return "?";
}

/* why a failed action failed, or why what it did was not written */
static const char *failure_text(const struct repair_item *it)
{
	return it->why ? it->why : strerror(-it->error);
}

/* the text line of one change: the same for the plan and the repair */
static void print_change(FILE *out, const struct repair_change *c)
{
	if (c->has_values)
		fprintf(out, "    %s %s: %llu -> %llu\n", op_name(c->op), c->what,
			(unsigned long long)c->old_value,
			(unsigned long long)c->new_value);
	else
		fprintf(out, "    %s %s\n", op_name(c->op), c->what);
}

static void print_item(FILE *out, const struct repair_item *it)
{
	size_t i;

	switch (it->status) {
	case REPAIR_PLANNED:
		fprintf(out, "  would fix [%s] %s\n", problem_code_name(it->code),
			it->message);
		break;
	case REPAIR_FIXED:
		fprintf(out, "  fixed [%s] %s\n", problem_code_name(it->code),
			it->message);
		break;
	case REPAIR_FAILED:
		fprintf(out, "  could not fix [%s] %s: %s\n",
			problem_code_name(it->code), it->message, failure_text(it));
		break;
	case REPAIR_NOT_WRITTEN:
		fprintf(out, "  not written [%s] %s: %s\n",
			problem_code_name(it->code), it->message, failure_text(it));
		break;
	default:
		return;
	}
	for (i = 0; i < it->nr_changes; i++)
		print_change(out, &it->changes[i]);
}

/* append a copy of @it (strings and changes too) to @to */
static int keep_item(struct repair_list *to, const struct repair_item *it)
{
	struct repair_item *c;

	if (ARRAY_RESERVE(to->v, to->alloc, to->nr + 1, 16))
		return -ENOMEM;
	c = &to->v[to->nr];
	*c = *it;
	c->pctx.name = it->pctx.name ? strdup(it->pctx.name) : NULL;
	c->pctx.detail = it->pctx.detail ? strdup(it->pctx.detail) : NULL;
	c->message = strdup(it->message);
	c->why = it->why ? strdup(it->why) : NULL;
	c->changes = NULL;
	c->alloc_changes = 0;
	if (it->nr_changes) {
		c->changes = malloc(it->nr_changes * sizeof(*c->changes));
		if (c->changes)
			memcpy(c->changes, it->changes, it->nr_changes * sizeof(*c->changes));
		c->alloc_changes = it->nr_changes;
	}
	if ((it->pctx.name && !c->pctx.name) || (it->pctx.detail && !c->pctx.detail) ||
	    !c->message || (it->why && !c->why) || (it->nr_changes && !c->changes)) {
		free((char *)c->pctx.name);
		free((char *)c->pctx.detail);
		free(c->message);
		free(c->why);
		free(c->changes);
		return -ENOMEM;
	}
	to->nr++;
	return 0;
}

/* the line of an action that found its item right ("change nothing: ...") */
static bool is_nothing(const struct repair_change *c)
{
	return c->op == REPAIR_OP_CHANGE && !c->has_values && !strncmp(c->what, "nothing", 7);
}

/* did the action note a change (not only "nothing: ...")? */
static bool noted_change(const struct repair_item *it)
{
	size_t i;

	for (i = 0; i < it->nr_changes; i++) {
		if (!is_nothing(&it->changes[i]))
			return true;
	}
	return false;
}

/* what @it did is not on disk, for @why */
static void mark_not_written(struct repair_item *it, const char *why)
{
	it->status = REPAIR_NOT_WRITTEN;
	free(it->why);
	it->why = strdup(why);
	it->error = -ECANCELED;
}

/*
 * Run the action of every finding of @l in @phase (every phase when -1)
 * whose code @want accepts (every code when NULL) in r->trans, @fn_all
 * instead of each one's action when given, noting each in r->ran.  What
 * they did is reported by report_pass() once the pass is committed or
 * given up.  Returns how many ran.
 */
static int run_actions(struct repair_session *s, struct repair_ctx *r,
		       struct repair_list *l, int phase, bool (*want)(enum problem_code),
		       repair_fn fn_all)
{
	int ran = 0, rank;
	size_t i;

	r->list = l;
	for (rank = 0; rank < repair_nr_actions(); rank++) {
		for (i = 0; i < l->nr; i++) {
			struct repair_item *it = &l->v[i];
			repair_fn fn = repair_action(it->code);
			int ret;

			if (repair_action_rank(it->code) != rank)
				continue;
			if (phase >= 0 && it->phase != phase)
				continue;
			if (want && !want(it->code))
				continue;
			if (!fn || !problem_repairable(it->code))
				continue;
			/* the pass is given up: what is left is judged by the next check */
			if (r->pass_error)
				return ran;
			if (ARRAY_RESERVE(r->ran, r->alloc_ran, r->nr_ran + 1, 16)) {
				repair_fail_pass(r, -ENOMEM);
				return ran;
			}
			r->cur = it;
			r->why[0] = 0;
			ret = (fn_all ? fn_all : fn)(r, &it->pctx);
			ran++;
			if (ret == REPAIR_LATER) {
				/* the re-check after this pass's commit judges it */
				it->nr_changes = 0;
				r->cur = NULL;
				continue;
			}
			if (ret > 0) {
				/* the item is right already, after earlier fixes */
				repair_note(r, REPAIR_OP_CHANGE, false, 0, 0,
					    "nothing: right after the fixes before it");
				ret = 0;
			}
			if (ret) {
				it->status = REPAIR_FAILED;
				it->error = ret < 0 ? ret : -EIO;
				free(it->why);
				it->why = r->why[0] ? strdup(r->why) : NULL;
			} else {
				it->status = s->dry_run ? REPAIR_PLANNED : REPAIR_FIXED;
			}
			r->ran[r->nr_ran++] = i;
			r->cur = NULL;
		}
	}
	return ran;
}

/*
 * The findings whose action ran in this pass, once its fate is known:
 * counted and printed, in the order they ran.  @not_written: the pass was
 * given up or its commit failed (why), so what the actions did is not
 * written and none of them may say "fixed".
 */
static void report_pass(struct repair_session *s, struct repair_ctx *r,
			const char *not_written)
{
	size_t i;

	for (i = 0; i < r->nr_ran; i++) {
		struct repair_item *it = &r->list->v[r->ran[i]];

		if (not_written && (it->status == REPAIR_FIXED || it->status == REPAIR_PLANNED))
			mark_not_written(it, not_written);
		if (it->status == REPAIR_FIXED)
			s->fixed_by_code[it->code]++;
		else if (it->status == REPAIR_FAILED)
			s->failed_by_code[it->code]++;
		if (s->out)
			print_item(s->out, it);
	}
	free(r->ran);
	r->ran = NULL;
	r->nr_ran = r->alloc_ran = 0;
}

static bool is_log_tree_invalid(enum problem_code code)
{
	return code == PR_LOG_TREE_INVALID;
}

/* the earliest phase with a finding that has an action, -1 if none */
static int next_phase(const struct repair_list *l, const bool *given_up)
{
	int best = -1;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		const struct repair_item *it = &l->v[i];

		if (!repair_action(it->code) || !problem_repairable(it->code))
			continue;
		if (it->phase < 0 || it->phase >= check_nr_phases || given_up[it->phase])
			continue;
		if (best < 0 || it->phase < best)
			best = it->phase;
	}
	return best;
}

/* -p: true when every finding of @l is of a class preen fixes */
static bool preen_covers(struct repair_list *l)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (repair_preen_safe(l->v[i].code) && repair_action(l->v[i].code))
			continue;
		l->v[i].status = REPAIR_NOT_PREEN;
		ok = false;
	}
	return ok;
}

/* engine messages while writing: errors and warnings to stderr */
static void repair_engine_report(void *data, enum btrfs_report_level level,
				 const char *msg)
{
	(void)data;
	if (level == BTRFS_REPORT_INFO)
		return;
	fprintf(stderr, "%s: %s\n", level == BTRFS_REPORT_ERROR ? "ERROR" : "WARNING",
		msg);
}

static bool found_code(const struct repair_list *l, enum problem_code code)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (l->v[i].code == code)
			return true;
	}
	return false;
}

static int open_writable(struct repair_session *s)
{
	const struct check_options *o = s->opts;
	struct open_ctree_args args = {
		.paths = o->devices,
		.nr_paths = o->nr_devices,
		.flags = OPEN_CTREE_WRITES | repair_rebuild_open_flags(o),
		.cache_budget = repair_rebuild_cache_budget(o),
		.reporter = { repair_engine_report, NULL },
		.block_fixer = { repair_block_fixer, &s->block_fixes },
		.overlay = s->overlay,
	};
	struct btrfs_fs_info *fs;
	char msg[128] = "";
	int i, slot, err = 0;

	/* a dry run writes nothing: a mounted filesystem may be planned for */
	for (i = 0; !s->dry_run && i < o->nr_devices; i++) {
		if (device_refuse_in_use(o->devices[i]))
			return -EBUSY;
	}
	fs = check_source_open(o, &args, &slot, &err, msg, sizeof(msg));
	if (!fs) {
		fprintf(stderr, "ERROR: cannot open for writing: %s\n",
			msg[0] ? msg : strerror(-err));
		return err;
	}
	err = repair_source_apply(fs, o, &s->source);
	if (!err)
		err = repair_rebuild_check_open(fs, o);
	if (err) {
		close_ctree(fs);
		return err;
	}
	/* a log the check found invalid cannot be replayed: the repair drops it */
	s->drop_log = o->repair && btrfs_super_log_root(&fs->super_copy) &&
		      found_code(&s->found, PR_LOG_TREE_INVALID);
	if (!o->clear_log && !s->drop_log && btrfs_super_log_root(&fs->super_copy)) {
		fprintf(stderr, "ERROR: the filesystem has a log tree (fsync'ed changes not yet replayed): mount it once to replay them, or add --clear-log to drop them\n");
		close_ctree(fs);
		return -EUCLEAN;
	}
	if ((o->clear_log || s->drop_log) && btrfs_super_log_root(&fs->super_copy)) {
		/*
		 * The next commit writes the superblock without the log: its
		 * blocks are free space to the allocator from now on.
		 */
		s->dropped_log_root = btrfs_super_log_root(&fs->super_copy);
		btrfs_set_super_log_root(&fs->super_copy, 0);
		btrfs_set_super_log_root_level(&fs->super_copy, 0);
	}
	fs->write_metadump = true;
	fs->repairing_block_group_items = o->repair &&
		found_code(&s->found, PR_CHUNK_NO_BLOCK_GROUP);
	err = btrfs_enable_writes(fs);
	if (err) {
		fprintf(stderr, "ERROR: cannot repair this filesystem: %s\n",
			strerror(-err));
		close_ctree(fs);
		return err;
	}
	fs->write->keep_pinned = true;
	/* the superblocks wait for the end of the repair (a dry run: all) */
	fs->write->defer_supers = !s->dry_run;
	err = repair_source_protect(fs, o, &s->source);
	if (err) {
		fprintf(stderr, "ERROR: cannot keep the abandoned generations' blocks: %s\n",
			strerror(-err));
		close_ctree(fs);
		return err;
	}
	if (o->clear_log || s->drop_log || s->source.differs)
		fs->write->super_dirty = true;
	if (o->undo_file) {
		err = undo_writer_open(&s->undo, o->undo_file, fs);
		if (err) {
			fprintf(stderr, "ERROR: cannot create undo file %s: %s\n",
				o->undo_file, strerror(-err));
			close_ctree(fs);
			return err;
		}
	}
	s->fs_info = fs;
	return 0;
}

/* did an action of @phase change something (not only fail or find it done)? */
static bool pass_changed(const struct repair_list *l, int phase)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		const struct repair_item *it = &l->v[i];

		if (it->phase == phase &&
		    (it->status == REPAIR_FIXED || it->status == REPAIR_PLANNED) &&
		    noted_change(it))
			return true;
	}
	return false;
}

/*
 * Dry run: the lines the global options print, in their plan wording (the
 * options then run for real, silently, into the overlay).  The only run
 * without a transaction: nothing but these lines comes of it.
 */
static void plan_global_options(struct repair_session *s)
{
	struct btrfs_super_block *sb = &s->fs_info->super_copy;
	struct repair_ctx plan = { .fs_info = s->fs_info, .opts = s->opts,
				   .out = s->out };
	u64 log_root = btrfs_super_log_root(sb);

	if (!s->out)
		return;
	/* open_writable() took the dropped log out of the superblock */
	btrfs_set_super_log_root(sb, s->dropped_log_root);
	repair_global_options(&plan);
	btrfs_set_super_log_root(sb, log_root);
	if (repair_rebuild_requested(s->opts))
		repair_rebuild_trees(&plan);
}

/*
 * An action failed half way: the transaction is given up, here and only
 * here, and with it the repair (nothing is published).
 */
static int abandon_pass(struct repair_session *s, struct repair_ctx *r, u64 transid)
{
	int err = r->pass_error;

	btrfs_abort_transaction(r->trans, err);
	r->trans = NULL;
	s->write_failed = true;
	fprintf(stderr, "ERROR: transaction %llu abandoned: a fix failed half way (%s); nothing is written\n",
		(unsigned long long)transid, strerror(-err));
	return err;
}

/*
 * Apply the actions of @phase (-1: the global rebuild options only) and
 * commit; 1 when nothing needed writing (nothing committed).
 */
static int repair_pass(struct repair_session *s, int phase)
{
	struct repair_ctx r = { .fs_info = s->fs_info, .opts = s->opts, .out = s->out,
				.dropped_log_root = s->dropped_log_root,
				.block_fixes = &s->block_fixes };
	bool changed;
	u64 transid;
	int ret;

	ret = btrfs_start_transaction(s->fs_info, &r.trans);
	if (ret)
		return ret;
	transid = r.trans->transid;
	if (s->out && phase >= 0)
		fprintf(s->out, "repairing: %s\n", check_phases[phase].title);
	if (phase >= 0) {
		/* nothing goes where the blocks this check could not read may hold items */
		struct btrfs_key_guard guard = { repair_key_guard, &r };

		btrfs_set_key_guard(s->fs_info, &guard);
		run_actions(s, &r, &s->now, phase, NULL, NULL);
		btrfs_set_key_guard(s->fs_info, NULL);
		repair_guard_release(&r);
	} else {
		if (s->dry_run) {
			/* what the options will do, said as a plan; done silently */
			plan_global_options(s);
			r.out = NULL;
		}
		repair_global_options(&r);
		/* the open dropped the invalid log: the first commit makes it final */
		if (s->drop_log)
			run_actions(s, &r, &s->now, -1, is_log_tree_invalid, NULL);
	}
	if (phase < 0 && repair_rebuild_requested(s->opts)) {
		ret = repair_rebuild_trees(&r);
		r.out = s->out;
		/* a half-built tree is never committed */
		if (ret < 0) {
			repair_fail_pass(&r, ret);
		} else {
			s->rebuilt = true;
			/* the findings it fixes say so, each (as a pass that rebuilds says) */
			if (s->opts->init_extent_tree) {
				repair_extents_rebuilt(&r);
				run_actions(s, &r, &s->now, -1, repair_extents_by_rebuild,
					    repair_extents_rebuild_fix);
			}
		}
	}
	if (r.pass_error) {
		report_pass(s, &r, "the pass was abandoned");
		return abandon_pass(s, &r, transid);
	}
	changed = phase < 0 || pass_changed(&s->now, phase);
	ret = btrfs_commit_transaction(r.trans);
	s->passes++;
	report_pass(s, &r, ret ? "its commit failed" : NULL);
	if (ret) {
		s->write_failed = true;
		if (s->out)
			fprintf(s->out, "ERROR: commit of transaction %llu failed: %s\n",
				(unsigned long long)transid, strerror(-ret));
		return ret;
	}
	if (!changed)
		return 1;	/* every action failed or found nothing to do */
	s->wrote = true;
	if (s->out)
		fprintf(s->out, "%s transaction %llu\n",
			s->dry_run ? "would commit" : "committed",
			(unsigned long long)transid);
	return 0;
}

/* move the findings of @phase (-1: any) that an action ran for to s->done */
static int keep_done(struct repair_session *s, int phase)
{
	size_t i;

	for (i = 0; i < s->now.nr; i++) {
		struct repair_item *it = &s->now.v[i];

		if ((phase < 0 || it->phase == phase) && it->status != REPAIR_NO_ACTION &&
		    keep_item(&s->done, it))
			return -ENOMEM;
	}
	return 0;
}

/* blocks a check found invalid: the only ones mended when read */
static int allow_block_fixes(struct repair_session *s, const struct repair_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if ((l->v[i].code == PR_TREE_BLOCK_INVALID ||
		     l->v[i].code == PR_TREE_BLOCK_UNREADABLE) &&
		    repair_block_fixes_allow(&s->block_fixes, l->v[i].pctx.block))
			return -ENOMEM;
	}
	return 0;
}

static int repair_loop(struct repair_session *s)
{
	bool given_up[16] = { false };
	int attempts[16] = { 0 };
	int ret, code, phase;

	if (s->opts->clear_log || s->opts->clear_space_cache || s->drop_log ||
	    repair_rebuild_requested(s->opts)) {
		ret = repair_pass(s, -1);
		/* the dropped log, the findings the rebuild fixed; failed or not */
		if (keep_done(s, -1))
			return -ENOMEM;
		if (ret)
			return ret;
		code = run_check(s->opts, false, &s->now);
		if (code & CHECK_EXIT_CANNOT)
			return -EIO;
	}
	while (s->passes < REPAIR_MAX_PASSES) {
		phase = next_phase(&s->now, given_up);
		if (phase < 0)
			break;
		/* a phase whose fixes do not hold is not retried forever */
		if (++attempts[phase] > 2) {
			given_up[phase] = true;
			continue;
		}
		ret = repair_pass(s, phase);
		/* a failed pass too: the report says which action failed */
		if (keep_done(s, phase))
			return -ENOMEM;
		if (ret < 0)
			return ret;
		if (ret > 0) {
			/* nothing this phase can do; the findings stay */
			given_up[phase] = true;
			continue;
		}
		code = run_check(s->opts, false, &s->now);
		if (code & CHECK_EXIT_CANNOT)
			return -EIO;
		/* blocks an earlier fix made reachable */
		if (allow_block_fixes(s, &s->now))
			return -ENOMEM;
	}
	return 0;
}

static bool fixed_any(const struct repair_session *s)
{
	int c;

	for (c = 0; c < PR_COUNT; c++) {
		if (s->fixed_by_code[c])
			return true;
	}
	return false;
}

/* ---- reports ---- */

static void print_summary(struct repair_session *s, bool dry_run)
{
	FILE *out = s->out;
	bool any = false;
	int c;

	if (dry_run) {
		size_t i, planned = 0, failed = 0;

		for (i = 0; i < s->done.nr; i++) {
			if (s->done.v[i].status == REPAIR_PLANNED)
				planned++;
			else if (s->done.v[i].status == REPAIR_FAILED)
				failed++;
		}
		fprintf(out, "dry run: %zu fix%s planned in %d transaction%s, %zu would fail, %zu finding%s would remain; nothing written\n",
			planned, planned == 1 ? "" : "es", s->passes,
			s->passes == 1 ? "" : "s", failed, s->now.nr,
			s->now.nr == 1 ? "" : "s");
		return;
	}
	if (s->gave_up) {
		fprintf(out, "repair summary: the repair failed, nothing it did is written");
		if (s->not_published)
			fprintf(out, " (%d fix%s of earlier passes not written)",
				s->not_published, s->not_published == 1 ? "" : "es");
		fputc('\n', out);
		return;
	}
	fprintf(out, "repair summary:\n");
	if (s->source.differs) {
		any = true;
		fprintf(out, "  every superblock copy written from %s\n", s->source.what);
	}
	if (s->rebuilt) {
		/* its findings are fixed by the rebuild, not by an action each */
		any = true;
		fprintf(out, "  the trees rebuilt as said above\n");
	}
	for (c = 0; c < PR_COUNT; c++) {
		if (!s->fixed_by_code[c] && !s->failed_by_code[c])
			continue;
		any = true;
		fprintf(out, "  %-28s %llu fixed", problem_code_name(c),
			(unsigned long long)s->fixed_by_code[c]);
		if (s->failed_by_code[c])
			fprintf(out, ", %llu failed",
				(unsigned long long)s->failed_by_code[c]);
		fputc('\n', out);
	}
	if (!any)
		fprintf(out, "  nothing fixed\n");
}

static void print_remaining(struct repair_session *s)
{
	size_t i;

	for (i = 0; i < s->now.nr; i++)
		fprintf(s->out, "ERROR: [%s] %s%s\n",
			problem_code_name(s->now.v[i].code), s->now.v[i].message,
			repair_action(s->now.v[i].code) ? "" : " (no repair action)");
	if (s->now.nr)
		fprintf(s->out, "%zu problem%s left after repair\n", s->now.nr,
			s->now.nr == 1 ? "" : "s");
	else
		fprintf(s->out, "no error found after repair\n");
}

static void json_changes(struct json_writer *w, const struct repair_item *it)
{
	size_t i;

	json_kv_array_begin(w, "changes");
	for (i = 0; i < it->nr_changes; i++) {
		const struct repair_change *c = &it->changes[i];

		json_object_begin(w);
		json_kv_string(w, "op", op_name(c->op));
		json_kv_string(w, "what", c->what);
		if (c->has_values) {
			json_kv_u64(w, "old", c->old_value);
			json_kv_u64(w, "new", c->new_value);
		}
		json_object_end(w);
	}
	json_array_end(w);
}

static void json_item(struct json_writer *w, const struct repair_item *it,
		      bool with_action)
{
	json_object_begin(w);
	json_kv_string(w, "code", problem_code_name(it->code));
	json_kv_string(w, "phase", it->phase >= 0 && it->phase < check_nr_phases ?
				   check_phases[it->phase].name : "");
	json_kv_string(w, "message", it->message);
	json_kv_bool(w, "repairable", problem_repairable(it->code));
	json_kv_bool(w, "has_action", repair_action(it->code) != NULL);
	if (with_action) {
		json_kv_string(w, "status", status_name(it->status));
		if (it->status == REPAIR_FAILED || it->status == REPAIR_NOT_WRITTEN)
			json_kv_string(w, "error", failure_text(it));
		json_changes(w, it);
	}
	json_object_end(w);
}

/* the first fix planned or made for finding @it of the first check */
static const struct repair_item *fix_of(const struct repair_session *s,
					const struct repair_item *it)
{
	size_t i;

	for (i = 0; i < s->done.nr; i++) {
		const struct repair_item *d = &s->done.v[i];

		if (d->code == it->code && d->phase == it->phase &&
		    !strcmp(d->message, it->message))
			return d;
	}
	return NULL;
}

static void print_json(struct repair_session *s, int exit_code, bool dry_run,
		       const struct repair_list *remaining)
{
	struct json_writer w;
	size_t i;
	int c;

	json_writer_init(&w, stdout, 0);
	json_object_begin(&w);
	json_kv_string(&w, "mode", dry_run ? "dry-run" :
				   s->opts->preen && !s->opts->repair ? "preen" : "repair");
	json_kv_array_begin(&w, "devices");
	for (i = 0; i < (size_t)s->opts->nr_devices; i++)
		json_string(&w, s->opts->devices[i]);
	json_array_end(&w);
	json_kv_array_begin(&w, "findings");
	for (i = 0; i < s->found.nr; i++) {
		const struct repair_item *it = &s->found.v[i];
		const struct repair_item *fix = dry_run ? fix_of(s, it) : NULL;

		/* a dry run: the status and changes of the plan's fix for it */
		json_item(&w, fix ? fix : it, dry_run);
	}
	json_array_end(&w);
	json_kv_array_begin(&w, "fixes");
	for (i = 0; i < s->done.nr; i++)
		json_item(&w, &s->done.v[i], true);
	json_array_end(&w);
	if (s->source.given) {
		json_kv_object_begin(&w, "source");
		json_kv_string(&w, "from", s->source.what);
		json_kv_u64(&w, "tree_root_generation", s->source.tree_gen);
		json_kv_u64(&w, "newest_generation", s->source.newest_gen);
		json_kv_bool(&w, "superblocks_rewritten",
			     s->source.differs && !dry_run && !s->gave_up);
		json_object_end(&w);
	}
	json_kv_u64(&w, "transactions", (u64)s->passes);
	json_kv_object_begin(&w, "fixed");
	for (c = 0; c < PR_COUNT; c++) {
		if (s->fixed_by_code[c])
			json_kv_u64(&w, problem_code_name(c), s->fixed_by_code[c]);
	}
	json_object_end(&w);
	json_kv_array_begin(&w, "remaining");
	for (i = 0; i < remaining->nr; i++)
		json_item(&w, &remaining->v[i], remaining == &s->found);
	json_array_end(&w);
	json_kv_u64(&w, "exit_code", (u64)exit_code);
	json_object_end(&w);
	json_writer_finish(&w);
	fputc('\n', stdout);
}

/* ---- the command ---- */


/* --clear-log asks unless -y / --force; false when the user said no */
static bool confirm_clear_log(const struct check_options *o)
{
	char answer[16];

	if (!o->clear_log || o->assume_yes || o->dry_run)
		return true;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "ghee check: --clear-log drops the changes the log holds; add -y or --force to do it without a terminal\n");
		return false;
	}
	fprintf(stderr, "Drop the log tree? Changes fsync'ed since the last commit are lost. [y/N] ");
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

/* write the superblocks the last commit left in the overlay: the commit point */
static int publish(struct repair_session *s)
{
	int ret;

	if (s->dry_run)
		return 0;
	ret = btrfs_publish_supers(s->fs_info);
	if (ret) {
		s->write_failed = true;
		fprintf(stderr, "ERROR: writing the superblocks failed: %s\n",
			strerror(-ret));
	}
	return ret;
}

/*
 * The repair failed before its superblocks were written, so the commits
 * of the passes before the failure lead nowhere: their fixes are not
 * written either, and the summary and the JSON must not count them.
 */
static int unpublish_fixes(struct repair_session *s)
{
	static const char why[] = "the repair failed before its superblocks were written";
	size_t i;
	int nr = 0;

	for (i = 0; i < s->done.nr; i++) {
		struct repair_item *it = &s->done.v[i];

		if (it->status != REPAIR_FIXED)
			continue;
		mark_not_written(it, why);
		nr++;
	}
	memset(s->fixed_by_code, 0, sizeof(s->fixed_by_code));
	s->rebuilt = false;
	s->gave_up = true;
	return nr;
}

int check_repair(const struct check_options *opts)
{
	struct check_options copts = *opts;
	struct repair_session s = { .opts = &copts, .dry_run = opts->dry_run };
	bool text = opts->format == CHECK_FORMAT_TEXT, published = false;
	int code, ret;
	size_t i;

	s.out = text ? stdout : NULL;
	/* a mounted filesystem is refused before anything, clean or not */
	for (i = 0; !opts->dry_run && i < (size_t)opts->nr_devices; i++) {
		if (device_refuse_in_use(opts->devices[i]))
			return CHECK_EXIT_CANNOT;
	}
	code = run_check(s.opts, text, &s.found);
	if (code & CHECK_EXIT_CANNOT)
		goto out;
	if (allow_block_fixes(&s, &s.found)) {
		code = CHECK_EXIT_CANNOT;
		goto out;
	}
	if (!repair_source_prepare(opts, &s.source)) {
		code = CHECK_EXIT_CANCELLED | (s.found.nr ? CHECK_EXIT_ERRORS : 0);
		goto out;
	}
	if (!confirm_clear_log(opts)) {
		code = CHECK_EXIT_CANCELLED | (s.found.nr ? CHECK_EXIT_ERRORS : 0);
		goto out;
	}
	if (opts->preen && !opts->repair && !preen_covers(&s.found)) {
		if (text)
			fprintf(stdout, "needs a full repair: %s not fixed by -p (run ghee check --repair)\n",
				s.found.nr == 1 ? "this finding is" : "some findings are");
		code = CHECK_EXIT_ERRORS;
		if (!text)
			print_json(&s, code, false, &s.found);
		goto out;
	}
	if (!s.found.nr && !opts->clear_log && !opts->clear_space_cache &&
	    !repair_rebuild_requested(opts) && !s.source.differs) {
		/* nothing to fix: nothing is opened for writing */
		if (text && opts->dry_run)
			print_summary(&s, true);
		else if (!text)
			print_json(&s, CHECK_EXIT_CLEAN, opts->dry_run, &s.now);
		code = CHECK_EXIT_CLEAN;
		goto out;
	}
	/*
	 * Overlapping extent items keep the engine from computing free space:
	 * the extent tree is rebuilt first, as with --init-extent-tree.
	 */
	if (!opts->init_extent_tree && repair_extents_rebuild_first(&s.found)) {
		copts.init_extent_tree = true;
		if (text)
			fprintf(stdout, "extent items overlap: the extent tree is rebuilt first (as --init-extent-tree)\n");
	}
	s.overlay = btrfs_overlay_create(opts->dry_run);
	if (!s.overlay) {
		code = CHECK_EXIT_CANNOT | (s.found.nr ? CHECK_EXIT_ERRORS : 0);
		goto out;
	}
	/* every later check reads through the overlay */
	copts.overlay = s.overlay;
	ret = open_writable(&s);
	if (ret) {
		code = CHECK_EXIT_CANNOT | (s.found.nr ? CHECK_EXIT_ERRORS : 0);
		goto out;
	}
	if (s.out && s.dry_run)
		fprintf(s.out, "repair plan (dry run, nothing is written):\n");
	if (s.source.given) {
		/*
		 * The first commit makes the chosen state the current one;
		 * from then on every check reads it through the primary (as
		 * the overlay holds it until the end).
		 */
		s.plain_opts = *s.opts;
		repair_source_clear(&s.plain_opts);
		s.opts = &s.plain_opts;
	}
	if (s.source.differs) {
		ret = repair_source_commit(s.fs_info, &s.source, s.out);
		s.passes++;
		if (ret) {
			s.write_failed = true;
		} else {
			s.wrote = true;
			code = run_check(s.opts, false, &s.now);
			if (code & CHECK_EXIT_CANNOT)
				ret = -EIO;
		}
	} else {
		/* the first pass works on a copy of the first check's findings */
		for (i = 0; i < s.found.nr && !ret; i++)
			ret = keep_item(&s.now, &s.found.v[i]);
	}
	if (!ret)
		ret = repair_loop(&s);
	/* a failed pass publishes nothing: the old filesystem stays */
	if (!ret) {
		ret = publish(&s);
		published = !ret && !s.dry_run;
	}
	if (s.undo) {
		/* also after a failed commit: whatever was written is saved */
		int uret = undo_writer_finish(s.undo, s.fs_info);

		if (uret) {
			fprintf(stderr, "ERROR: cannot complete the undo file: %s\n",
				strerror(-uret));
			ret = ret ? ret : uret;
		}
	}
	close_ctree(s.fs_info);
	/*
	 * s.now is the check that followed the last commit (or, when no pass
	 * ran, the first check's findings): what is left on disk.
	 */
	if (ret) {
		code = CHECK_EXIT_CANNOT | CHECK_EXIT_ERRORS;
		/* the undo file may fail after the superblocks are written */
		if (!s.dry_run && !published)
			s.not_published = unpublish_fixes(&s);
	} else if (s.dry_run) {
		/* a state the primary does not lead to needs the repair as well */
		code = s.found.nr || s.source.differs ? CHECK_EXIT_ERRORS : CHECK_EXIT_CLEAN;
	} else {
		code = s.now.nr ? CHECK_EXIT_ERRORS : CHECK_EXIT_CLEAN;
		/* "corrected": a finding was fixed (not only a rebuild option) */
		if (s.wrote && fixed_any(&s))
			code |= CHECK_EXIT_CORRECTED;
		/* a rebuild that cleared the first check's findings corrected them */
		if (s.rebuilt && s.found.nr)
			code |= CHECK_EXIT_CORRECTED;
		/* the primary did not lead to the chosen state; now it does */
		if (s.source.differs)
			code |= CHECK_EXIT_CORRECTED;
	}
	if (text) {
		print_summary(&s, s.dry_run);
		if (!(code & CHECK_EXIT_CANNOT) && !s.dry_run)
			print_remaining(&s);
	} else {
		print_json(&s, code, s.dry_run, &s.now);
	}
out:
	btrfs_overlay_free(s.overlay);
	repair_list_release(&s.found);
	repair_list_release(&s.now);
	repair_list_release(&s.done);
	repair_block_fixes_release(&s.block_fixes);
	return code;
}
