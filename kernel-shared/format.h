/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The btrfs on-disk format: our own definitions of every structure and
 * constant ghee reads or writes.  All integers on disk are little-endian;
 * the structures are packed and are only ever accessed through the helpers
 * in accessors.h, which convert byte order.  Each structure carries an
 * offset table and a static assertion of its size.
 */
#ifndef GHEE_FORMAT_H
#define GHEE_FORMAT_H

#include <stdint.h>
#include <stddef.h>
#include <assert.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef uint16_t le16;
typedef uint32_t le32;
typedef uint64_t le64;

#define BTRFS_MAGIC			0x4D5F53665248425FULL /* "_BHRfS_M" */
#define BTRFS_SUPER_INFO_OFFSET		65536ULL
#define BTRFS_SUPER_INFO_SIZE		4096
#define BTRFS_SUPER_MIRROR_MAX		3
#define BTRFS_SUPER_MIRROR_SHIFT	12
#define BTRFS_FSID_SIZE			16
#define BTRFS_UUID_SIZE			16
#define BTRFS_CSUM_SIZE			32
#define BTRFS_LABEL_SIZE		256
#define BTRFS_SYSTEM_CHUNK_ARRAY_SIZE	2048
#define BTRFS_NUM_BACKUP_ROOTS		4
#define BTRFS_MAX_LEVEL			8
#define BTRFS_NAME_LEN			255
#define BTRFS_LINK_MAX			65535U
#define BTRFS_STRIPE_LEN		65536ULL
#define BTRFS_MAX_METADATA_BLOCKSIZE	65536
#define BTRFS_MIN_BLOCKSIZE		4096
#define BTRFS_DEV_STAT_VALUES_MAX	5
#define BTRFS_INODE_ITEM_RESERVED	4

/* superblock mirror N lives at 16 KiB << (12 * N); mirror 0 is 64 KiB */
static inline u64 btrfs_sb_offset(int mirror)
{
	u64 start = 16ULL * 1024;

	if (mirror)
		return start << (BTRFS_SUPER_MIRROR_SHIFT * mirror);
	return BTRFS_SUPER_INFO_OFFSET;
}

/* checksum types */
#define BTRFS_CSUM_TYPE_CRC32		0
#define BTRFS_CSUM_TYPE_XXHASH		1
#define BTRFS_CSUM_TYPE_SHA256		2
#define BTRFS_CSUM_TYPE_BLAKE2		3

/* well-known object ids */
#define BTRFS_ROOT_TREE_OBJECTID	1ULL
#define BTRFS_EXTENT_TREE_OBJECTID	2ULL
#define BTRFS_CHUNK_TREE_OBJECTID	3ULL
#define BTRFS_DEV_TREE_OBJECTID		4ULL
#define BTRFS_FS_TREE_OBJECTID		5ULL
#define BTRFS_ROOT_TREE_DIR_OBJECTID	6ULL
#define BTRFS_CSUM_TREE_OBJECTID	7ULL
#define BTRFS_QUOTA_TREE_OBJECTID	8ULL
#define BTRFS_UUID_TREE_OBJECTID	9ULL
#define BTRFS_FREE_SPACE_TREE_OBJECTID	10ULL
#define BTRFS_BLOCK_GROUP_TREE_OBJECTID	11ULL
#define BTRFS_RAID_STRIPE_TREE_OBJECTID	12ULL
#define BTRFS_DEV_STATS_OBJECTID	0ULL
#define BTRFS_BALANCE_OBJECTID		((u64)-4)
#define BTRFS_ORPHAN_OBJECTID		((u64)-5)
#define BTRFS_TREE_LOG_OBJECTID		((u64)-6)
#define BTRFS_TREE_LOG_FIXUP_OBJECTID	((u64)-7)
#define BTRFS_TREE_RELOC_OBJECTID	((u64)-8)
#define BTRFS_DATA_RELOC_TREE_OBJECTID	((u64)-9)
#define BTRFS_EXTENT_CSUM_OBJECTID	((u64)-10)
#define BTRFS_FREE_SPACE_OBJECTID	((u64)-11)
#define BTRFS_FREE_INO_OBJECTID		((u64)-12)
#define BTRFS_MULTIPLE_OBJECTIDS	((u64)-255)
#define BTRFS_FIRST_FREE_OBJECTID	256ULL
#define BTRFS_LAST_FREE_OBJECTID	((u64)-256)
#define BTRFS_FIRST_CHUNK_TREE_OBJECTID	256ULL
#define BTRFS_DEV_ITEMS_OBJECTID	1ULL
#define BTRFS_EMPTY_SUBVOL_DIR_OBJECTID	2ULL
#define BTRFS_BTREE_INODE_OBJECTID	1ULL

