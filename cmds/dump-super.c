// SPDX-License-Identifier: GPL-2.0
/*
 * ghee dump-super: print superblocks.  The text output is that of
 * btrfs-progs 6.2 "btrfs inspect-internal dump-super" line for line (it
 * prints no version line, so neither do we); --format json prints the same
 * superblocks as one JSON document (schema in ghee-dump-super(8)).
 *
 * Devices are opened read-only and only ever read.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "dump-super.h"
#include "json-writer.h"
#include "kernel-shared/disk-io.h"

struct dump_super_opts {
	bool full;
	bool all;		/* every mirror that fits on the device */
	bool force;		/* print even with a bad magic */
	bool json;
	u64 bytenr;		/* the copy to print when not all */
};

/* where one superblock read ended */
enum sb_read_status {
	SB_READ_OK,
	SB_READ_EOF,		/* nothing there: past the end of the device */
	SB_READ_ERROR,
};

static void usage(FILE *out)
{
	fputs("usage: ghee dump-super [options] DEVICE [DEVICE...]\n"
	      "\n"
	      "Print superblocks, like btrfs-progs 6.2\n"
	      "\"btrfs inspect-internal dump-super\".\n"
	      "\n"
	      "  -f|--full              also print sys_chunk_array and the backup roots\n"
	      "  -a|--all               print every superblock copy on the device\n"
	      "  -s|--super N           print copy N (0, 1, 2); a larger N is taken\n"
	      "                         as --bytenr N (deprecated progs syntax)\n"
	      "  --bytenr OFFSET        print the superblock at this byte offset\n"
	      "  -F|--force             print a superblock even with a bad magic\n"
	      "  -i N                   deprecated form of --super N\n"
	      "  --format text|json     output format (default text)\n"
	      "  -h|--help              this help\n"
	      "  -V|--version           print the version\n", out);
}

/* ---- options ---- */

/*
 * A number as progs takes it: C syntax (decimal, 0x hex, 0 octal), no
 * leading minus, nothing after it, less than 2^64 - 1.
 */
static int parse_u64_arg(const char *arg, u64 *ret)
{
	unsigned long long v;
	char *end;

	if (arg[0] == '-') {
		cmd_error("%s: negative value is invalid", arg);
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (*end) {
		cmd_error("%s is not a valid numeric value", arg);
		return -EINVAL;
	}
	if (errno == ERANGE || v == ULLONG_MAX) {
		cmd_error("%s is too large", arg);
		return -ERANGE;
	}
	*ret = v;
	return 0;
}

/* -s N / --super N: a mirror, or (deprecated) an offset */
static int parse_super_arg(struct dump_super_opts *o, const char *arg)
{
	u64 v;

	if (parse_u64_arg(arg, &v))
		return -EINVAL;
	if (v >= BTRFS_SUPER_MIRROR_MAX) {
		cmd_warning("deprecated use of -s <bytenr> with %llu, assuming --bytenr",
				   (unsigned long long)v);
		o->bytenr = v;
	} else {
		o->bytenr = btrfs_sb_offset((int)v);
	}
	o->all = false;
	return 0;
}

/* -i N: the old spelling of --super, which (as in progs) keeps -a */
static int parse_mirror_arg(struct dump_super_opts *o, const char *arg)
{
	u64 v;

	cmd_warning("option -i is deprecated, please use -s or --super");
	if (parse_u64_arg(arg, &v))
		return -EINVAL;
	if (v >= BTRFS_SUPER_MIRROR_MAX) {
		cmd_error("super mirror too big: %llu >= %d",
				 (unsigned long long)v, BTRFS_SUPER_MIRROR_MAX);
		return -EINVAL;
	}
	o->bytenr = btrfs_sb_offset((int)v);
	return 0;
}

static int parse_format_arg(struct dump_super_opts *o, const char *arg)
{
	if (!strcmp(arg, "text")) {
		o->json = false;
	} else if (!strcmp(arg, "json")) {
		o->json = true;
	} else {
		cmd_error("invalid output format '%s', use text or json", arg);
		return -EINVAL;
	}
	return 0;
}


enum {
	OPT_BYTENR = 256,
	OPT_FORMAT,
};

/* 0: go on; 1: --help was printed; <0: usage error (already reported) */
static int parse_options(struct dump_super_opts *o, int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "bytenr", required_argument, NULL, OPT_BYTENR },
		{ "full", no_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "super", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->bytenr = BTRFS_SUPER_INFO_OFFSET;
	optind = 0;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, ":fFai:s:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->full = true; break;
		case 'F': o->force = true; break;
		case 'a': o->all = true; break;
		case 'i': ret = parse_mirror_arg(o, optarg); break;
		case 's': ret = parse_super_arg(o, optarg); break;
		case OPT_BYTENR:
			ret = parse_u64_arg(optarg, &o->bytenr);
			o->all = false;
			break;
		case OPT_FORMAT: ret = parse_format_arg(o, optarg); break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("%s\n", ghee_version_string);
			return 1;
		default:
			cmd_option_error("dump-super", argv, c);
			return -EINVAL;
		}
	}
	if (ret)
		return ret;
	if (optind >= argc) {
		cmd_error("not enough arguments: a device is needed");
		cmd_try_help("dump-super");
		return -EINVAL;
	}
	return 0;
}

