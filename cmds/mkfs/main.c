// SPDX-License-Identifier: GPL-2.0
/*
 * ghee mkfs [options] DEVICE [DEVICE...]: options as mkfs.btrfs users
 * know them, then the pipeline described in mkfs.h.
 *
 * Exit codes: 0 a filesystem was made (or a listing printed), 1 it could
 * not be made (devices, sizes, I/O), 2 the command line is wrong.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mkfs.h"
#include "../commands.h"

static const char usage_text[] =
"usage: ghee mkfs [options] <dev> [<dev...>]\n"
"\n"
"    Create a btrfs filesystem on a device, several devices or image files\n"
"\n"
"    Allocation profiles:\n"
"    -d|--data PROFILE         data profile: single, dup, raid0, raid1, raid1c3,\n"
"                              raid1c4 or raid10\n"
"    -m|--metadata PROFILE     metadata profile, values like for data profile\n"
"    -M|--mixed                mix metadata and data together\n"
"    Features:\n"
"    --csum TYPE\n"
"    --checksum TYPE           checksum algorithm to use, crc32c (default), xxhash,\n"
"                              sha256, blake2\n"
"    -n|--nodesize SIZE        size of btree nodes\n"
"    -s|--sectorsize SIZE      data block size (may not be mountable by current kernel)\n"
"    -O|--features LIST        comma separated list of filesystem features, ^ turns\n"
"                              one off (use '-O list-all' to list features)\n"
"    -R|--runtime-features LIST\n"
"                              the same, as btrfs-progs 6.2 spells quota and\n"
"                              free-space-tree (use '-R list-all' to list them)\n"
"    -L|--label LABEL          set the filesystem label\n"
"    -U|--uuid UUID            specify the filesystem UUID (must be unique)\n"
"    --device-uuid UUID        specify the device UUID (one device only)\n"
"    Creation:\n"
"    -b|--byte-count SIZE      set size of each device to SIZE (filesystem size is\n"
"                              sum of all device sizes); creates a missing image file\n"
"    -K|--nodiscard            do not perform whole device TRIM\n"
"    -r|--rootdir DIR          copy files from DIR to the top subvolume (one device;\n"
"                              a missing or too small image file is sized for it);\n"
"                              DIR may be a tar archive (any compression) or - for\n"
"                              a tar archive on stdin\n"
"    -u|--subvol TYPE:SUBDIR   with --rootdir: SUBDIR (a directory inside DIR)\n"
"                              becomes a subvolume; TYPE rw (default), ro,\n"
"                              default or default-ro (at most one default)\n"
"    --inode-flags FLAGS:PATH  with --rootdir: inode flags (nodatacow, nodatasum,\n"
"                              comma separated) on PATH inside DIR and what it\n"
"                              holds (not across subvolumes)\n"
"    --owner UID:GID           with --rootdir: every file and directory owned by\n"
"                              UID:GID\n"
"    --root-owner UID:GID      with --rootdir: the top directory owned by UID:GID\n"
"    --one-file-system         with --rootdir: do not enter mount points inside DIR\n"
"    --shrink                  with --rootdir: the device size becomes the end of\n"
"                              the last allocation; an image file is truncated to it\n"
"    --compress ALGO[:LEVEL]   with --rootdir: compress file data; ALGO no (default),\n"
"                              zlib (levels 1-9), lzo, zstd (levels 1-15); level 0\n"
"                              or none is the default; decided as the kernel does\n"
"                              with mount -o compress (heuristic, NOCOMPRESS)\n"
"                              (workers: env GHEE_MKFS_THREADS, default the\n"
"                              usable CPUs)\n"
"    --reflink                 with --rootdir: clone file data into the image file\n"
"                              (FICLONERANGE) when both are on one filesystem\n"
"    --max-inline BYTES        with --rootdir: file data of at most BYTES (and less\n"
"                              than a sector) goes inline; default 2048, the\n"
"                              kernel's max_inline (mkfs.btrfs 6.19: sector - 1)\n"
"    -f|--force                force overwrite of existing filesystem\n"
"    General:\n"
"    -q|--quiet                no messages except errors\n"
"    -v|--verbose              increase verbosity level, default is 1\n"
"    -V|--version              print the ghee version and exit\n"
"    --format FORMAT           text (default) or json\n"
"    --help                    print this help and exit\n";

enum {
	OPT_CSUM = 256,
	OPT_DEVICE_UUID,
	OPT_FORMAT,
	OPT_HELP,
	OPT_OWNER,
	OPT_ROOT_OWNER,
	OPT_ONE_FS,
	OPT_SHRINK,
	OPT_COMPRESS,
	OPT_REFLINK,
	OPT_MAX_INLINE,
	OPT_INODE_FLAGS,
};

static int add_inode_flags(struct mkfs_raw *raw, const char *arg)
{
	if (raw->nr_iflags >= MKFS_MAX_SUBVOLS) {
		cmd_error("too many --inode-flags options (at most %d)", MKFS_MAX_SUBVOLS);
		return -E2BIG;
	}
	raw->iflags[raw->nr_iflags++] = arg;
	return 0;
}

static int add_subvol(struct mkfs_raw *raw, const char *arg)
{
	if (raw->nr_subvols >= MKFS_MAX_SUBVOLS) {
		cmd_error("too many --subvol options (at most %d)", MKFS_MAX_SUBVOLS);
		return -E2BIG;
	}
	raw->subvols[raw->nr_subvols++] = arg;
	return 0;
}

static const struct option long_options[] = {
	{ "data", required_argument, NULL, 'd' },
	{ "metadata", required_argument, NULL, 'm' },
	{ "mixed", no_argument, NULL, 'M' },
	{ "csum", required_argument, NULL, OPT_CSUM },
	{ "checksum", required_argument, NULL, OPT_CSUM },
	{ "nodesize", required_argument, NULL, 'n' },
	{ "sectorsize", required_argument, NULL, 's' },
	{ "features", required_argument, NULL, 'O' },
	{ "runtime-features", required_argument, NULL, 'R' },
	{ "label", required_argument, NULL, 'L' },
	{ "uuid", required_argument, NULL, 'U' },
	{ "device-uuid", required_argument, NULL, OPT_DEVICE_UUID },
	{ "byte-count", required_argument, NULL, 'b' },
	{ "nodiscard", no_argument, NULL, 'K' },
	{ "force", no_argument, NULL, 'f' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "leafsize", required_argument, NULL, 'l' },
	{ "rootdir", required_argument, NULL, 'r' },
	{ "owner", required_argument, NULL, OPT_OWNER },
	{ "root-owner", required_argument, NULL, OPT_ROOT_OWNER },
	{ "one-file-system", no_argument, NULL, OPT_ONE_FS },
	{ "shrink", no_argument, NULL, OPT_SHRINK },
	{ "compress", required_argument, NULL, OPT_COMPRESS },
	{ "reflink", no_argument, NULL, OPT_REFLINK },
	{ "max-inline", required_argument, NULL, OPT_MAX_INLINE },
	{ "subvol", required_argument, NULL, 'u' },
	{ "inode-flags", required_argument, NULL, OPT_INODE_FLAGS },
	{ NULL, 0, NULL, 0 }
};

static int add_feature_list(struct mkfs_raw *raw, char kind, const char *arg)
{
	char *s;
	size_t max = sizeof(raw->features) / sizeof(raw->features[0]);

	if ((size_t)raw->nr_features >= max) {
		cmd_error("too many -O/-R options");
		return -E2BIG;
	}
	/* remember which option it came from in the first character */
	s = malloc(strlen(arg) + 2);
	if (!s)
		return -ENOMEM;
	s[0] = kind;
	strcpy(s + 1, arg);
	raw->features[raw->nr_features++] = s;
	return 0;
}

