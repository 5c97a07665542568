/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GHEE_CHECK_REPAIR_OVERLAP_H
#define GHEE_CHECK_REPAIR_OVERLAP_H

#include "repair.h"

/* FILE_EXTENT_OVERLAP: trim the later extent where both hold the same bytes */
int repair_file_extent_overlap(struct repair_ctx *r, const struct problem_ctx *p);

#endif
