/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian getters and setters for on-disk fields.
 *
 * Every structure in format.h is packed, and tree blocks live in one
 * contiguous buffer (extent_io.h), so a field is a plain unaligned load at
 * an offset: btrfs_<struct>_<field>(ptr) and btrfs_set_<struct>_<field>().
 * Callers must have checked that the structure lies inside its buffer.
 */
#ifndef GHEE_ACCESSORS_H
#define GHEE_ACCESSORS_H

#include <endian.h>
#include <string.h>
#include "format.h"

#define le8toh(x) (x)
#define htole8(x) (x)

#define BTRFS_SETGET(name, type, member, bits)				\
static inline u##bits btrfs_##name(const type *s)			\
{									\
	return le##bits##toh(s->member);				\
}									\
static inline void btrfs_set_##name(type *s, u##bits val)		\
{									\
	s->member = htole##bits(val);					\
}

/* disk key */
BTRFS_SETGET(disk_key_objectid, struct btrfs_disk_key, objectid, 64)
BTRFS_SETGET(disk_key_type, struct btrfs_disk_key, type, 8)
BTRFS_SETGET(disk_key_offset, struct btrfs_disk_key, offset, 64)

static inline void btrfs_disk_key_to_cpu(struct btrfs_key *cpu,
					 const struct btrfs_disk_key *disk)
{
	cpu->objectid = btrfs_disk_key_objectid(disk);
	cpu->type = btrfs_disk_key_type(disk);
	cpu->offset = btrfs_disk_key_offset(disk);
}

static inline void btrfs_cpu_key_to_disk(struct btrfs_disk_key *disk,
					 const struct btrfs_key *cpu)
{
	btrfs_set_disk_key_objectid(disk, cpu->objectid);
	btrfs_set_disk_key_type(disk, cpu->type);
	btrfs_set_disk_key_offset(disk, cpu->offset);
}