/* key types */
#define BTRFS_INODE_ITEM_KEY		1
#define BTRFS_INODE_REF_KEY		12
#define BTRFS_INODE_EXTREF_KEY		13
#define BTRFS_XATTR_ITEM_KEY		24
#define BTRFS_VERITY_DESC_ITEM_KEY	36
#define BTRFS_VERITY_MERKLE_ITEM_KEY	37
#define BTRFS_ORPHAN_ITEM_KEY		48
#define BTRFS_DIR_LOG_ITEM_KEY		60
#define BTRFS_DIR_LOG_INDEX_KEY		72
#define BTRFS_DIR_ITEM_KEY		84
#define BTRFS_DIR_INDEX_KEY		96
#define BTRFS_EXTENT_DATA_KEY		108
#define BTRFS_CSUM_ITEM_KEY		120
#define BTRFS_EXTENT_CSUM_KEY		128
#define BTRFS_ROOT_ITEM_KEY		132
#define BTRFS_ROOT_BACKREF_KEY		144
#define BTRFS_ROOT_REF_KEY		156
#define BTRFS_EXTENT_ITEM_KEY		168
#define BTRFS_METADATA_ITEM_KEY		169
#define BTRFS_EXTENT_OWNER_REF_KEY	172
#define BTRFS_TREE_BLOCK_REF_KEY	176
#define BTRFS_EXTENT_DATA_REF_KEY	178
#define BTRFS_EXTENT_REF_V0_KEY		180
#define BTRFS_SHARED_BLOCK_REF_KEY	182
#define BTRFS_SHARED_DATA_REF_KEY	184
#define BTRFS_BLOCK_GROUP_ITEM_KEY	192
#define BTRFS_FREE_SPACE_INFO_KEY	198
#define BTRFS_FREE_SPACE_EXTENT_KEY	199
#define BTRFS_FREE_SPACE_BITMAP_KEY	200
#define BTRFS_DEV_EXTENT_KEY		204
#define BTRFS_DEV_ITEM_KEY		216
#define BTRFS_CHUNK_ITEM_KEY		228
#define BTRFS_RAID_STRIPE_KEY		230
#define BTRFS_QGROUP_STATUS_KEY		240
#define BTRFS_QGROUP_INFO_KEY		242
#define BTRFS_QGROUP_LIMIT_KEY		244
#define BTRFS_QGROUP_RELATION_KEY	246
#define BTRFS_TEMPORARY_ITEM_KEY	248
#define BTRFS_BALANCE_ITEM_KEY		BTRFS_TEMPORARY_ITEM_KEY
#define BTRFS_PERSISTENT_ITEM_KEY	249
#define BTRFS_DEV_STATS_KEY		BTRFS_PERSISTENT_ITEM_KEY
#define BTRFS_DEV_REPLACE_KEY		250
#define BTRFS_UUID_KEY_SUBVOL		251
#define BTRFS_UUID_KEY_RECEIVED_SUBVOL	252
#define BTRFS_STRING_ITEM_KEY		253

/* superblock flags */
#define BTRFS_HEADER_FLAG_WRITTEN		(1ULL << 0)
#define BTRFS_HEADER_FLAG_RELOC			(1ULL << 1)
#define BTRFS_SUPER_FLAG_ERROR			(1ULL << 2)
#define BTRFS_SUPER_FLAG_SEEDING		(1ULL << 32)
#define BTRFS_SUPER_FLAG_METADUMP		(1ULL << 33)
#define BTRFS_SUPER_FLAG_METADUMP_V2		(1ULL << 34)
#define BTRFS_SUPER_FLAG_CHANGING_FSID		(1ULL << 35)
#define BTRFS_SUPER_FLAG_CHANGING_FSID_V2	(1ULL << 36)
#define BTRFS_SUPER_FLAG_CHANGING_BG_TREE	(1ULL << 38)
#define BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM	(1ULL << 39)
#define BTRFS_SUPER_FLAG_CHANGING_META_CSUM	(1ULL << 40)

/* tree block header flags and backref revisions */
#define BTRFS_BACKREF_REV_SHIFT		56
#define BTRFS_BACKREF_REV_MASK		(0xffULL << BTRFS_BACKREF_REV_SHIFT)
#define BTRFS_OLD_BACKREF_REV		0
#define BTRFS_MIXED_BACKREF_REV		1

/* feature flags */
#define BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE		(1ULL << 0)
#define BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID	(1ULL << 1)
#define BTRFS_FEATURE_COMPAT_RO_VERITY			(1ULL << 2)
#define BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE	(1ULL << 3)

