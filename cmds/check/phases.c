// SPDX-License-Identifier: GPL-2.0
/* The order of the checker's phases; each later phase may rely on what the
 * earlier ones left in struct check_shared. */
#include "check.h"

const struct check_phase check_phases[] = {
	{ "super", "checking superblocks and backup roots", check_phase_super },
	{ "chunks", "checking chunks, devices and device extents", check_phase_chunks },
	{ "tree-blocks", "checking tree blocks", check_phase_tree_blocks },
	{ "roots", "checking root items, root refs and uuid tree", check_phase_roots },
	{ "extents", "checking extents and back references", check_phase_extents },
	{ "free-space", "checking free space", check_phase_free_space },
	{ "fs-trees", "checking filesystem trees", check_phase_fs_trees },
	{ "csums", "checking checksums", check_phase_csums },
	{ "qgroups-log", "checking quota groups and the log tree", check_phase_qgroups_log },
};

const int check_nr_phases = sizeof(check_phases) / sizeof(check_phases[0]);
