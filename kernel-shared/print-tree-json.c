// SPDX-License-Identifier: GPL-2.0
/* JSON form of tree blocks and items (work in progress). */
#include "print-tree.h"
#include "print-tree-internal.h"
#include "extent_io.h"

void btrfs_json_print_block(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	(void)p;
	(void)eb;
}