#define BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF		(1ULL << 0)
#define BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL		(1ULL << 1)
#define BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS		(1ULL << 2)
#define BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO		(1ULL << 3)
#define BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD		(1ULL << 4)
#define BTRFS_FEATURE_INCOMPAT_BIG_METADATA		(1ULL << 5)
#define BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF		(1ULL << 6)
#define BTRFS_FEATURE_INCOMPAT_RAID56			(1ULL << 7)
#define BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA		(1ULL << 8)
#define BTRFS_FEATURE_INCOMPAT_NO_HOLES			(1ULL << 9)
#define BTRFS_FEATURE_INCOMPAT_METADATA_UUID		(1ULL << 10)
#define BTRFS_FEATURE_INCOMPAT_RAID1C34			(1ULL << 11)
#define BTRFS_FEATURE_INCOMPAT_ZONED			(1ULL << 12)
#define BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2		(1ULL << 13)
#define BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE		(1ULL << 14)
#define BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA		(1ULL << 16)

/* block group / chunk type and profile flags */
#define BTRFS_BLOCK_GROUP_DATA		(1ULL << 0)
#define BTRFS_BLOCK_GROUP_SYSTEM	(1ULL << 1)
#define BTRFS_BLOCK_GROUP_METADATA	(1ULL << 2)
#define BTRFS_BLOCK_GROUP_RAID0		(1ULL << 3)
#define BTRFS_BLOCK_GROUP_RAID1		(1ULL << 4)
#define BTRFS_BLOCK_GROUP_DUP		(1ULL << 5)
#define BTRFS_BLOCK_GROUP_RAID10	(1ULL << 6)
#define BTRFS_BLOCK_GROUP_RAID5		(1ULL << 7)
#define BTRFS_BLOCK_GROUP_RAID6		(1ULL << 8)
#define BTRFS_BLOCK_GROUP_RAID1C3	(1ULL << 9)
#define BTRFS_BLOCK_GROUP_RAID1C4	(1ULL << 10)
#define BTRFS_AVAIL_ALLOC_BIT_SINGLE	(1ULL << 48)
#define BTRFS_SPACE_INFO_GLOBAL_RSV	(1ULL << 49)
#define BTRFS_BLOCK_GROUP_TYPE_MASK	(BTRFS_BLOCK_GROUP_DATA | \
					 BTRFS_BLOCK_GROUP_SYSTEM | \
					 BTRFS_BLOCK_GROUP_METADATA)
#define BTRFS_BLOCK_GROUP_PROFILE_MASK	(BTRFS_BLOCK_GROUP_RAID0 | \
					 BTRFS_BLOCK_GROUP_RAID1 | \
					 BTRFS_BLOCK_GROUP_DUP | \
					 BTRFS_BLOCK_GROUP_RAID10 | \
					 BTRFS_BLOCK_GROUP_RAID5 | \
					 BTRFS_BLOCK_GROUP_RAID6 | \
					 BTRFS_BLOCK_GROUP_RAID1C3 | \
					 BTRFS_BLOCK_GROUP_RAID1C4)

/* extent item flags */
#define BTRFS_EXTENT_FLAG_DATA		(1ULL << 0)
#define BTRFS_EXTENT_FLAG_TREE_BLOCK	(1ULL << 1)
#define BTRFS_BLOCK_FLAG_FULL_BACKREF	(1ULL << 8)

/* file extent types and compression */
#define BTRFS_FILE_EXTENT_INLINE	0
#define BTRFS_FILE_EXTENT_REG		1
#define BTRFS_FILE_EXTENT_PREALLOC	2
#define BTRFS_COMPRESS_NONE		0
#define BTRFS_COMPRESS_ZLIB		1
#define BTRFS_COMPRESS_LZO		2
#define BTRFS_COMPRESS_ZSTD		3

/* dir item types */
#define BTRFS_FT_UNKNOWN		0
#define BTRFS_FT_REG_FILE		1
#define BTRFS_FT_DIR			2
#define BTRFS_FT_CHRDEV			3
#define BTRFS_FT_BLKDEV			4
#define BTRFS_FT_FIFO			5
#define BTRFS_FT_SOCK			6
#define BTRFS_FT_SYMLINK		7
#define BTRFS_FT_XATTR			8
#define BTRFS_FT_MAX			9
#define BTRFS_FT_ENCRYPTED		0x80

