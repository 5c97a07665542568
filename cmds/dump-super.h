/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee dump-super, shared between the command (dump-super.c: options,
 * devices, reading) and its printers (dump-super-print.c: text in the
 * layout of btrfs-progs 6.2, and JSON).
 */
#ifndef GHEE_CMDS_DUMP_SUPER_H
#define GHEE_CMDS_DUMP_SUPER_H

#include <stdbool.h>
#include <stdio.h>
#include "kernel-shared/format.h"
#include "cmds/commands.h"

struct json_writer;

/* what both printers need to know about one superblock, worked out once */
struct sb_view {
	const struct btrfs_super_block *sb;
	u16 csum_type;
	bool csum_known;		/* a csum type this build knows */
	u32 csum_size;			/* BTRFS_CSUM_SIZE when unknown, as progs */
	bool csum_match;		/* false when unknown */
	bool magic_match;
	/* the uuid tree blocks carry: metadata_uuid or fsid */
	const u8 *metadata_uuid;
	bool dev_fsid_match;		/* dev_item.fsid == metadata_uuid */
};

void sb_view_init(struct sb_view *v, const struct btrfs_super_block *sb);

/* the lines after "superblock: ..." and the dashes, up to the blank line */
void dump_super_text(FILE *out, const struct sb_view *v, bool full);
/* the superblock's fields, as members of the object the caller opened */
void dump_super_json(struct json_writer *w, const struct sb_view *v, bool full);

#endif