/* ---- reading ---- */

/*
 * Read the copy at @bytenr.  progs tells "nothing there" (the copy lies
 * past the end: skipped quietly) from a partial copy (an error), so after
 * a short read we look whether any byte at all is there.
 */
static enum sb_read_status read_super(int fd, u64 bytenr,
				      struct btrfs_super_block *sb, int *err)
{
	ssize_t n;
	char c;
	int ret;

	*err = 0;
	ret = btrfs_read_super_raw(fd, bytenr, sb);
	if (!ret)
		return SB_READ_OK;
	if (ret != -ENOENT) {
		*err = -ret;
		return SB_READ_ERROR;
	}
	n = pread(fd, &c, 1, (off_t)bytenr);
	if (n == 0)
		return SB_READ_EOF;
	if (n < 0)
		*err = errno;
	return SB_READ_ERROR;
}

static int mirror_of(u64 bytenr)
{
	int i;

	for (i = 0; i < BTRFS_SUPER_MIRROR_MAX; i++)
		if (btrfs_sb_offset(i) == bytenr)
			return i;
	return -1;
}

/* ---- one superblock ---- */

struct dump_ctx {
	const struct dump_super_opts *o;
	struct json_writer *json;	/* NULL for text */
};

static void json_entry_begin(struct json_writer *w, const char *path,
			     u64 bytenr, const char *status)
{
	int mirror = mirror_of(bytenr);

	json_object_begin(w);
	json_kv_string(w, "device", path);
	json_kv_u64(w, "offset", bytenr);
	if (mirror >= 0)
		json_kv_u64(w, "mirror", mirror);
	else
		json_kv_null(w, "mirror");
	json_kv_string(w, "status", status);
}

static void report_read_error(struct dump_ctx *ctx, const char *path,
			      u64 bytenr, int err)
{
	cmd_error("failed to read the superblock on %s at %llu",
			 path, (unsigned long long)bytenr);
	/* progs' words, "Success" and all when the copy was only cut short */
	cmd_error("error = '%s', errno = %d", strerror(err), err);
	if (ctx->json) {
		json_entry_begin(ctx->json, path, bytenr, "read_error");
		json_kv_string(ctx->json, "error",
			       err ? strerror(err) : "short read");
		json_object_end(ctx->json);
	}
}

static void report_bad_magic(struct dump_ctx *ctx, const char *path, u64 bytenr)
{
	cmd_error("bad magic on superblock on %s at %llu (use --force to dump it anyway)",
			 path, (unsigned long long)bytenr);
	if (ctx->json) {
		json_entry_begin(ctx->json, path, bytenr, "bad_magic");
		json_object_end(ctx->json);
	}
}