/* inode flags */
#define BTRFS_INODE_NODATASUM		(1U << 0)
#define BTRFS_INODE_NODATACOW		(1U << 1)
#define BTRFS_INODE_READONLY		(1U << 2)
#define BTRFS_INODE_NOCOMPRESS		(1U << 3)
#define BTRFS_INODE_PREALLOC		(1U << 4)
#define BTRFS_INODE_SYNC		(1U << 5)
#define BTRFS_INODE_IMMUTABLE		(1U << 6)
#define BTRFS_INODE_APPEND		(1U << 7)
#define BTRFS_INODE_NODUMP		(1U << 8)
#define BTRFS_INODE_NOATIME		(1U << 9)
#define BTRFS_INODE_DIRSYNC		(1U << 10)
#define BTRFS_INODE_COMPRESS		(1U << 11)
#define BTRFS_INODE_ROOT_ITEM_INIT	(1U << 31)
#define BTRFS_INODE_RO_VERITY		(1U << 0)

/* root item flags */
#define BTRFS_ROOT_SUBVOL_RDONLY	(1ULL << 0)
#define BTRFS_ROOT_SUBVOL_DEAD		(1ULL << 48)

/* free space info flags */
#define BTRFS_FREE_SPACE_USING_BITMAPS	(1U << 0)

/* qgroup status flags */
#define BTRFS_QGROUP_STATUS_FLAG_ON		(1ULL << 0)
#define BTRFS_QGROUP_STATUS_FLAG_RESCAN		(1ULL << 1)
#define BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT	(1ULL << 2)
#define BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE	(1ULL << 3)
#define BTRFS_QGROUP_STATUS_VERSION		1

/* balance flags */
#define BTRFS_BALANCE_DATA		(1ULL << 0)
#define BTRFS_BALANCE_SYSTEM		(1ULL << 1)
#define BTRFS_BALANCE_METADATA		(1ULL << 2)

#define BTRFS_FREE_SPACE_EXTENT		1
#define BTRFS_FREE_SPACE_BITMAP		2

/*
 * struct btrfs_disk_key, 17 bytes
 *   0 objectid u64 | 8 type u8 | 9 offset u64
 */
struct btrfs_disk_key {
	le64 objectid;
	u8 type;
	le64 offset;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_disk_key) == 17, "disk key");

/* the CPU-order key used in memory */
struct btrfs_key {
	u64 objectid;
	u8 type;
	u64 offset;
};

/*
 * struct btrfs_header, 101 bytes: the start of every tree block
 *   0 csum[32] | 32 fsid[16] | 48 bytenr u64 | 56 flags u64
 *   64 chunk_tree_uuid[16] | 80 generation u64 | 88 owner u64
 *   96 nritems u32 | 100 level u8
 */
struct btrfs_header {
	u8 csum[BTRFS_CSUM_SIZE];
	u8 fsid[BTRFS_FSID_SIZE];
	le64 bytenr;
	le64 flags;
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	le64 generation;
	le64 owner;
	le32 nritems;
	u8 level;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_header) == 101, "header");

/*
 * struct btrfs_item, 25 bytes: leaf item header; data offset is relative
 * to the end of the block header
 *   0 key (17) | 17 offset u32 | 21 size u32
 */
struct btrfs_item {
	struct btrfs_disk_key key;
	le32 offset;
	le32 size;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_item) == 25, "item");

/*
 * struct btrfs_key_ptr, 33 bytes: node pointer
 *   0 key (17) | 17 blockptr u64 | 25 generation u64
 */
struct btrfs_key_ptr {
	struct btrfs_disk_key key;
	le64 blockptr;
	le64 generation;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_key_ptr) == 33, "key ptr");

/*
 * struct btrfs_dev_item, 98 bytes
 *   0 devid | 8 total_bytes | 16 bytes_used | 24 io_align u32
 *   28 io_width u32 | 32 sector_size u32 | 36 type u64 | 44 generation
 *   52 start_offset | 60 dev_group u32 | 64 seek_speed u8
 *   65 bandwidth u8 | 66 uuid[16] | 82 fsid[16]
 */
struct btrfs_dev_item {
	le64 devid;
	le64 total_bytes;
	le64 bytes_used;
	le32 io_align;
	le32 io_width;
	le32 sector_size;
	le64 type;
	le64 generation;
	le64 start_offset;
	le32 dev_group;
	u8 seek_speed;
	u8 bandwidth;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 fsid[BTRFS_UUID_SIZE];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_dev_item) == 98, "dev item");

/*
 * struct btrfs_stripe, 32 bytes
 *   0 devid | 8 offset | 16 dev_uuid[16]
 */
struct btrfs_stripe {
	le64 devid;
	le64 offset;
	u8 dev_uuid[BTRFS_UUID_SIZE];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_stripe) == 32, "stripe");

