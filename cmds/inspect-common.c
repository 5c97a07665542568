// SPDX-License-Identifier: GPL-2.0
/* Shared pieces of the offline inspection commands (inspect-common.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "inspect-common.h"

bool inspect_parse_format(const char *arg, bool *json)
{
	if (strcmp(arg, "text") && strcmp(arg, "json")) {
		cmd_error("invalid output format '%s', use text or json", arg);
		return false;
	}
	*json = !strcmp(arg, "json");
	return true;
}

bool inspect_parse_u64(const char *s, u64 *ret)
{
	unsigned long long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

int inspect_devices(struct inspect_open *io, char **argv, int first, int argc,
		    bool noscan, void (*usage)(FILE *))
{
	memset(io, 0, sizeof(*io));
	if (first >= argc) {
		cmd_error("no device given");
		usage(stderr);
		return -EINVAL;
	}
	if (device_list_init(&io->devices, argv + first, argc - first)) {
		cmd_error("out of memory");
		return -ENOMEM;
	}
	if (!noscan)
		device_list_scan(&io->devices);
	return 0;
}

static void report_to_stderr(void *ctx, enum btrfs_report_level level, const char *msg)
{
	unsigned int *nr_errors = ctx;

	if (level == BTRFS_REPORT_ERROR)
		(*nr_errors)++;
	fflush(stdout);
	fprintf(stderr, "%s%s\n", level == BTRFS_REPORT_ERROR ? "ERROR: " :
		level == BTRFS_REPORT_WARNING ? "WARNING: " : "", msg);
}

struct btrfs_fs_info *inspect_open_fs(struct inspect_open *io)
{
	struct open_ctree_args args;
	struct btrfs_fs_info *fs_info;
	int err = 0;

	memset(&args, 0, sizeof(args));
	args.paths = io->devices.paths;
	args.nr_paths = io->devices.nr_paths;
	args.backup_root = -1;
	args.flags = OPEN_CTREE_PARTIAL | io->open_flags;
	args.skip_roots = io->skip_roots;
	args.cache_budget = io->cache_budget ? io->cache_budget : 32U << 20;
	if (io->reporter.report) {
		args.reporter = io->reporter;
	} else {
		args.reporter.report = report_to_stderr;
		args.reporter.ctx = &io->reported_errors;
	}
	fs_info = open_ctree(&args, &err);
	if (!fs_info)
		cmd_error("unable to open %s", io->devices.paths[0]);
	return fs_info;
}

void inspect_close(struct inspect_open *io, struct btrfs_fs_info *fs_info)
{
	if (fs_info)
		close_ctree(fs_info);
	device_list_release(&io->devices);
}

const char *inspect_bg_type_name(u64 flags)
{
	u64 t = flags & (BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA |
			 BTRFS_BLOCK_GROUP_SYSTEM);

	if (t == (BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA))
		return "mixed";
	if (t & BTRFS_BLOCK_GROUP_DATA)
		return "data";
	if (t & BTRFS_BLOCK_GROUP_METADATA)
		return "metadata";
	if (t & BTRFS_BLOCK_GROUP_SYSTEM)
		return "system";
	return "unknown";
}

const char *inspect_size(char *buf, size_t len, u64 bytes, bool raw)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = 0;

	if (raw) {
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
		return buf;
	}
	while (bytes >= 1024 && u < 6) {
		bytes /= 1024;
		u++;
	}
	for (int i = 0; i < u; i++)
		v /= 1024;
	snprintf(buf, len, "%.2f%s", v, units[u]);
	return buf;
}

int inspect_finish_output(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ERROR: cannot write the output: %s\n", strerror(errno));
		return GHEE_EXIT_FAILURE;
	}
	return ret;
}