static void print_super(struct dump_ctx *ctx, const char *path, u64 bytenr,
			const struct sb_view *v)
{
	if (ctx->json) {
		json_entry_begin(ctx->json, path, bytenr, "ok");
		dump_super_json(ctx->json, v, ctx->o->full);
		json_object_end(ctx->json);
		return;
	}
	dump_super_text(stdout, v, ctx->o->full);
	putchar('\n');
}

/* 0 when printed or skipped (past the end of the device), -errno on error */
static int dump_one(struct dump_ctx *ctx, int fd, const char *path, u64 bytenr)
{
	struct btrfs_super_block sb;
	struct sb_view v;
	int err;

	switch (read_super(fd, bytenr, &sb, &err)) {
	case SB_READ_OK:
		break;
	case SB_READ_EOF:
		if (ctx->json) {
			json_entry_begin(ctx->json, path, bytenr, "beyond_device");
			json_object_end(ctx->json);
		} else {
			putchar('\n');
		}
		return 0;
	case SB_READ_ERROR:
		report_read_error(ctx, path, bytenr, err);
		return -EIO;
	}
	if (!ctx->json)
		printf("superblock: bytenr=%llu, device=%s\n"
		       "---------------------------------------------------------\n",
		       (unsigned long long)bytenr, path);
	sb_view_init(&v, &sb);
	if (!v.magic_match && !ctx->o->force) {
		report_bad_magic(ctx, path, bytenr);
		return -EINVAL;
	}
	print_super(ctx, path, bytenr, &v);
	return 0;
}

static int dump_device(struct dump_ctx *ctx, const char *path)
{
	int fd, i, err, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		err = errno;
		cmd_error("cannot open %s: %s", path, strerror(err));
		if (ctx->json) {
			json_entry_begin(ctx->json, path, ctx->o->all ?
					 BTRFS_SUPER_INFO_OFFSET : ctx->o->bytenr,
					 "open_error");
			json_kv_string(ctx->json, "error", strerror(err));
			json_object_end(ctx->json);
		}
		return -err;
	}
	if (!ctx->o->all)
		ret = dump_one(ctx, fd, path, ctx->o->bytenr);
	for (i = 0; ctx->o->all && !ret && i < BTRFS_SUPER_MIRROR_MAX; i++)
		ret = dump_one(ctx, fd, path, btrfs_sb_offset(i));
	close(fd);
	return ret;
}

/* ---- the command ---- */

/* every device in turn; the first failure ends the run, as in progs */
static int dump_devices(struct dump_ctx *ctx, int nr, char **paths)
{
	int i, ret = 0;

	for (i = 0; i < nr && !ret; i++)
		ret = dump_device(ctx, paths[i]);
	return ret;
}

static int dump_json(struct dump_ctx *ctx, int nr, char **paths)
{
	struct json_writer w;
	int ret, wret;

	json_writer_init(&w, stdout, JSON_WRITER_PRETTY);
	ctx->json = &w;
	json_object_begin(&w);
	json_kv_string(&w, "ghee_version", PACKAGE_VERSION);
	json_kv_array_begin(&w, "superblocks");
	ret = dump_devices(ctx, nr, paths);
	json_array_end(&w);
	json_object_end(&w);
	wret = json_writer_finish(&w);
	if (wret) {
		cmd_error("writing the JSON document failed: %s",
				 strerror(-wret));
		ret = wret;
	}
	return ret;
}

int cmd_dump_super(int argc, char **argv)
{
	struct dump_super_opts o;
	struct dump_ctx ctx = { .o = &o };
	int ret;

	ret = parse_options(&o, argc, argv);
	if (ret)
		return ret > 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	if (o.json)
		ret = dump_json(&ctx, argc - optind, argv + optind);
	else
		ret = dump_devices(&ctx, argc - optind, argv + optind);
	if (fflush(stdout) || ferror(stdout)) {
		cmd_error("writing the output failed");
		ret = -EIO;
	}
	return ret ? GHEE_EXIT_FAILURE : GHEE_EXIT_OK;
}