/*
 * struct btrfs_chunk, 48 bytes + num_stripes * 32
 *   0 length | 8 owner | 16 stripe_len | 24 type | 32 io_align u32
 *   36 io_width u32 | 40 sector_size u32 | 44 num_stripes u16
 *   46 sub_stripes u16 | 48 stripe[num_stripes]
 */
struct btrfs_chunk {
	le64 length;
	le64 owner;
	le64 stripe_len;
	le64 type;
	le32 io_align;
	le32 io_width;
	le32 sector_size;
	le16 num_stripes;
	le16 sub_stripes;
	struct btrfs_stripe stripe;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_chunk) == 80, "chunk");

static inline u32 btrfs_chunk_item_size(u32 num_stripes)
{
	return sizeof(struct btrfs_chunk) +
	       sizeof(struct btrfs_stripe) * (num_stripes ? num_stripes - 1 : 0);
}

/*
 * struct btrfs_root_backup, 168 bytes
 *   0 tree_root | 8 tree_root_gen | 16 chunk_root | 24 chunk_root_gen
 *   32 extent_root | 40 extent_root_gen | 48 fs_root | 56 fs_root_gen
 *   64 dev_root | 72 dev_root_gen | 80 csum_root | 88 csum_root_gen
 *   96 total_bytes | 104 bytes_used | 112 num_devices
 *   120 unused_64[4] | 152 tree_root_level u8 | 153 chunk_root_level
 *   154 extent_root_level | 155 fs_root_level | 156 dev_root_level
 *   157 csum_root_level | 158 unused_8[10]
 */
struct btrfs_root_backup {
	le64 tree_root;
	le64 tree_root_gen;
	le64 chunk_root;
	le64 chunk_root_gen;
	le64 extent_root;
	le64 extent_root_gen;
	le64 fs_root;
	le64 fs_root_gen;
	le64 dev_root;
	le64 dev_root_gen;
	le64 csum_root;
	le64 csum_root_gen;
	le64 total_bytes;
	le64 bytes_used;
	le64 num_devices;
	le64 unused_64[4];
	u8 tree_root_level;
	u8 chunk_root_level;
	u8 extent_root_level;
	u8 fs_root_level;
	u8 dev_root_level;
	u8 csum_root_level;
	u8 unused_8[10];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_root_backup) == 168, "root backup");

/*
 * struct btrfs_super_block, 4096 bytes
 *   0 csum[32] | 32 fsid[16] | 48 bytenr | 56 flags | 64 magic
 *   72 generation | 80 root | 88 chunk_root | 96 log_root
 *   104 log_root_transid (unused) | 112 total_bytes | 120 bytes_used
 *   128 root_dir_objectid | 136 num_devices | 144 sectorsize u32
 *   148 nodesize u32 | 152 leafsize u32 (unused) | 156 stripesize u32
 *   160 sys_chunk_array_size u32 | 164 chunk_root_generation
 *   172 compat_flags | 180 compat_ro_flags | 188 incompat_flags
 *   196 csum_type u16 | 198 root_level u8 | 199 chunk_root_level u8
 *   200 log_root_level u8 | 201 dev_item (98) | 299 label[256]
 *   555 cache_generation | 563 uuid_tree_generation
 *   571 metadata_uuid[16] | 587 nr_global_roots
 *   595 block_group_root | 603 block_group_root_generation
 *   611 block_group_root_level u8 | 612 reserved8[7]
 *   619 reserved[24] u64 | 811 sys_chunk_array[2048]
 *   2859 super_roots[4] (168 each) | 3531 padding[565]
 */
struct btrfs_super_block {
	u8 csum[BTRFS_CSUM_SIZE];
	u8 fsid[BTRFS_FSID_SIZE];
	le64 bytenr;
	le64 flags;
	le64 magic;
	le64 generation;
	le64 root;
	le64 chunk_root;
	le64 log_root;
	le64 log_root_transid;
	le64 total_bytes;
	le64 bytes_used;
	le64 root_dir_objectid;
	le64 num_devices;
	le32 sectorsize;
	le32 nodesize;
	le32 leafsize;
	le32 stripesize;
	le32 sys_chunk_array_size;
	le64 chunk_root_generation;
	le64 compat_flags;
	le64 compat_ro_flags;
	le64 incompat_flags;
	le16 csum_type;
	u8 root_level;
	u8 chunk_root_level;
	u8 log_root_level;
	struct btrfs_dev_item dev_item;
	char label[BTRFS_LABEL_SIZE];
	le64 cache_generation;
	le64 uuid_tree_generation;
	u8 metadata_uuid[BTRFS_FSID_SIZE];
	le64 nr_global_roots;
	le64 block_group_root;
	le64 block_group_root_generation;
	u8 block_group_root_level;
	u8 reserved8[7];
	le64 reserved[24];
	u8 sys_chunk_array[BTRFS_SYSTEM_CHUNK_ARRAY_SIZE];
	struct btrfs_root_backup super_roots[BTRFS_NUM_BACKUP_ROOTS];
	u8 padding[565];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_super_block) == 4096, "super");
