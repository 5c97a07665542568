// SPDX-License-Identifier: GPL-2.0
/*
 * The four btrfs checksum types.  Each digest is written the way btrfs
 * stores it in a csum field: crc32c as the inverted CRC (seed ~0) and
 * xxhash64 (seed 0) both little-endian, sha256 and blake2b-256 (unkeyed)
 * as their byte strings.  The rest of the BTRFS_CSUM_SIZE field is zero.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sodium.h>
#include <xxhash.h>
#include "csum.h"
#include "crc32c.h"

struct csum_type_desc {
	const char *name;
	u32 size;
};

static const struct csum_type_desc csum_types[] = {
	[BTRFS_CSUM_TYPE_CRC32] = { "crc32c", 4 },
	[BTRFS_CSUM_TYPE_XXHASH] = { "xxhash64", 8 },
	[BTRFS_CSUM_TYPE_SHA256] = { "sha256", 32 },
	[BTRFS_CSUM_TYPE_BLAKE2] = { "blake2", 32 },
};

/* libsodium must be initialised once before its hashes are used */
static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_status;

static void csum_sodium_init(void)
{
	sodium_status = sodium_init() < 0 ? -EIO : 0;
}

bool btrfs_csum_type_valid(u16 type)
{
	return type < sizeof(csum_types) / sizeof(csum_types[0]);
}

u32 btrfs_csum_type_size(u16 type)
{
	return btrfs_csum_type_valid(type) ? csum_types[type].size : 0;
}

const char *btrfs_csum_type_name(u16 type)
{
	return btrfs_csum_type_valid(type) ? csum_types[type].name : "INVALID";
}

static void put_le32(u8 *out, u32 v)
{
	int i;

	for (i = 0; i < 4; i++)
		out[i] = (u8)(v >> (8 * i));
}

static void put_le64(u8 *out, u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		out[i] = (u8)(v >> (8 * i));
}

static int csum_sodium(u16 type, const void *data, size_t len, u8 *out)
{
	pthread_once(&sodium_once, csum_sodium_init);
	if (sodium_status)
		return sodium_status;
	if (type == BTRFS_CSUM_TYPE_SHA256)
		return crypto_hash_sha256(out, data, len) ? -EIO : 0;
	return crypto_generichash(out, 32, data, len, NULL, 0) ? -EIO : 0;
}

int btrfs_csum_data(u16 type, const void *data, size_t len, u8 *out)
{
	memset(out, 0, BTRFS_CSUM_SIZE);
	switch (type) {
	case BTRFS_CSUM_TYPE_CRC32:
		put_le32(out, crc32c_value(data, len));
		return 0;
	case BTRFS_CSUM_TYPE_XXHASH:
		put_le64(out, XXH64(data, len, 0));
		return 0;
	case BTRFS_CSUM_TYPE_SHA256:
	case BTRFS_CSUM_TYPE_BLAKE2:
		return csum_sodium(type, data, len, out);
	default:
		return -EINVAL;
	}
}
