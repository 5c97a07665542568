/* SPDX-License-Identifier: GPL-2.0 */
/* Checksums of tree blocks, superblocks and data: all four btrfs types. */
#ifndef GHEE_CSUM_H
#define GHEE_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

/* true for a csum type this build knows */
bool btrfs_csum_type_valid(u16 type);
/* digest size in bytes (4, 8, 32, 32); 0 for an unknown type */
u32 btrfs_csum_type_size(u16 type);
/* names as btrfs-progs prints them: "crc32c", "xxhash64", "sha256", "blake2"; "INVALID" for an unknown type */
const char *btrfs_csum_type_name(u16 type);
/*
 * Digest of @len bytes at @data into @out (BTRFS_CSUM_SIZE bytes, the
 * unused tail zeroed).  Returns -EINVAL for an unknown type.
 */
int btrfs_csum_data(u16 type, const void *data, size_t len, u8 *out);

#endif