static_assert(offsetof(struct btrfs_super_block, sys_chunk_array) == 811, "sys array");
static_assert(offsetof(struct btrfs_super_block, label) == 299, "label");

/*
 * struct btrfs_timespec, 12 bytes: 0 sec u64 | 8 nsec u32
 */
struct btrfs_timespec {
	le64 sec;
	le32 nsec;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_timespec) == 12, "timespec");

/*
 * struct btrfs_inode_item, 160 bytes
 *   0 generation | 8 transid | 16 size | 24 nbytes | 32 block_group
 *   40 nlink u32 | 44 uid u32 | 48 gid u32 | 52 mode u32 | 56 rdev
 *   64 flags | 72 sequence | 80 reserved[4] u64 | 112 atime | 124 ctime
 *   136 mtime | 148 otime
 */
struct btrfs_inode_item {
	le64 generation;
	le64 transid;
	le64 size;
	le64 nbytes;
	le64 block_group;
	le32 nlink;
	le32 uid;
	le32 gid;
	le32 mode;
	le64 rdev;
	le64 flags;
	le64 sequence;
	le64 reserved[BTRFS_INODE_ITEM_RESERVED];
	struct btrfs_timespec atime;
	struct btrfs_timespec ctime;
	struct btrfs_timespec mtime;
	struct btrfs_timespec otime;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_inode_item) == 160, "inode item");

/* struct btrfs_inode_ref, 10 bytes + name: 0 index u64 | 8 name_len u16 */
struct btrfs_inode_ref {
	le64 index;
	le16 name_len;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_inode_ref) == 10, "inode ref");

/*
 * struct btrfs_inode_extref, 18 bytes + name
 *   0 parent_objectid | 8 index | 16 name_len u16
 */
struct btrfs_inode_extref {
	le64 parent_objectid;
	le64 index;
	le16 name_len;
	u8 name[];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_inode_extref) == 18, "inode extref");

/*
 * struct btrfs_dir_item, 30 bytes + name + data
 *   0 location key (17) | 17 transid | 25 data_len u16 | 27 name_len u16
 *   29 type u8
 */
struct btrfs_dir_item {
	struct btrfs_disk_key location;
	le64 transid;
	le16 data_len;
	le16 name_len;
	u8 type;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_dir_item) == 30, "dir item");

/*
 * struct btrfs_root_item, 439 bytes (older filesystems store the first
 * 239 bytes only: up to and including "level")
 *   0 inode (160) | 160 generation | 168 root_dirid | 176 bytenr
 *   184 byte_limit | 192 bytes_used | 200 last_snapshot | 208 flags
 *   216 refs u32 | 220 drop_progress key (17) | 237 drop_level u8
 *   238 level u8 | 239 generation_v2 | 247 uuid[16] | 263 parent_uuid[16]
 *   279 received_uuid[16] | 295 ctransid | 303 otransid | 311 stransid
 *   319 rtransid | 327 ctime | 339 otime | 351 stime | 363 rtime
 *   375 reserved[8] u64
 */
struct btrfs_root_item {
	struct btrfs_inode_item inode;
	le64 generation;
	le64 root_dirid;
	le64 bytenr;
	le64 byte_limit;
	le64 bytes_used;
	le64 last_snapshot;
	le64 flags;
	le32 refs;
	struct btrfs_disk_key drop_progress;
	u8 drop_level;
	u8 level;
	le64 generation_v2;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 parent_uuid[BTRFS_UUID_SIZE];
	u8 received_uuid[BTRFS_UUID_SIZE];
	le64 ctransid;
	le64 otransid;
	le64 stransid;
	le64 rtransid;
	struct btrfs_timespec ctime;
	struct btrfs_timespec otime;
	struct btrfs_timespec stime;
	struct btrfs_timespec rtime;
	le64 reserved[8];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_root_item) == 439, "root item");
#define BTRFS_ROOT_ITEM_V1_SIZE offsetof(struct btrfs_root_item, generation_v2)