static inline int btrfs_comp_cpu_keys(const struct btrfs_key *a,
				      const struct btrfs_key *b)
{
	if (a->objectid != b->objectid)
		return a->objectid < b->objectid ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

/* header */
BTRFS_SETGET(header_bytenr, struct btrfs_header, bytenr, 64)
BTRFS_SETGET(header_flags, struct btrfs_header, flags, 64)
BTRFS_SETGET(header_generation, struct btrfs_header, generation, 64)
BTRFS_SETGET(header_owner, struct btrfs_header, owner, 64)
BTRFS_SETGET(header_nritems, struct btrfs_header, nritems, 32)
BTRFS_SETGET(header_level, struct btrfs_header, level, 8)

static inline u64 btrfs_header_backref_rev(const struct btrfs_header *h)
{
	return btrfs_header_flags(h) >> BTRFS_BACKREF_REV_SHIFT;
}

/* item and key pointer */
BTRFS_SETGET(raw_item_offset, struct btrfs_item, offset, 32)
BTRFS_SETGET(raw_item_size, struct btrfs_item, size, 32)
BTRFS_SETGET(key_blockptr, struct btrfs_key_ptr, blockptr, 64)
BTRFS_SETGET(key_generation, struct btrfs_key_ptr, generation, 64)

/* device item */
BTRFS_SETGET(device_id, struct btrfs_dev_item, devid, 64)
BTRFS_SETGET(device_total_bytes, struct btrfs_dev_item, total_bytes, 64)
BTRFS_SETGET(device_bytes_used, struct btrfs_dev_item, bytes_used, 64)
BTRFS_SETGET(device_io_align, struct btrfs_dev_item, io_align, 32)
BTRFS_SETGET(device_io_width, struct btrfs_dev_item, io_width, 32)
BTRFS_SETGET(device_sector_size, struct btrfs_dev_item, sector_size, 32)
BTRFS_SETGET(device_type, struct btrfs_dev_item, type, 64)
BTRFS_SETGET(device_generation, struct btrfs_dev_item, generation, 64)
BTRFS_SETGET(device_start_offset, struct btrfs_dev_item, start_offset, 64)
BTRFS_SETGET(device_group, struct btrfs_dev_item, dev_group, 32)
BTRFS_SETGET(device_seek_speed, struct btrfs_dev_item, seek_speed, 8)
BTRFS_SETGET(device_bandwidth, struct btrfs_dev_item, bandwidth, 8)

/* stripe and chunk */
BTRFS_SETGET(stripe_devid, struct btrfs_stripe, devid, 64)
BTRFS_SETGET(stripe_offset, struct btrfs_stripe, offset, 64)
BTRFS_SETGET(chunk_length, struct btrfs_chunk, length, 64)
BTRFS_SETGET(chunk_owner, struct btrfs_chunk, owner, 64)
BTRFS_SETGET(chunk_stripe_len, struct btrfs_chunk, stripe_len, 64)
BTRFS_SETGET(chunk_type, struct btrfs_chunk, type, 64)
BTRFS_SETGET(chunk_io_align, struct btrfs_chunk, io_align, 32)
BTRFS_SETGET(chunk_io_width, struct btrfs_chunk, io_width, 32)
BTRFS_SETGET(chunk_sector_size, struct btrfs_chunk, sector_size, 32)
BTRFS_SETGET(chunk_num_stripes, struct btrfs_chunk, num_stripes, 16)
BTRFS_SETGET(chunk_sub_stripes, struct btrfs_chunk, sub_stripes, 16)

static inline struct btrfs_stripe *btrfs_chunk_stripe(const struct btrfs_chunk *c,
						      int nr)
{
	return (struct btrfs_stripe *)((u8 *)&c->stripe +
				       nr * sizeof(struct btrfs_stripe));
}

/* backup roots */
BTRFS_SETGET(backup_tree_root, struct btrfs_root_backup, tree_root, 64)
BTRFS_SETGET(backup_tree_root_gen, struct btrfs_root_backup, tree_root_gen, 64)
BTRFS_SETGET(backup_tree_root_level, struct btrfs_root_backup, tree_root_level, 8)
BTRFS_SETGET(backup_chunk_root, struct btrfs_root_backup, chunk_root, 64)
BTRFS_SETGET(backup_chunk_root_gen, struct btrfs_root_backup, chunk_root_gen, 64)
BTRFS_SETGET(backup_chunk_root_level, struct btrfs_root_backup, chunk_root_level, 8)
BTRFS_SETGET(backup_extent_root, struct btrfs_root_backup, extent_root, 64)
BTRFS_SETGET(backup_extent_root_gen, struct btrfs_root_backup, extent_root_gen, 64)
BTRFS_SETGET(backup_extent_root_level, struct btrfs_root_backup, extent_root_level, 8)
BTRFS_SETGET(backup_fs_root, struct btrfs_root_backup, fs_root, 64)
BTRFS_SETGET(backup_fs_root_gen, struct btrfs_root_backup, fs_root_gen, 64)
BTRFS_SETGET(backup_fs_root_level, struct btrfs_root_backup, fs_root_level, 8)
BTRFS_SETGET(backup_dev_root, struct btrfs_root_backup, dev_root, 64)
BTRFS_SETGET(backup_dev_root_gen, struct btrfs_root_backup, dev_root_gen, 64)
BTRFS_SETGET(backup_dev_root_level, struct btrfs_root_backup, dev_root_level, 8)
BTRFS_SETGET(backup_csum_root, struct btrfs_root_backup, csum_root, 64)
BTRFS_SETGET(backup_csum_root_gen, struct btrfs_root_backup, csum_root_gen, 64)
BTRFS_SETGET(backup_csum_root_level, struct btrfs_root_backup, csum_root_level, 8)
BTRFS_SETGET(backup_total_bytes, struct btrfs_root_backup, total_bytes, 64)
BTRFS_SETGET(backup_bytes_used, struct btrfs_root_backup, bytes_used, 64)
BTRFS_SETGET(backup_num_devices, struct btrfs_root_backup, num_devices, 64)

/* superblock */
BTRFS_SETGET(super_bytenr, struct btrfs_super_block, bytenr, 64)
BTRFS_SETGET(super_flags, struct btrfs_super_block, flags, 64)
BTRFS_SETGET(super_magic, struct btrfs_super_block, magic, 64)
BTRFS_SETGET(super_generation, struct btrfs_super_block, generation, 64)
BTRFS_SETGET(super_root, struct btrfs_super_block, root, 64)
BTRFS_SETGET(super_chunk_root, struct btrfs_super_block, chunk_root, 64)
BTRFS_SETGET(super_log_root, struct btrfs_super_block, log_root, 64)
BTRFS_SETGET(super_log_root_transid, struct btrfs_super_block, log_root_transid, 64)
BTRFS_SETGET(super_total_bytes, struct btrfs_super_block, total_bytes, 64)
BTRFS_SETGET(super_bytes_used, struct btrfs_super_block, bytes_used, 64)
BTRFS_SETGET(super_root_dir, struct btrfs_super_block, root_dir_objectid, 64)
BTRFS_SETGET(super_num_devices, struct btrfs_super_block, num_devices, 64)
BTRFS_SETGET(super_sectorsize, struct btrfs_super_block, sectorsize, 32)
BTRFS_SETGET(super_nodesize, struct btrfs_super_block, nodesize, 32)
BTRFS_SETGET(super_leafsize, struct btrfs_super_block, leafsize, 32)
BTRFS_SETGET(super_stripesize, struct btrfs_super_block, stripesize, 32)
BTRFS_SETGET(super_sys_array_size, struct btrfs_super_block, sys_chunk_array_size, 32)
BTRFS_SETGET(super_chunk_root_generation, struct btrfs_super_block, chunk_root_generation, 64)
BTRFS_SETGET(super_compat_flags, struct btrfs_super_block, compat_flags, 64)
BTRFS_SETGET(super_compat_ro_flags, struct btrfs_super_block, compat_ro_flags, 64)
BTRFS_SETGET(super_incompat_flags, struct btrfs_super_block, incompat_flags, 64)
BTRFS_SETGET(super_csum_type, struct btrfs_super_block, csum_type, 16)
BTRFS_SETGET(super_root_level, struct btrfs_super_block, root_level, 8)
BTRFS_SETGET(super_chunk_root_level, struct btrfs_super_block, chunk_root_level, 8)
BTRFS_SETGET(super_log_root_level, struct btrfs_super_block, log_root_level, 8)
BTRFS_SETGET(super_cache_generation, struct btrfs_super_block, cache_generation, 64)
BTRFS_SETGET(super_uuid_tree_generation, struct btrfs_super_block, uuid_tree_generation, 64)
BTRFS_SETGET(super_nr_global_roots, struct btrfs_super_block, nr_global_roots, 64)
BTRFS_SETGET(super_block_group_root, struct btrfs_super_block, block_group_root, 64)
BTRFS_SETGET(super_block_group_root_generation, struct btrfs_super_block, block_group_root_generation, 64)
BTRFS_SETGET(super_block_group_root_level, struct btrfs_super_block, block_group_root_level, 8)

/* timespec */
BTRFS_SETGET(timespec_sec, struct btrfs_timespec, sec, 64)
BTRFS_SETGET(timespec_nsec, struct btrfs_timespec, nsec, 32)

/* inode item */
BTRFS_SETGET(inode_generation, struct btrfs_inode_item, generation, 64)
BTRFS_SETGET(inode_transid, struct btrfs_inode_item, transid, 64)
BTRFS_SETGET(inode_size, struct btrfs_inode_item, size, 64)
BTRFS_SETGET(inode_nbytes, struct btrfs_inode_item, nbytes, 64)
BTRFS_SETGET(inode_block_group, struct btrfs_inode_item, block_group, 64)
BTRFS_SETGET(inode_nlink, struct btrfs_inode_item, nlink, 32)
BTRFS_SETGET(inode_uid, struct btrfs_inode_item, uid, 32)
BTRFS_SETGET(inode_gid, struct btrfs_inode_item, gid, 32)
BTRFS_SETGET(inode_mode, struct btrfs_inode_item, mode, 32)
BTRFS_SETGET(inode_rdev, struct btrfs_inode_item, rdev, 64)
BTRFS_SETGET(inode_flags, struct btrfs_inode_item, flags, 64)
BTRFS_SETGET(inode_sequence, struct btrfs_inode_item, sequence, 64)

/* inode ref / extref */
BTRFS_SETGET(inode_ref_index, struct btrfs_inode_ref, index, 64)
BTRFS_SETGET(inode_ref_name_len, struct btrfs_inode_ref, name_len, 16)
BTRFS_SETGET(inode_extref_parent, struct btrfs_inode_extref, parent_objectid, 64)
BTRFS_SETGET(inode_extref_index, struct btrfs_inode_extref, index, 64)
BTRFS_SETGET(inode_extref_name_len, struct btrfs_inode_extref, name_len, 16)

/* dir item */
BTRFS_SETGET(dir_transid, struct btrfs_dir_item, transid, 64)
BTRFS_SETGET(dir_data_len, struct btrfs_dir_item, data_len, 16)
BTRFS_SETGET(dir_name_len, struct btrfs_dir_item, name_len, 16)
BTRFS_SETGET(dir_type, struct btrfs_dir_item, type, 8)

/* root item */
BTRFS_SETGET(root_generation, struct btrfs_root_item, generation, 64)
BTRFS_SETGET(root_dirid, struct btrfs_root_item, root_dirid, 64)
BTRFS_SETGET(root_bytenr, struct btrfs_root_item, bytenr, 64)
BTRFS_SETGET(root_byte_limit, struct btrfs_root_item, byte_limit, 64)
BTRFS_SETGET(root_bytes_used, struct btrfs_root_item, bytes_used, 64)
BTRFS_SETGET(root_last_snapshot, struct btrfs_root_item, last_snapshot, 64)
BTRFS_SETGET(root_flags, struct btrfs_root_item, flags, 64)
BTRFS_SETGET(root_refs, struct btrfs_root_item, refs, 32)
BTRFS_SETGET(root_drop_level, struct btrfs_root_item, drop_level, 8)
BTRFS_SETGET(root_level, struct btrfs_root_item, level, 8)
BTRFS_SETGET(root_generation_v2, struct btrfs_root_item, generation_v2, 64)
BTRFS_SETGET(root_ctransid, struct btrfs_root_item, ctransid, 64)
BTRFS_SETGET(root_otransid, struct btrfs_root_item, otransid, 64)
BTRFS_SETGET(root_stransid, struct btrfs_root_item, stransid, 64)
BTRFS_SETGET(root_rtransid, struct btrfs_root_item, rtransid, 64)

/* root ref */
BTRFS_SETGET(root_ref_dirid, struct btrfs_root_ref, dirid, 64)
BTRFS_SETGET(root_ref_sequence, struct btrfs_root_ref, sequence, 64)
BTRFS_SETGET(root_ref_name_len, struct btrfs_root_ref, name_len, 16)

/* file extent */
BTRFS_SETGET(file_extent_generation, struct btrfs_file_extent_item, generation, 64)
BTRFS_SETGET(file_extent_ram_bytes, struct btrfs_file_extent_item, ram_bytes, 64)
BTRFS_SETGET(file_extent_compression, struct btrfs_file_extent_item, compression, 8)
BTRFS_SETGET(file_extent_encryption, struct btrfs_file_extent_item, encryption, 8)
BTRFS_SETGET(file_extent_other_encoding, struct btrfs_file_extent_item, other_encoding, 16)
BTRFS_SETGET(file_extent_type, struct btrfs_file_extent_item, type, 8)
BTRFS_SETGET(file_extent_disk_bytenr, struct btrfs_file_extent_item, disk_bytenr, 64)
BTRFS_SETGET(file_extent_disk_num_bytes, struct btrfs_file_extent_item, disk_num_bytes, 64)
BTRFS_SETGET(file_extent_offset, struct btrfs_file_extent_item, offset, 64)
BTRFS_SETGET(file_extent_num_bytes, struct btrfs_file_extent_item, num_bytes, 64)

/* extent items and references */
BTRFS_SETGET(extent_refs, struct btrfs_extent_item, refs, 64)
BTRFS_SETGET(extent_generation, struct btrfs_extent_item, generation, 64)
BTRFS_SETGET(extent_flags, struct btrfs_extent_item, flags, 64)
BTRFS_SETGET(extent_refs_v0, struct btrfs_extent_item_v0, refs, 32)
BTRFS_SETGET(tree_block_level, struct btrfs_tree_block_info, level, 8)
BTRFS_SETGET(extent_inline_ref_type, struct btrfs_extent_inline_ref, type, 8)
BTRFS_SETGET(extent_inline_ref_offset, struct btrfs_extent_inline_ref, offset, 64)
BTRFS_SETGET(extent_data_ref_root, struct btrfs_extent_data_ref, root, 64)
BTRFS_SETGET(extent_data_ref_objectid, struct btrfs_extent_data_ref, objectid, 64)
BTRFS_SETGET(extent_data_ref_offset, struct btrfs_extent_data_ref, offset, 64)
BTRFS_SETGET(extent_data_ref_count, struct btrfs_extent_data_ref, count, 32)
BTRFS_SETGET(shared_data_ref_count, struct btrfs_shared_data_ref, count, 32)
BTRFS_SETGET(extent_owner_ref_root_id, struct btrfs_extent_owner_ref, root_id, 64)
BTRFS_SETGET(ref_root_v0, struct btrfs_extent_ref_v0, root, 64)
BTRFS_SETGET(ref_generation_v0, struct btrfs_extent_ref_v0, generation, 64)
BTRFS_SETGET(ref_objectid_v0, struct btrfs_extent_ref_v0, objectid, 64)
BTRFS_SETGET(ref_count_v0, struct btrfs_extent_ref_v0, count, 32)

/* size of an inline ref of the given type, 0 if the type is unknown */
static inline u32 btrfs_extent_inline_ref_size(int type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
		return sizeof(struct btrfs_extent_inline_ref);
	case BTRFS_SHARED_DATA_REF_KEY:
		return sizeof(struct btrfs_shared_data_ref) +
		       sizeof(struct btrfs_extent_inline_ref);
	case BTRFS_EXTENT_DATA_REF_KEY:
		return sizeof(struct btrfs_extent_data_ref) +
		       offsetof(struct btrfs_extent_inline_ref, offset);
	case BTRFS_EXTENT_OWNER_REF_KEY:
		return sizeof(struct btrfs_extent_inline_ref);
	}
	return 0;
}

