/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lost+found for check --repair (repair-lost-found.c): an inode that no
 * name reaches any more is linked under /lost+found of its subvolume,
 * which is made (a directory, mode 0700) when it is missing.
 */
#ifndef GHEE_CHECK_REPAIR_LOST_FOUND_H
#define GHEE_CHECK_REPAIR_LOST_FOUND_H

#include "repair.h"

/*
 * Link inode @ino of subvolume tree @root under /lost+found with its
 * inode number as name ("<ino>", "<ino>.1", ... when taken): dir item,
 * dir index and inode ref; the inode's link count and lost+found's size
 * follow.  Each change is described with repair_note(); with r->trans
 * NULL (--dry-run) nothing is written and the plan is the same.
 * 0 linked (or planned), <0 -errno.
 */
int repair_link_to_lost_found(struct repair_ctx *r, u64 root, u64 ino);

#endif