/* struct btrfs_root_ref, 18 bytes + name: 0 dirid | 8 sequence | 16 name_len */
struct btrfs_root_ref {
	le64 dirid;
	le64 sequence;
	le16 name_len;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_root_ref) == 18, "root ref");

/*
 * struct btrfs_file_extent_item, 53 bytes (inline extents: the first 21
 * bytes, then the data)
 *   0 generation | 8 ram_bytes | 16 compression u8 | 17 encryption u8
 *   18 other_encoding u16 | 20 type u8 | 21 disk_bytenr
 *   29 disk_num_bytes | 37 offset | 45 num_bytes
 */
struct btrfs_file_extent_item {
	le64 generation;
	le64 ram_bytes;
	u8 compression;
	u8 encryption;
	le16 other_encoding;
	u8 type;
	le64 disk_bytenr;
	le64 disk_num_bytes;
	le64 offset;
	le64 num_bytes;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_file_extent_item) == 53, "file extent");
#define BTRFS_FILE_EXTENT_INLINE_DATA_START \
	offsetof(struct btrfs_file_extent_item, disk_bytenr)

/* struct btrfs_extent_item, 24 bytes: 0 refs | 8 generation | 16 flags */
struct btrfs_extent_item {
	le64 refs;
	le64 generation;
	le64 flags;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_extent_item) == 24, "extent item");

/* struct btrfs_extent_item_v0, 4 bytes: 0 refs u32 */
struct btrfs_extent_item_v0 {
	le32 refs;
} __attribute__((packed));

/* struct btrfs_tree_block_info, 18 bytes: 0 key (17) | 17 level u8 */
struct btrfs_tree_block_info {
	struct btrfs_disk_key key;
	u8 level;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_tree_block_info) == 18, "tree block info");

/* struct btrfs_extent_inline_ref, 9 bytes: 0 type u8 | 1 offset u64 */
struct btrfs_extent_inline_ref {
	u8 type;
	le64 offset;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_extent_inline_ref) == 9, "inline ref");

/*
 * struct btrfs_extent_data_ref, 28 bytes
 *   0 root | 8 objectid | 16 offset | 24 count u32
 */
struct btrfs_extent_data_ref {
	le64 root;
	le64 objectid;
	le64 offset;
	le32 count;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_extent_data_ref) == 28, "data ref");

/* struct btrfs_shared_data_ref, 4 bytes: 0 count u32 */
struct btrfs_shared_data_ref {
	le32 count;
} __attribute__((packed));

/* struct btrfs_extent_owner_ref, 8 bytes: 0 root_id */
struct btrfs_extent_owner_ref {
	le64 root_id;
} __attribute__((packed));

/*
 * struct btrfs_extent_ref_v0, 28 bytes (legacy)
 *   0 root | 8 generation | 16 objectid | 24 count u32
 */
struct btrfs_extent_ref_v0 {
	le64 root;
	le64 generation;
	le64 objectid;
	le32 count;
} __attribute__((packed));

/* struct btrfs_block_group_item, 24 bytes: 0 used | 8 chunk_objectid | 16 flags */
struct btrfs_block_group_item {
	le64 used;
	le64 chunk_objectid;
	le64 flags;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_block_group_item) == 24, "bg item");

/* struct btrfs_free_space_info, 8 bytes: 0 extent_count u32 | 4 flags u32 */
struct btrfs_free_space_info {
	le32 extent_count;
	le32 flags;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_free_space_info) == 8, "fs info");

/*
 * struct btrfs_dev_extent, 48 bytes
 *   0 chunk_tree | 8 chunk_objectid | 16 chunk_offset | 24 length
 *   32 chunk_tree_uuid[16]
 */
struct btrfs_dev_extent {
	le64 chunk_tree;
	le64 chunk_objectid;
	le64 chunk_offset;
	le64 length;
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_dev_extent) == 48, "dev extent");

/*
 * struct btrfs_free_space_header, 41 bytes (v1 cache, in the root tree)
 *   0 location key (17) | 17 generation | 25 num_entries | 33 num_bitmaps
 */
struct btrfs_free_space_header {
	struct btrfs_disk_key location;
	le64 generation;
	le64 num_entries;
	le64 num_bitmaps;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_free_space_header) == 41, "fsc header");

/*
 * struct btrfs_free_space_entry, 17 bytes (v1 cache data)
 *   0 offset | 8 bytes | 16 type u8
 */
struct btrfs_free_space_entry {
	le64 offset;
	le64 bytes;
	u8 type;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_free_space_entry) == 17, "fsc entry");

/*
 * struct btrfs_qgroup_status_item, 40 bytes (older: 32)
 *   0 version | 8 generation | 16 flags | 24 rescan | 32 enable_gen
 */