static void free_raw(struct mkfs_raw *raw)
{
	int i;

	for (i = 0; i < raw->nr_features; i++)
		free((char *)raw->features[i]);
	raw->nr_features = 0;
}

/* one option; returns 0, 1 when main should exit 0 (help, version), <0 usage */
static int parse_one(int c, const char *arg, struct mkfs_raw *raw)
{
	switch (c) {
	case 'd': raw->data_profile = arg; break;
	case 'm': raw->meta_profile = arg; break;
	case 'M': raw->mixed = true; break;
	case OPT_CSUM: raw->csum = arg; break;
	case 'n': raw->nodesize = arg; break;
	case 's': raw->sectorsize = arg; break;
	case 'O':
	case 'R': return add_feature_list(raw, (char)c, arg);
	case 'L': raw->label = arg; break;
	case 'U': raw->fs_uuid = arg; break;
	case OPT_DEVICE_UUID: raw->dev_uuid = arg; break;
	case 'b': raw->byte_count = arg; break;
	case 'K': raw->nodiscard = true; break;
	case 'f': raw->force = true; break;
	case 'q': raw->verbosity = 0; break;
	case 'v': raw->verbosity++; break;
	case OPT_FORMAT: raw->format = arg; break;
	case 'V':
		printf("mkfs, part of %s\n", ghee_version_string);
		return 1;
	case OPT_HELP:
		fputs(usage_text, stdout);
		return 1;
	case 'l':
		cmd_error("--leafsize has been removed, use --nodesize");
		return -EINVAL;
	case 'r': raw->rootdir = arg; break;
	case OPT_OWNER: raw->owner = arg; break;
	case OPT_ROOT_OWNER: raw->root_owner = arg; break;
	case OPT_ONE_FS: raw->one_file_system = true; break;
	case OPT_SHRINK: raw->shrink = true; break;
	case OPT_COMPRESS: raw->compress = arg; break;
	case OPT_REFLINK: raw->reflink = true; break;
	case OPT_MAX_INLINE: raw->max_inline = arg; break;
	case 'u': return add_subvol(raw, arg);
	case OPT_INODE_FLAGS: return add_inode_flags(raw, arg);
	default:
		return -EINVAL;
	}
	return 0;
}