/* block group, free space, device extent */
BTRFS_SETGET(block_group_used, struct btrfs_block_group_item, used, 64)
BTRFS_SETGET(block_group_chunk_objectid, struct btrfs_block_group_item, chunk_objectid, 64)
BTRFS_SETGET(block_group_flags, struct btrfs_block_group_item, flags, 64)
BTRFS_SETGET(free_space_extent_count, struct btrfs_free_space_info, extent_count, 32)
BTRFS_SETGET(free_space_flags, struct btrfs_free_space_info, flags, 32)
BTRFS_SETGET(dev_extent_chunk_tree, struct btrfs_dev_extent, chunk_tree, 64)
BTRFS_SETGET(dev_extent_chunk_objectid, struct btrfs_dev_extent, chunk_objectid, 64)
BTRFS_SETGET(dev_extent_chunk_offset, struct btrfs_dev_extent, chunk_offset, 64)
BTRFS_SETGET(dev_extent_length, struct btrfs_dev_extent, length, 64)
BTRFS_SETGET(free_space_generation, struct btrfs_free_space_header, generation, 64)
BTRFS_SETGET(free_space_entries, struct btrfs_free_space_header, num_entries, 64)
BTRFS_SETGET(free_space_bitmaps, struct btrfs_free_space_header, num_bitmaps, 64)

