// SPDX-License-Identifier: GPL-2.0
/*
 * ghee check: option parsing, opening the filesystem read-only, running
 * the phases in order, and the summary and exit code.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "shared.h"
#include "json-output.h"
#include "cmds/commands.h"
#include "cmds/device-scan.h"
#include "cmds/mount-probe.h"
#include "repair.h"
#include "repair-open.h"
#include "kernel-shared/print-tree.h"


#define CHECK_CACHE_BUDGET	(16U << 20)

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ghee check [options] DEVICE [DEVICE...]\n"
		"\n"
		"Verify every structure of a btrfs filesystem; read-only unless a\n"
		"repair option is given.\n"
		"\n"
		"  --readonly            never write (the default)\n"
		"  --repair              fix every finding that has a repair action\n"
		"  -y, --yes             --repair, answering yes to every question\n"
		"  -p, --preen           fix only what is always safe (counters, sizes,\n"
		"                        free space tree/cache, orphan leftovers)\n"
		"  --dry-run             with a repair option: print the plan, write nothing\n"
		"  --undo FILE           save what the repair overwrites to FILE\n"
		"                        (ghee undo FILE DEVICE puts it back)\n"
		"  --clear-space-cache v1|v2  drop the v1 space cache / rebuild the\n"
		"                        free space tree\n"
		"  --clear-log           drop the log tree (asks unless -y or --force)\n"
		"  --init-csum-tree      with --repair: recompute every data checksum\n"
		"                        from the data (a new csum tree)\n"
		"  --init-extent-tree    with --repair: rebuild the extent tree (back\n"
		"                        references, block group used) from the trees\n"
		"  --init-uuid-tree      with --repair: rebuild every uuid tree entry\n"
		"                        (subvolume and received uuids) from the root items\n"
		"  -s, --super N         use superblock mirror N (0, 1 or 2)\n"
		"  -b, --backup          use the newest valid backup roots\n"
		"  -r, --tree-root BYTENR  use this tree root block\n"
		"  --chunk-root BYTENR   use this chunk tree root block\n"
		"                        (with --repair: repair from that state, making it\n"
		"                        the current one; newer generations are abandoned)\n"
		"  --noscan              use only the listed devices (default: find the\n"
		"                        other devices of a multi-device filesystem)\n"
		"  --check-data-csum     read every data block and verify its checksum\n"
		"  --progress            show progress (default on a terminal)\n"
		"  --no-progress         do not show progress, even on a terminal\n"
		"  -q, --quiet           print only findings and the summary line\n"
		"  --format text|json    output format\n"
		"  --force               check a filesystem that is mounted read-only\n"
		"                        (a read-write mount is always refused); with a\n"
		"                        repair option: do not ask (for scripts)\n"
		"  -h, --help            this help\n"
		"  -V, --version         print the version\n"
		"\n"
		"Exit status (fsck(8), bits combine): 0 no errors, 1 errors corrected,\n"
		"4 errors left uncorrected, 8 operational error, 16 usage error,\n"
		"32 cancelled.\n");
}

enum { OPT_CHUNK_ROOT = 256, OPT_CSUM, OPT_FORMAT, OPT_READONLY, OPT_NOPROGRESS,
       OPT_NOSCAN, OPT_REPAIR, OPT_DRY_RUN, OPT_UNDO, OPT_CLEAR_CACHE,
       OPT_CLEAR_LOG, OPT_FORCE, OPT_PROGRESS, OPT_INIT_CSUM, OPT_INIT_EXTENT,
       OPT_INIT_UUID };

static int parse_u64(const char *s, u64 *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || !*s || *end) ? -EINVAL : 0;
}

static int parse_options(int argc, char **argv, struct check_options *o)
{
	static const struct option longopts[] = {
		{ "readonly", no_argument, NULL, OPT_READONLY },
		{ "super", required_argument, NULL, 's' },
		{ "backup", no_argument, NULL, 'b' },
		{ "tree-root", required_argument, NULL, 'r' },
		{ "chunk-root", required_argument, NULL, OPT_CHUNK_ROOT },
		{ "check-data-csum", no_argument, NULL, OPT_CSUM },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "repair", no_argument, NULL, OPT_REPAIR },
		{ "yes", no_argument, NULL, 'y' },
		{ "preen", no_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "undo", required_argument, NULL, OPT_UNDO },
		{ "clear-space-cache", required_argument, NULL, OPT_CLEAR_CACHE },
		{ "clear-log", no_argument, NULL, OPT_CLEAR_LOG },
		{ "init-csum-tree", no_argument, NULL, OPT_INIT_CSUM },
		{ "init-extent-tree", no_argument, NULL, OPT_INIT_EXTENT },
		{ "init-uuid-tree", no_argument, NULL, OPT_INIT_UUID },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "no-progress", no_argument, NULL, OPT_NOPROGRESS },
		{ "noscan", no_argument, NULL, OPT_NOSCAN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, progress = -1;
	bool readonly = false;
	u64 v;

	memset(o, 0, sizeof(*o));
	o->super_mirror = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:br:pyqhV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_READONLY:
			readonly = true;
			break;
		case OPT_REPAIR:
			o->repair = true;
			break;
		case 'y':
			o->repair = true;
			o->assume_yes = true;
			break;
		case 'p':
			o->preen = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_UNDO:
			o->undo_file = optarg;
			break;
		case OPT_CLEAR_CACHE:
			if (!strcmp(optarg, "v1")) {
				o->clear_space_cache = 1;
			} else if (!strcmp(optarg, "v2")) {
				o->clear_space_cache = 2;
			} else {
				fprintf(stderr, "ghee check: invalid --clear-space-cache '%s', expect v1 or v2\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_CLEAR_LOG:
			o->clear_log = true;
			break;
		case OPT_INIT_CSUM:
			o->init_csum_tree = true;
			break;
		case OPT_INIT_EXTENT:
			o->init_extent_tree = true;
			break;
		case OPT_INIT_UUID:
			o->init_uuid_tree = true;
			break;
		case OPT_FORCE:
			/* check a read-only mount; with a repair option: never ask */
			o->force = true;
			o->assume_yes = true;
			break;
		case 's':
			if (parse_u64(optarg, &v) || v >= BTRFS_SUPER_MIRROR_MAX) {
				cmd_error("invalid superblock mirror '%s', expect 0..%d",
					  optarg, BTRFS_SUPER_MIRROR_MAX - 1);
				return -EINVAL;
			}
			o->super_mirror = (int)v;
			break;
		case 'b':
			o->use_backup_roots = true;
			break;
		case 'r':
		case OPT_CHUNK_ROOT:
			if (parse_u64(optarg, &v) || !v) {
				cmd_error("invalid block number '%s'", optarg);
				return -EINVAL;
			}
			if (c == 'r')
				o->tree_root = v;
			else
				o->chunk_root = v;
			break;
		case OPT_CSUM:
			o->check_data_csum = true;
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_NOPROGRESS:
			progress = 0;
			break;
		case OPT_NOSCAN:
			o->noscan = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "json")) {
				o->format = CHECK_FORMAT_JSON;
			} else if (!strcmp(optarg, "text")) {
				o->format = CHECK_FORMAT_TEXT;
			} else {
				cmd_error("unknown format '%s', expect text or json",
					  optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			exit(CHECK_EXIT_CLEAN);
		case 'V':
			printf("%s\n", ghee_version_string);
			exit(CHECK_EXIT_CLEAN);
		default:
			cmd_option_error("check", argv, c);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		cmd_error("no device given");
		cmd_try_help("check");
		return -EINVAL;
	}
	if (o->use_backup_roots && o->tree_root) {
		cmd_error("-b and -r cannot be used together");
		return -EINVAL;
	}
	if (check_repair_options_invalid(o, readonly))
		return -EINVAL;
	o->devices = (const char *const *)argv + optind;
	o->nr_devices = argc - optind;
	if (progress < 0)
		progress = isatty(STDERR_FILENO) && !o->quiet &&
			   o->format == CHECK_FORMAT_TEXT;
	o->progress = progress && !o->quiet;
	return 0;
}

