/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the offline inspection commands (dump-tree, dump-extents,
 * dump-free-space, map, usage, tree-stats) share: the device list and its
 * scan, opening a filesystem read-only with damaged roots tolerated, engine
 * messages on stderr counted as errors, number parsing, sizes in the units
 * btrfs-progs prints, block group type names.
 */
#ifndef GHEE_INSPECT_COMMON_H
#define GHEE_INSPECT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "device-scan.h"
#include "kernel-shared/disk-io.h"

struct inspect_open {
	struct device_list devices;
	unsigned int reported_errors;	/* errors the engine reported */
	unsigned int skip_roots;	/* OPEN_ROOT_*: global roots the command does not use */
	unsigned int open_flags;	/* OPEN_CTREE_* beyond OPEN_CTREE_PARTIAL */
	size_t cache_budget;		/* tree block cache bytes; 0 for 32 MiB */
	/* .report NULL: "ERROR: "/"WARNING: " lines on stderr, errors counted above */
	struct btrfs_reporter reporter;
};

/* "--format text|json" into @json; false after the error message */
bool inspect_parse_format(const char *arg, bool *json);
/* a decimal or 0x number; false when it is not one */
bool inspect_parse_u64(const char *s, u64 *ret);

/*
 * the device list from argv[first..argc), scanned for the other members
 * unless @noscan; clears @io first.  -EINVAL (after @usage on stderr) when
 * no device is given, -ENOMEM; each after its message
 */
int inspect_devices(struct inspect_open *io, char **argv, int first, int argc,
		    bool noscan, void (*usage)(FILE *));
/* open read-only; NULL after an error message */
struct btrfs_fs_info *inspect_open_fs(struct inspect_open *io);
void inspect_close(struct inspect_open *io, struct btrfs_fs_info *fs_info);

/* "data", "metadata", "system", "mixed" (both data and metadata), "unknown" */
const char *inspect_bg_type_name(u64 flags);

/* "16.00KiB" as btrfs-progs prints sizes, or the plain number with @raw */
const char *inspect_size(char *buf, size_t len, u64 bytes, bool raw);

/* stdout could not be written: message and failure */
int inspect_finish_output(int ret);

#endif