/* qgroups */
BTRFS_SETGET(qgroup_status_version, struct btrfs_qgroup_status_item, version, 64)
BTRFS_SETGET(qgroup_status_generation, struct btrfs_qgroup_status_item, generation, 64)
BTRFS_SETGET(qgroup_status_flags, struct btrfs_qgroup_status_item, flags, 64)
BTRFS_SETGET(qgroup_status_rescan, struct btrfs_qgroup_status_item, rescan, 64)
BTRFS_SETGET(qgroup_status_enable_gen, struct btrfs_qgroup_status_item, enable_gen, 64)
BTRFS_SETGET(qgroup_info_generation, struct btrfs_qgroup_info_item, generation, 64)
BTRFS_SETGET(qgroup_info_rfer, struct btrfs_qgroup_info_item, rfer, 64)
BTRFS_SETGET(qgroup_info_rfer_cmpr, struct btrfs_qgroup_info_item, rfer_cmpr, 64)
BTRFS_SETGET(qgroup_info_excl, struct btrfs_qgroup_info_item, excl, 64)
BTRFS_SETGET(qgroup_info_excl_cmpr, struct btrfs_qgroup_info_item, excl_cmpr, 64)
BTRFS_SETGET(qgroup_limit_flags, struct btrfs_qgroup_limit_item, flags, 64)
BTRFS_SETGET(qgroup_limit_max_rfer, struct btrfs_qgroup_limit_item, max_rfer, 64)
BTRFS_SETGET(qgroup_limit_max_excl, struct btrfs_qgroup_limit_item, max_excl, 64)
BTRFS_SETGET(qgroup_limit_rsv_rfer, struct btrfs_qgroup_limit_item, rsv_rfer, 64)
BTRFS_SETGET(qgroup_limit_rsv_excl, struct btrfs_qgroup_limit_item, rsv_excl, 64)