/*
 * Engine messages: kept so phases can quote the precise reason.  Data
 * verification reads from several threads, hence the lock.
 */
static void check_engine_report(void *data, enum btrfs_report_level level,
				const char *msg)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct check_ctx *ctx = data;
	char *buf = ctx->shared->last_engine_msg;
	size_t len = sizeof(ctx->shared->last_engine_msg);
	size_t used = strlen(buf);

	pthread_mutex_lock(&lock);
	/*
	 * While the filesystem is being opened (no fs_info yet), every error
	 * is kept: the last one ("no valid btrfs superblock") needs the
	 * earlier ones for its reason ("device too small"); a warning then
	 * is no reason and does not replace them.
	 */
	if (ctx->fs_info || !used)
		snprintf(buf, len, "%s", msg);
	else if (level == BTRFS_REPORT_ERROR && used + 3 < len)
		snprintf(buf + used, len - used, "; %s", msg);
	pthread_mutex_unlock(&lock);
}

/*
 * Why open failed, in one line: the engine's messages, which name the
 * reason themselves; the errno only when they do not give it, or when
 * there are none.
 */
static const char *check_open_error(char *msg, size_t len, int err)
{
	const char *reason = strerror(-err);
	char *last = NULL, *p, tmp[512];
	size_t used = strlen(msg);

	if (!used)
		return reason;
	/* the last message says what failed, the earlier ones why: put it first */
	for (p = strstr(msg, "; "); p; p = strstr(p + 2, "; "))
		last = p;
	if (last && len <= sizeof(tmp)) {
		*last = '\0';
		snprintf(tmp, sizeof(tmp), "%s: %s", last + 2, msg);
		snprintf(msg, len, "%s", tmp);
		used = strlen(msg);
	}
	if (err != -EINVAL && err != -ENOENT && err != -EUCLEAN &&
	    !strstr(msg, reason))
		snprintf(msg + used, len - used, ": %s", reason);
	return msg;
}

