// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as the primary superblock of a small
 * in-memory device, fed to the superblock validator and to the whole
 * dump-super command (-f -F: print everything, whatever the checksum says),
 * in text and in JSON.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include "kernel-shared/disk-io.h"
#include "cmds/commands.h"

#define DEVICE_SIZE (1ULL << 20)

const char ghee_version_string[] = "ghee fuzz";

static int device_fd = -1;

static void quiet_stdout(void)
{
	int null = open("/dev/null", O_WRONLY);

	/* the command's stderr messages are silenced with -close_fd_mask=2 */
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

static void run_dump_super(const char *path, int json)
{
	char *argv_text[] = { "dump-super", "-f", "-F", (char *)path, NULL };
	char *argv_json[] = { "dump-super", "-f", "-F", "--format", "json",
			      (char *)path, NULL };

	if (json)
		cmd_dump_super(6, argv_json);
	else
		cmd_dump_super(4, argv_text);
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btrfs_super_block sb;
	char path[64];

	if (device_fd < 0) {
		quiet_stdout();
		device_fd = memfd_create("fuzz-super", 0);
		if (device_fd < 0 || ftruncate(device_fd, DEVICE_SIZE))
			return 0;
	}
	memset(&sb, 0, sizeof(sb));
	memcpy(&sb, data, size < sizeof(sb) ? size : sizeof(sb));
	btrfs_validate_super(&sb, BTRFS_SUPER_INFO_OFFSET, NULL);
	if (pwrite(device_fd, &sb, sizeof(sb), BTRFS_SUPER_INFO_OFFSET) != sizeof(sb))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", device_fd);
	run_dump_super(path, size && (data[0] & 1));
	return 0;
}
