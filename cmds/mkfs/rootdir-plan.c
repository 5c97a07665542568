// SPDX-License-Identifier: GPL-2.0
/*
 * The data layout decisions of --rootdir, apart from any I/O so that the
 * unit tests can hold them against simple models: which files go inline
 * and how long the next extent of a data segment is.
 */
#include "rootdir.h"

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

/*
 * The kernel inlines a write that starts at 0, covers the whole file,
 * stays below one sector and within max_inline (default 2048) and the
 * leaf's room; @max_inline is already the smaller of the last two.
 */
bool rootdir_inline_ok(u64 size, u32 sectorsize, u32 max_inline)
{
	return size > 0 && size < sectorsize && size <= max_inline;
}

u64 rootdir_extent_len(u64 left, u64 largest_free, u32 sectorsize)
{
	u64 want = left < ROOTDIR_MAX_EXTENT ? left : ROOTDIR_MAX_EXTENT;

	want = round_up_to(want, sectorsize);
	if (largest_free >= want)
		return want;
	largest_free -= largest_free % sectorsize;
	/* nothing left in the data chunks: ask for all (a new chunk comes) */
	return largest_free ? largest_free : want;
}

