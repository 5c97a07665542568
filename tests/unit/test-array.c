// SPDX-License-Identifier: GPL-2.0
/*
 * Growable arrays (lib/array.h): random appends and bulk reservations
 * against a fixed-size model array; every element must survive each
 * growth, the allocation must cover what was asked, grow at least by
 * doubling (so appends stay amortized O(1)) and never below the minimum.
 * A request whose byte size overflows fails and leaves the array alone.
 */
#include <stdint.h>
#include <string.h>
#include "suites.h"
#include "array.h"

#define MODEL_MAX	20000

struct item {
	uint64_t value;
	uint32_t index;
};

START_TEST(test_random_appends)
{
	static struct item model[MODEL_MAX];
	struct item *v = NULL;
	size_t nr = 0, alloc = 0, i, reallocs = 0;
	uint64_t state = 0x51ed270b27e3a1c5ULL + (uint64_t)_i;

	while (nr < MODEL_MAX - 600) {
		size_t before = alloc, need;

		/* mostly one more element, sometimes a bulk reservation */
		need = test_rand(&state) % 8 ? nr + 1 : nr + 1 + test_rand(&state) % 500;
		REQUIRE_INT(ARRAY_RESERVE(v, alloc, need, 16), ==, 0);
		REQUIRE(v != NULL);
		REQUIRE_UINT(alloc, >=, need);
		REQUIRE_UINT(alloc, >=, 16);
		if (alloc != before) {
			reallocs++;
			REQUIRE_UINT(alloc, >=, 2 * before);
		}
		while (nr < need) {
			model[nr].value = test_rand(&state);
			model[nr].index = (uint32_t)nr;
			v[nr] = model[nr];
			nr++;
		}
		for (i = 0; i < nr; i += 1 + test_rand(&state) % 64)
			REQUIRE(!memcmp(&v[i], &model[i], sizeof(v[i])));
	}
	REQUIRE(!memcmp(v, model, nr * sizeof(*v)));
	/* doubling: about log2(nr / 16) growths, not one per append */
	REQUIRE_UINT(reallocs, <=, 12);
	free(v);
}
END_TEST

START_TEST(test_enough_room_is_a_no_op)
{
	uint32_t *v = NULL;
	size_t alloc = 0;
	uint32_t *before;

	REQUIRE_INT(ARRAY_RESERVE(v, alloc, 1, 64), ==, 0);
	REQUIRE_UINT(alloc, ==, 64);
	before = v;
	REQUIRE_INT(ARRAY_RESERVE(v, alloc, 64, 64), ==, 0);
	REQUIRE(v == before);
	REQUIRE_UINT(alloc, ==, 64);
	REQUIRE_INT(ARRAY_RESERVE(v, alloc, 65, 64), ==, 0);
	REQUIRE_UINT(alloc, ==, 128);
	free(v);
}
END_TEST

START_TEST(test_overflow_fails_unchanged)
{
	uint64_t *v = NULL;
	size_t alloc = 0;
	uint64_t *before;

	REQUIRE_INT(ARRAY_RESERVE(v, alloc, 10, 4), ==, 0);
	v[9] = 42;
	before = v;
	REQUIRE_INT(ARRAY_RESERVE(v, alloc, SIZE_MAX / 4, 4), ==, -ENOMEM);
	REQUIRE(v == before);
	REQUIRE_UINT(alloc, ==, 10);
	REQUIRE_UINT(v[9], ==, 42);
	free(v);
}
END_TEST

Suite *array_suite(void)
{
	Suite *s = suite_create("array");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_random_appends, 0, 4);
	tcase_add_test(tc, test_enough_room_is_a_no_op);
	tcase_add_test(tc, test_overflow_fails_unchanged);
	suite_add_tcase(s, tc);
	return s;
}
