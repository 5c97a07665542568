/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Undo files: before a writer (check --repair --undo FILE) overwrites a
 * byte of a device, the old content is appended to the undo file (once
 * per byte) and synced; `ghee undo FILE DEVICE...` writes it back.
 *
 * Format, little-endian:
 *   header   "GHEEUNDO" | u32 version (1) | u32 nr_devices | fsid[16] |
 *            per device: u64 devid | u64 generation | csum[32]
 *            (the primary superblock before the repair)
 *   records  u32 "REC1" | u32 len | u64 devid | u64 physical |
 *            u32 crc32c(data) | u32 0 | data[len]
 *   trailer  u32 "END1" | u32 nr_devices |
 *            per device: u64 devid | u64 generation | csum[32]
 *            (the primary superblock the repair left) | u32 crc32c
 * The trailer is written when the repair finished; undo refuses a device
 * whose superblock is no longer the one the trailer names.
 */
#ifndef GHEE_UNDO_H
#define GHEE_UNDO_H

struct btrfs_fs_info;
struct undo_writer;

/* create @path and hook every later device write of @fs_info */
int undo_writer_open(struct undo_writer **u, const char *path,
		     struct btrfs_fs_info *fs_info);
/*
 * Write the trailer (the superblocks now on the devices, whether the
 * repair finished or failed half-way) and close; a file that saved
 * nothing (nothing was written) is removed.  Unhooks the writes.
 */
int undo_writer_finish(struct undo_writer *u, struct btrfs_fs_info *fs_info);

int cmd_undo(int argc, char **argv);

#endif