static struct btrfs_fs_info *open_for_check(struct check_ctx *ctx, int *err)
{
	const struct check_options *o = ctx->opts;
	struct open_ctree_args args = {
		.paths = o->devices,
		.nr_paths = o->nr_devices,
		.flags = OPEN_CTREE_PARTIAL,
		/*
		 * Phases stream trees in key order; the cache only has to keep
		 * the upper levels hot, so memory stays flat however large the
		 * filesystem is.
		 */
		.cache_budget = CHECK_CACHE_BUDGET,
		.reporter = { check_engine_report, ctx },
		.overlay = o->overlay,
	};
	int slot;

	/* -s, -b, -r, --chunk-root: the same open as the repair's */
	return check_source_open(o, &args, &slot, err, ctx->shared->last_engine_msg,
				 sizeof(ctx->shared->last_engine_msg));
}

static void print_header(struct check_ctx *ctx)
{
	char uuid[BTRFS_UUID_UNPARSED_SIZE];

	if (ctx->json || ctx->opts->quiet)
		return;
	btrfs_format_uuid(ctx->fs_info->fsid, uuid);
	fprintf(ctx->out, "Checking filesystem on %s\nUUID: %s\n",
		ctx->opts->devices[0], uuid);
}

static void run_phases(struct check_ctx *ctx)
{
	int i, ret;

	for (i = 0; i < check_nr_phases; i++) {
		ctx->phase = &check_phases[i];
		ctx->phase_index = i;
		if (ctx->json)
			check_json_phase_begin(ctx->json, i + 1, check_nr_phases,
					       ctx->phase);
		else if (!ctx->opts->quiet)
			fprintf(ctx->out, "[%d/%d] %s\n", i + 1, check_nr_phases,
				ctx->phase->title);
		fflush(ctx->out);
		ret = ctx->phase->run(ctx);
		progress_end(&ctx->progress);
		if (ret < 0)
			check_info(ctx, "phase %s stopped early: %s", ctx->phase->name,
				   strerror(-ret));
		if (ctx->json)
			check_json_phase_end(ctx->json, ctx->problems_by_phase[i]);
	}
}

static int summarize(struct check_ctx *ctx)
{
	int code = ctx->problems_total ? CHECK_EXIT_ERRORS : CHECK_EXIT_CLEAN;

	if (ctx->json) {
		check_json_finish(ctx->json, ctx, code);
		return code;
	}
	if (ctx->problems_total)
		fprintf(ctx->out, "found %llu problem%s\n",
			(unsigned long long)ctx->problems_total,
			ctx->problems_total == 1 ? "" : "s");
	else
		fprintf(ctx->out, "no error found\n");
	if (ctx->warnings_total)
		fprintf(ctx->out, "%llu warning%s\n",
			(unsigned long long)ctx->warnings_total,
			ctx->warnings_total == 1 ? "" : "s");
	return code;
}