/* "-O list-all" needs no device */
static bool wants_list_all(const struct mkfs_raw *raw)
{
	int i;

	for (i = 0; i < raw->nr_features; i++) {
		if (strstr(raw->features[i], "list-all"))
			return true;
	}
	return false;
}

static int parse_args(int argc, char **argv, struct mkfs_raw *raw)
{
	int c, ret;

	memset(raw, 0, sizeof(*raw));
	raw->verbosity = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:m:Mn:s:O:R:L:U:b:KfqvVl:r:u:",
				long_options, NULL)) != -1) {
		if (c == '?' || c == ':') {
			cmd_option_error("mkfs", argv, c);
			return -EINVAL;
		}
		ret = parse_one(c, optarg, raw);
		if (ret)
			return ret;
	}
	if (optind >= argc && !wants_list_all(raw)) {
		cmd_error("no device given");
		cmd_try_help("mkfs");
		return -EINVAL;
	}
	raw->devices = argv + optind;
	raw->nr_devices = argc - optind;
	return 0;
}

static void print_header(const struct mkfs_params *p)
{
	if (p->format != MKFS_FORMAT_TEXT || p->verbosity < 1)
		return;
	printf("%s\n", ghee_version_string);
	printf("See ghee-mkfs(8) for more information.\n\n");
	printf("NOTE: several default settings have changed in version 5.15, please make sure\n"
	       "      this does not affect your deployments:\n"
	       "      - DUP for metadata (-m dup)\n"
	       "      - enabled no-holes (-O no-holes)\n"
	       "      - enabled free-space-tree (-R free-space-tree)\n\n");
}

/* probe, size, discard, create, report: failures here exit 1 */
static int make_filesystem(const struct mkfs_params *p)
{
	struct mkfs_geometry *g;
	struct mkfs_result res;
	int ret;

	g = calloc(1, sizeof(*g));
	if (!g) {
		cmd_error("out of memory");
		return -ENOMEM;
	}
	memset(&res, 0, sizeof(res));
	ret = mkfs_rootdir_size(p, g);
	if (!ret)
		ret = mkfs_probe_devices(p, g);
	if (!ret)
		ret = mkfs_compute_geometry(p, g);
	if (!ret)
		mkfs_rootdir_fit_chunks(p, g);
	if (!ret)
		ret = mkfs_discard_devices(p, g);
	if (!ret)
		ret = mkfs_create(p, g, &res);
	if (!ret && p->format == MKFS_FORMAT_JSON)
		mkfs_print_json(stdout, p, g, &res);
	else if (!ret && p->verbosity >= 1)
		mkfs_print_summary(stdout, p, g, &res);
	mkfs_close_devices(g, ret != 0);
	rootdir_scan_free(&g->scan);
	free(g);
	return ret;
}

static void free_params(struct mkfs_params *p)
{
	int i;

	for (i = 0; i < p->rootdir.nr_subvols; i++)
		free(p->rootdir.subvols[i].rel);
	p->rootdir.nr_subvols = 0;
	for (i = 0; i < p->rootdir.nr_iflags; i++)
		free(p->rootdir.iflags[i].rel);
	p->rootdir.nr_iflags = 0;
}

int cmd_mkfs(int argc, char **argv)
{
	struct mkfs_raw raw;
	struct mkfs_params params;
	int ret;

	ret = parse_args(argc, argv, &raw);
	if (ret) {
		free_raw(&raw);
		return ret > 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	}
	ret = mkfs_validate_params(&raw, &params);
	free_raw(&raw);
	if (ret) {
		free_params(&params);
		return ret > 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	}
	print_header(&params);
	ret = make_filesystem(&params);
	free_params(&params);
	if (fflush(stdout) && !ret) {
		cmd_error("cannot write the summary: %m");
		return GHEE_EXIT_FAILURE;
	}
	return ret ? GHEE_EXIT_FAILURE : GHEE_EXIT_OK;
}
