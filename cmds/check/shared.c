// SPDX-License-Identifier: GPL-2.0
/* What the phases leave for one another: set up empty, freed at the end. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "shared.h"
#include "block-set.h"
#include "extent-tally.h"

void check_shared_init(struct check_shared *shared)
{
	memset(shared, 0, sizeof(*shared));
}

void check_shared_release(struct check_shared *shared)
{
	size_t i;

	tally_destroy(shared->tally);
	block_set_destroy(shared->bad_blocks);
	block_set_destroy(shared->full_backref);
	block_set_destroy(shared->damaged_trees);
	block_set_destroy(shared->key_range_trees);
	free(shared->fs_roots);
	for (i = 0; i < shared->nr_fs_checked; i++)
		problem_queue_destroy(shared->fs_checked[i].findings);
	free(shared->fs_checked);
	free(shared->roots);
	free(shared->block_groups);
	free(shared->csum_needs);	/* phase 8 frees it, unless it stopped early */
	memset(shared, 0, sizeof(*shared));
}