int check_run(const struct check_options *opts, FILE *out,
	      void (*on_problem)(void *data, const struct check_ctx *ctx,
				 enum problem_code code,
				 const struct problem_ctx *pctx),
	      void *on_problem_data)
{
	struct check_shared shared;
	struct check_ctx ctx;
	int err = 0, code;

	memset(&ctx, 0, sizeof(ctx));
	check_shared_init(&shared);
	ctx.opts = opts;
	ctx.shared = &shared;
	ctx.out = out;
	ctx.phase_index = -1;
	ctx.progress.enabled = opts->progress;
	ctx.on_problem = on_problem;
	ctx.on_problem_data = on_problem_data;
	if (opts->format == CHECK_FORMAT_JSON)
		ctx.json = check_json_begin(out, opts);
	ctx.fs_info = open_for_check(&ctx, &err);
	if (!ctx.fs_info) {
		const char *why = check_open_error(shared.last_engine_msg,
						   sizeof(shared.last_engine_msg), err);

		if (ctx.json)
			check_json_cannot(ctx.json, why, 0);
		else
			cmd_error("cannot check: %s", why);
		check_shared_release(&shared);
		return CHECK_EXIT_CANNOT;
	}
	print_header(&ctx);
	run_phases(&ctx);
	code = summarize(&ctx);
	close_ctree(ctx.fs_info);
	check_shared_release(&shared);
	return code;
}

/*
 * The kernel may write a read-write mounted filesystem at any moment: the
 * blocks read would not belong to one generation and the findings would
 * be false alarms.  A read-only mount is stable enough with --force.
 * 0 when the check may go on, else why not in @why.
 */
static int mounted_reason(const struct check_options *o, char *why, size_t len)
{
	char how[2 * PATH_MAX + 16];
	struct mount_state ms;
	struct stat st;
	int i, ret;

	for (i = 0; i < o->nr_devices; i++) {
		if (stat(o->devices[i], &st))
			continue;	/* opening it reports the reason */
		ret = mount_probe(&st, &ms);
		if (ret < 0) {
			snprintf(why, len, "cannot tell whether %s is mounted: %s",
				 o->devices[i], strerror(-ret));
			return ret;
		}
		if (!ms.mounted)
			continue;
		snprintf(how, sizeof(how), "%s%s%s", ms.where,
			 ms.through[0] ? " through " : "", ms.through);
		if (ms.read_write) {
			snprintf(why, len, "%s is mounted read-write on %s: a filesystem that is being written cannot be checked, unmount it (or remount it read-only and use --force)",
				 o->devices[i], how);
			return -EBUSY;
		}
		if (!o->force) {
			snprintf(why, len, "%s is mounted read-only on %s: use --force to check it anyway",
				 o->devices[i], how);
			return -EBUSY;
		}
		cmd_warning("%s is mounted read-only on %s: checking it anyway (--force); findings may be wrong if it is remounted read-write meanwhile",
			    o->devices[i], how);
	}
	return 0;
}

/* refuse a mounted filesystem; 0 when the check may go on, else the exit status */
static int refuse_if_mounted(const struct check_options *o)
{
	char why[4 * PATH_MAX];
	struct check_json *json;

	if (!mounted_reason(o, why, sizeof(why)))
		return 0;
	cmd_error("%s", why);
	if (o->format == CHECK_FORMAT_JSON) {
		json = check_json_begin(stdout, o);
		if (json)
			check_json_cannot(json, why, 0);
	}
	return CHECK_EXIT_CANNOT;
}

int cmd_check(int argc, char **argv)
{
	struct device_list devices;
	struct check_options opts;
	int code;

	if (parse_options(argc, argv, &opts))
		return CHECK_EXIT_USAGE;
	if (device_list_init(&devices, argv + optind, opts.nr_devices)) {
		cmd_error("out of memory");
		return CHECK_EXIT_CANNOT;
	}
	if (!opts.noscan)
		device_list_scan(&devices);
	opts.devices = devices.paths;
	opts.nr_devices = devices.nr_paths;
	if (opts.repair || opts.preen || opts.clear_log || opts.clear_space_cache ||
	    opts.init_csum_tree || opts.init_extent_tree || opts.init_uuid_tree) {
		code = check_repair(&opts);
	} else {
		code = refuse_if_mounted(&opts);
		if (!code)
			code = check_run(&opts, stdout, NULL, NULL);
	}
	device_list_release(&devices);
	return code;
}
