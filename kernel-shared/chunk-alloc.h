/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunk allocation: device extents for every profile (single, DUP,
 * RAID0, RAID1, RAID1C3, RAID1C4, RAID10; RAID5/6 are refused), the
 * chunk map entry, the in-memory block group.  The chunk item (and for
 * system chunks the sys_chunk_array entry), the device extents, the
 * device items' bytes_used and the block group item are written at
 * commit, so a chunk can be allocated anywhere, even while the trees are
 * being created or searched.
 */
#ifndef GHEE_CHUNK_ALLOC_H
#define GHEE_CHUNK_ALLOC_H

#include "format.h"
#include "disk-io.h"
#include "volumes.h"

struct btrfs_trans_handle;

struct btrfs_chunk_request {
	u64 type;		/* one type bit (or DATA|METADATA) | one profile bit */
	/*
	 * bytes of each device stripe; 0 chooses like mkfs.btrfs 6.2 /
	 * btrfs-progs: see btrfs_default_stripe_size()
	 */
	u64 stripe_size;
	/* logical start; 0: right after the last chunk (at least 1 MiB) */
	u64 logical;
	/* devices to stripe over; 0: as many as the profile can use */
	int nr_devs;
	/* per device lowest physical offset to use; 0: 1 MiB */
	u64 min_physical;
	/*
	 * the same for the first device only, when higher (mkfs leaves the
	 * place of mkfs.btrfs's bootstrap chunks there, see cmds/mkfs)
	 */
	u64 first_dev_min_physical;
};

/* the chunk map entry of a new chunk is created in memory at once */
int btrfs_alloc_chunk(struct btrfs_trans_handle *trans,
		      const struct btrfs_chunk_request *req,
		      u64 *start_ret, u64 *length_ret);

/*
 * Same, usable before any tree exists (creating a filesystem): no
 * transaction is needed, the items are inserted at the first commit.
 */
int btrfs_alloc_chunk_nolock(struct btrfs_fs_info *fs_info,
			     const struct btrfs_chunk_request *req,
			     u64 *start_ret, u64 *length_ret);

/* insert chunk items and device extents of pending chunks */
int btrfs_finish_pending_chunks(struct btrfs_trans_handle *trans);
bool btrfs_have_pending_chunks(const struct btrfs_fs_info *fs_info);
void btrfs_free_pending_chunks(struct btrfs_fs_info *fs_info);

/* write the device items whose bytes_used changed, or that are new */
int btrfs_update_device_items(struct btrfs_trans_handle *trans);
bool btrfs_device_items_dirty(const struct btrfs_fs_info *fs_info);

/* the chunk item of a mapped chunk (btrfs_chunk_item_size(num_stripes) bytes) */
void btrfs_fill_chunk_item(const struct btrfs_fs_info *fs_info,
			   const struct map_lookup *ml, struct btrfs_chunk *chunk);

/* the superblock's sys_chunk_array from the system chunks of the chunk map */
int btrfs_rebuild_sys_array(struct btrfs_fs_info *fs_info);

/*
 * Default stripe size for a new chunk of @type on this filesystem, the
 * way btrfs-progs sizes them: capped by 10% of the filesystem and by the
 * per-type maximum, rounded down to 64 KiB (BTRFS_STRIPE_LEN).
 */
u64 btrfs_default_stripe_size(struct btrfs_fs_info *fs_info, u64 type,
			      int nr_devs);

/* how many devices (min, max) a profile stripes over; -EINVAL if refused */
int btrfs_profile_devs(u64 profile, int nr_devices, int *min, int *max,
		       int *copies, int *sub_stripes);

/* physical bytes one device stripe of a chunk occupies */
u64 btrfs_chunk_stripe_size(u64 type, u64 length, int num_stripes,
			    int sub_stripes);

/* free bytes left on a device for new chunks */
u64 btrfs_device_free_bytes(struct btrfs_fs_info *fs_info, u64 devid);

/* repair: set each device item's bytes_used to its chunks' stripes */
/*
 * Every device's size becomes the end of its last device extent (mkfs
 * --shrink): device items and the superblock's total_bytes, at the next
 * commit.  The caller truncates image files after the commit.
 */
int btrfs_shrink_devices_to_used(struct btrfs_fs_info *fs_info);

int btrfs_recalc_device_bytes_used(struct btrfs_fs_info *fs_info, int *nr_changed);

/* device allocation bookkeeping (loaded from the chunk map) */
int btrfs_load_dev_allocs(struct btrfs_fs_info *fs_info);
void btrfs_free_dev_allocs(struct btrfs_fs_info *fs_info);

#endif
