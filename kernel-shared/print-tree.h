/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing tree blocks and items, in the text layout of btrfs-progs'
 * "inspect-internal dump-tree" (so existing scripts and eyes keep working)
 * or as JSON (a stable schema, documented in ghee-dump-tree(8)).
 *
 * Everything is written to the caller's FILE; problems met on the way
 * (unreadable children, malformed blocks) go to the caller's reporter.
 * Nothing here exits, and no byte outside a block's buffer is ever read:
 * item printers check the item size before each field they decode.
 */
#ifndef GHEE_PRINT_TREE_H
#define GHEE_PRINT_TREE_H

#include <stdio.h>
#include <stdbool.h>
#include "format.h"
#include "messages.h"

struct extent_buffer;
struct btrfs_fs_info;
struct json_writer;

/* print modes, may be or-ed */
#define BTRFS_PRINT_TREE_FOLLOW		(1U << 0)  /* print the children of nodes */
#define BTRFS_PRINT_TREE_DFS		(1U << 1)  /* depth first */
#define BTRFS_PRINT_TREE_BFS		(1U << 2)  /* breadth first (the default) */
#define BTRFS_PRINT_TREE_CSUM_HEADERS	(1U << 3)  /* tree block checksums */
#define BTRFS_PRINT_TREE_CSUM_ITEMS	(1U << 4)  /* data checksums in csum items */
#define BTRFS_PRINT_TREE_HIDE_NAMES	(1U << 5)  /* no file names, xattrs */

enum btrfs_print_format {
	BTRFS_PRINT_FORMAT_TEXT,
	BTRFS_PRINT_FORMAT_JSON,
};

struct btrfs_printer {
	FILE *out;
	/* NULL: blocks are printed on their own, children are not followed */
	struct btrfs_fs_info *fs_info;
	unsigned int mode;
	enum btrfs_print_format format;
	/* the JSON document being written, when format is JSON */
	struct json_writer *json;
	u32 nodesize;
	u32 sectorsize;
	u32 csum_size;
	u16 csum_type;
	/* where problems are reported (progs prints these on stderr) */
	struct btrfs_reporter rep;
	/* tree blocks that could not be read while following children */
	u64 read_errors;
	/* the last time stamp converted, localtime() is costly */
	s64 time_cache_sec;
	bool time_cache_valid;
	char time_cache[64];
	/*
	 * Text is formatted here (printf is the bottleneck of a dump) and
	 * handed to @out in large pieces; every public function returns with
	 * it flushed.
	 */
	size_t len;
	char buf[16384];
};

/*
 * Set up a printer.  With @fs_info, the geometry (node size, sector size,
 * checksum size) comes from the filesystem; without it, set them by hand.
 */
void btrfs_printer_init(struct btrfs_printer *p, FILE *out,
			struct btrfs_fs_info *fs_info, unsigned int mode);

/*
 * Print one tree block; with BTRFS_PRINT_TREE_FOLLOW in the mode (and an
 * fs_info) its children too, breadth first unless DFS is asked for.
 */
void btrfs_print_tree(struct btrfs_printer *p, struct extent_buffer *eb);
/* only the leaves below @eb, depth first (dump-tree --extents) */
void btrfs_print_extents(struct btrfs_printer *p, struct extent_buffer *eb);
/* one leaf, or the header and pointers of one node */
void btrfs_print_leaf(struct btrfs_printer *p, const struct extent_buffer *eb);
void btrfs_print_node(struct btrfs_printer *p, const struct extent_buffer *eb);

/*
 * Print the body of the item at @slot (the lines after "item N key ...").
 * The caller has checked that the item lies inside the leaf data area.
 */
void btrfs_print_item(struct btrfs_printer *p, const struct extent_buffer *eb,
		      int slot);

/* text pieces shared with the commands */
void btrfs_print_objectid(FILE *out, u64 objectid, u8 type);
void btrfs_print_key_type(FILE *out, u64 objectid, u8 type);
/* "key (OBJECTID TYPE OFFSET)" */
void btrfs_print_key(FILE *out, const struct btrfs_disk_key *key);
/* the same into @buf, which holds BTRFS_KEY_STR_LEN bytes; returns the length */
#define BTRFS_KEY_STR_LEN 128
int btrfs_format_key(char *buf, const struct btrfs_disk_key *key);
int btrfs_format_objectid(char *buf, u64 objectid, u8 type);

/* "NAME": {"objectid": .., "type": .., "type_num": .., "offset": ..} */
void btrfs_json_key(struct json_writer *w, const char *name,
		    const struct btrfs_disk_key *key);

/* names for JSON and messages: NULL when progs would print a number */
const char *btrfs_key_type_name(u64 objectid, u8 type);
const char *btrfs_objectid_name(u64 objectid, u8 type);

/* 36 characters and a NUL, lower case, like uuid_unparse() */
#define BTRFS_UUID_UNPARSED_SIZE 37
void btrfs_format_uuid(const u8 *uuid, char *out);

/* a uuid field in the JSON form, "xxxxxxxx-xxxx-..." */
void btrfs_json_uuid(struct json_writer *w, const char *name, const u8 *uuid);

/* "DATA|METADATA|RAID1" etc.: block group and chunk type flags */
#define BTRFS_BG_FLAGS_STR_LEN 64
void btrfs_bg_flags_to_str(u64 flags, char *buf);

#endif