/* dev replace */
BTRFS_SETGET(dev_replace_src_devid, struct btrfs_dev_replace_item, src_devid, 64)
BTRFS_SETGET(dev_replace_cursor_left, struct btrfs_dev_replace_item, cursor_left, 64)
BTRFS_SETGET(dev_replace_cursor_right, struct btrfs_dev_replace_item, cursor_right, 64)
BTRFS_SETGET(dev_replace_cont_reading_from_srcdev_mode, struct btrfs_dev_replace_item, cont_reading_from_srcdev_mode, 64)
BTRFS_SETGET(dev_replace_replace_state, struct btrfs_dev_replace_item, replace_state, 64)
BTRFS_SETGET(dev_replace_time_started, struct btrfs_dev_replace_item, time_started, 64)
BTRFS_SETGET(dev_replace_time_stopped, struct btrfs_dev_replace_item, time_stopped, 64)
BTRFS_SETGET(dev_replace_num_write_errors, struct btrfs_dev_replace_item, num_write_errors, 64)
BTRFS_SETGET(dev_replace_num_uncorrectable_read_errors, struct btrfs_dev_replace_item, num_uncorrectable_read_errors, 64)

/* balance */
BTRFS_SETGET(balance_flags, struct btrfs_balance_item, flags, 64)
BTRFS_SETGET(disk_balance_args_profiles, struct btrfs_disk_balance_args, profiles, 64)
BTRFS_SETGET(disk_balance_args_usage, struct btrfs_disk_balance_args, usage, 64)
BTRFS_SETGET(disk_balance_args_usage_min, struct btrfs_disk_balance_args, usage_min, 32)
BTRFS_SETGET(disk_balance_args_usage_max, struct btrfs_disk_balance_args, usage_max, 32)
BTRFS_SETGET(disk_balance_args_devid, struct btrfs_disk_balance_args, devid, 64)
BTRFS_SETGET(disk_balance_args_pstart, struct btrfs_disk_balance_args, pstart, 64)
BTRFS_SETGET(disk_balance_args_pend, struct btrfs_disk_balance_args, pend, 64)
BTRFS_SETGET(disk_balance_args_vstart, struct btrfs_disk_balance_args, vstart, 64)
BTRFS_SETGET(disk_balance_args_vend, struct btrfs_disk_balance_args, vend, 64)
BTRFS_SETGET(disk_balance_args_target, struct btrfs_disk_balance_args, target, 64)
BTRFS_SETGET(disk_balance_args_flags, struct btrfs_disk_balance_args, flags, 64)
BTRFS_SETGET(disk_balance_args_limit, struct btrfs_disk_balance_args, limit, 64)
BTRFS_SETGET(disk_balance_args_limit_min, struct btrfs_disk_balance_args, limit_min, 32)
BTRFS_SETGET(disk_balance_args_limit_max, struct btrfs_disk_balance_args, limit_max, 32)
BTRFS_SETGET(disk_balance_args_stripes_min, struct btrfs_disk_balance_args, stripes_min, 32)
BTRFS_SETGET(disk_balance_args_stripes_max, struct btrfs_disk_balance_args, stripes_max, 32)

/* dev stats, dir log, verity */
static inline u64 btrfs_dev_stats_value(const struct btrfs_dev_stats_item *s, int i)
{
	return le64toh(s->values[i]);
}
BTRFS_SETGET(dir_log_end, struct btrfs_dir_log_item, end, 64)
BTRFS_SETGET(verity_descriptor_size, struct btrfs_verity_descriptor_item, size, 64)
BTRFS_SETGET(verity_descriptor_encryption, struct btrfs_verity_descriptor_item, encryption, 8)

/* unaligned little-endian loads from a raw byte pointer */
static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline void put_unaligned_le64(u64 val, void *p)
{
	val = htole64(val);
	memcpy(p, &val, sizeof(val));
}

static inline void put_unaligned_le32(u32 val, void *p)
{
	val = htole32(val);
	memcpy(p, &val, sizeof(val));
}

#endif
