/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pieces shared by print-tree.c, print-tree-items.c and print-tree-json.c;
 * not for the commands.
 */
#ifndef GHEE_PRINT_TREE_INTERNAL_H
#define GHEE_PRINT_TREE_INTERNAL_H

#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include "format.h"
#include "print-tree.h"
#include "inode.h"

struct extent_buffer;

/*
 * Output through the printer's buffer.  pr_fmt() knows the printf
 * conversions the printers use (see print-tree.c), not all of them.
 */
void pr_flush(struct btrfs_printer *p);
void pr_mem_slow(struct btrfs_printer *p, const void *s, size_t n);
void pr_u64(struct btrfs_printer *p, u64 v);
void pr_key(struct btrfs_printer *p, const struct btrfs_disk_key *key);
void pr_objectid(struct btrfs_printer *p, u64 objectid, u8 type);
__attribute__((format(printf, 2, 3)))
void pr_fmt(struct btrfs_printer *p, const char *fmt, ...);
/* flushes first, so that the report follows what was printed */
__attribute__((format(printf, 3, 4)))
void pr_report(struct btrfs_printer *p, enum btrfs_report_level level,
	       const char *fmt, ...);

static inline void pr_mem(struct btrfs_printer *p, const void *s, size_t n)
{
	if (p->len + n > sizeof(p->buf)) {
		pr_mem_slow(p, s, n);
		return;
	}
	/* most pieces are a few bytes: not worth a call to memcpy */
	if (n <= 16) {
		const char *src = s;
		char *dst = p->buf + p->len;
		size_t i;

		for (i = 0; i < n; i++)
			dst[i] = src[i];
	} else {
		memcpy(p->buf + p->len, s, n);
	}
	p->len += n;
}

static inline void pr_str(struct btrfs_printer *p, const char *s)
{
	pr_mem(p, s, strlen(s));
}

static inline void pr_char(struct btrfs_printer *p, char c)
{
	if (p->len == sizeof(p->buf))
		pr_flush(p);
	p->buf[p->len++] = c;
}

/* "single", "DUP", "RAID1", ...; NULL for a value that is not one profile */
const char *btrfs_profile_name(u64 profile);

/* "YYYY-MM-DD HH:MM:SS" in local time; valid until the next call */
const char *btrfs_format_time(struct btrfs_printer *p, u64 sec);

/* leaf geometry, safe on any block */
u32 btrfs_print_max_items(const struct extent_buffer *eb);
int btrfs_print_leaf_free_space(const struct extent_buffer *eb);
/* nritems clamped to what fits in the block (reported when clamped) */
u32 btrfs_print_leaf_nritems(struct btrfs_printer *p,
			     const struct extent_buffer *eb);
u32 btrfs_print_node_nritems(struct btrfs_printer *p,
			     const struct extent_buffer *eb);
/* the item lies inside the leaf data area (reported when not) */
bool btrfs_print_item_ok(struct btrfs_printer *p,
			 const struct extent_buffer *eb, u32 slot);

/* JSON form of one block (print-tree-json.c) */
void btrfs_json_print_block(struct btrfs_printer *p,
			    const struct extent_buffer *eb);

/* flag words as progs spells them */
void btrfs_inode_flags_to_str(u64 flags, char *buf, size_t len);
void btrfs_extent_flags_to_str(u64 flags, char *buf, size_t len);
void btrfs_qgroup_status_flags_to_str(u64 flags, char *buf, size_t len);
const char *btrfs_compress_name(u8 type, char *buf, size_t len);
const char *btrfs_file_extent_type_name(u8 type);
const char *btrfs_dir_type_name(u8 type);

/*
 * Inline back references of an extent item.  The walk stops at an
 * unknown type (as progs does) or at a reference that does not fit.
 */
struct inline_ref {
	u8 type;
	u64 offset;			/* root, parent */
	const struct btrfs_extent_data_ref *dref;	/* EXTENT_DATA_REF */
	u32 count;			/* SHARED_DATA_REF */
};

enum inline_ref_status {
	INLINE_REF_OK,
	INLINE_REF_END,
	INLINE_REF_UNKNOWN,	/* type unknown to progs 6.2: stop */
	INLINE_REF_SHORT,	/* does not fit in the item */
};

enum inline_ref_status btrfs_next_inline_ref(const u8 *item, u32 size, u32 *cur,
					     struct inline_ref *ref);

#endif