struct btrfs_qgroup_status_item {
	le64 version;
	le64 generation;
	le64 flags;
	le64 rescan;
	le64 enable_gen;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_qgroup_status_item) == 40, "qg status");

/*
 * struct btrfs_qgroup_info_item, 40 bytes
 *   0 generation | 8 rfer | 16 rfer_cmpr | 24 excl | 32 excl_cmpr
 */
struct btrfs_qgroup_info_item {
	le64 generation;
	le64 rfer;
	le64 rfer_cmpr;
	le64 excl;
	le64 excl_cmpr;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_qgroup_info_item) == 40, "qg info");

/*
 * struct btrfs_qgroup_limit_item, 40 bytes
 *   0 flags | 8 max_rfer | 16 max_excl | 24 rsv_rfer | 32 rsv_excl
 */
struct btrfs_qgroup_limit_item {
	le64 flags;
	le64 max_rfer;
	le64 max_excl;
	le64 rsv_rfer;
	le64 rsv_excl;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_qgroup_limit_item) == 40, "qg limit");

/*
 * struct btrfs_disk_balance_args, 136 bytes
 *   0 profiles | 8 usage (or usage_min u32, usage_max u32) | 16 devid
 *   24 pstart | 32 pend | 40 vstart | 48 vend | 56 target | 64 flags
 *   72 limit (or limit_min u32, limit_max u32) | 80 stripes_min u32
 *   84 stripes_max u32 | 88 unused[6] u64
 */
struct btrfs_disk_balance_args {
	le64 profiles;
	union {
		le64 usage;
		struct {
			le32 usage_min;
			le32 usage_max;
		} __attribute__((packed));
	} __attribute__((packed));
	le64 devid;
	le64 pstart;
	le64 pend;
	le64 vstart;
	le64 vend;
	le64 target;
	le64 flags;
	union {
		le64 limit;
		struct {
			le32 limit_min;
			le32 limit_max;
		} __attribute__((packed));
	} __attribute__((packed));
	le32 stripes_min;
	le32 stripes_max;
	le64 unused[6];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_disk_balance_args) == 136, "balance args");

/*
 * struct btrfs_balance_item, 536 bytes
 *   0 flags | 8 data args (136) | 144 meta args | 280 sys args
 *   416 unused[4] u64
 */
struct btrfs_balance_item {
	le64 flags;
	struct btrfs_disk_balance_args data;
	struct btrfs_disk_balance_args meta;
	struct btrfs_disk_balance_args sys;
	le64 unused[4];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_balance_item) == 448, "balance item");

/*
 * struct btrfs_dev_stats_item, 40 bytes: values[5] u64
 * (write_errs, read_errs, flush_errs, corruption_errs, generation_errs)
 */
struct btrfs_dev_stats_item {
	le64 values[BTRFS_DEV_STAT_VALUES_MAX];
} __attribute__((packed));
static_assert(sizeof(struct btrfs_dev_stats_item) == 40, "dev stats");

/*
 * struct btrfs_dev_replace_item
 *   0 src_devid | 8 cursor_left | 16 cursor_right
 *   24 cont_reading_from_srcdev_mode | 32 replace_state | 40 time_started
 *   48 time_stopped | 56 num_write_errors | 64 num_uncorrectable_read_errors
 *   (72 bytes)
 */
struct btrfs_dev_replace_item {
	le64 src_devid;
	le64 cursor_left;
	le64 cursor_right;
	le64 cont_reading_from_srcdev_mode;
	le64 replace_state;
	le64 time_started;
	le64 time_stopped;
	le64 num_write_errors;
	le64 num_uncorrectable_read_errors;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_dev_replace_item) == 72, "dev replace");

/* struct btrfs_verity_descriptor_item, 25 bytes: 0 size | 8 reserved[2] | 24 encryption */
struct btrfs_verity_descriptor_item {
	le64 size;
	le64 reserved[2];
	u8 encryption;
} __attribute__((packed));
static_assert(sizeof(struct btrfs_verity_descriptor_item) == 25, "verity desc");

/* struct btrfs_dir_log_item, 8 bytes: 0 end */
struct btrfs_dir_log_item {
	le64 end;
} __attribute__((packed));

/* the first byte of leaf/node item space */
static inline u32 btrfs_leaf_data_size(u32 nodesize)
{
	return nodesize - sizeof(struct btrfs_header);
}

static inline u32 btrfs_max_node_ptrs(u32 nodesize)
{
	return btrfs_leaf_data_size(nodesize) / sizeof(struct btrfs_key_ptr);
}

#endif
