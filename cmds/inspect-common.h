/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the offline inspection commands (dump-free-space, usage,
 * tree-stats) share: opening a filesystem read-only with damaged roots
 * tolerated, engine messages on stderr counted as errors, number parsing,
 * sizes in the units btrfs-progs prints.
 */
#ifndef GHEE_INSPECT_COMMON_H
#define GHEE_INSPECT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include "device-scan.h"
#include "kernel-shared/disk-io.h"

struct inspect_open {
	struct device_list devices;
	unsigned int reported_errors;	/* errors the engine reported */
	unsigned int skip_roots;	/* OPEN_ROOT_*: global roots the command does not use */
};

/* "--format text|json": 0 text, 1 json, -1 invalid */
int inspect_parse_format(const char *arg);
/* a decimal or 0x number; false when it is not one */
bool inspect_parse_u64(const char *s, u64 *ret);

/* the device list from argv[first..argc), scanned for the other members */
int inspect_devices(struct inspect_open *io, char **argv, int first, int argc);
/* open read-only; NULL after an error message */
struct btrfs_fs_info *inspect_open_fs(struct inspect_open *io);
void inspect_close(struct inspect_open *io, struct btrfs_fs_info *fs_info);

/* "16.00KiB" as btrfs-progs prints sizes, or the plain number with @raw */
const char *inspect_size(char *buf, size_t len, u64 bytes, bool raw);

/* stdout could not be written: message and failure */
int inspect_finish_output(int ret);

#endif
