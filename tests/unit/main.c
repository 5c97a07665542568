// SPDX-License-Identifier: GPL-2.0
/*
 * Unit-test runner: builds one Check SRunner from the suites listed in
 * suites.h and runs them.
 *
 * usage: unit-tests [--list] [--tap FILE] [SUITE-GLOB...]
 *   --list      print the suite names and exit
 *   --tap FILE  also write TAP results (one line per test) to FILE
 *   SUITE-GLOB  run only the suites whose name matches one of the globs
 *
 * Check's own environment variables (CK_FORK, CK_RUN_CASE, CK_VERBOSITY,
 * CK_TIMEOUT_MULTIPLIER, ...) work as documented.  Exit status: 0 when
 * every test passed, 1 when one failed, 2 on a usage error.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"

struct unit_suite {
	const char *name;
	Suite *(*make)(void);
};

#define GHEE_SUITE_ENTRY(name) { #name, name##_suite },
static const struct unit_suite unit_suites[] = {
	GHEE_UNIT_SUITES(GHEE_SUITE_ENTRY)
};
#undef GHEE_SUITE_ENTRY

#define NR_SUITES (sizeof(unit_suites) / sizeof(unit_suites[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: unit-tests [--list] [--tap FILE] [SUITE-GLOB...]\n");
}

static int selected(const char *name, char **globs, int nr_globs)
{
	int i;

	if (!nr_globs)
		return 1;
	for (i = 0; i < nr_globs; i++) {
		if (!fnmatch(globs[i], name, 0))
			return 1;
	}
	return 0;
}

/* an SRunner holding every selected suite; NULL when none matched */
static SRunner *build_runner(char **globs, int nr_globs)
{
	SRunner *sr = NULL;
	size_t i;

	for (i = 0; i < NR_SUITES; i++) {
		if (!selected(unit_suites[i].name, globs, nr_globs))
			continue;
		if (!sr)
			sr = srunner_create(unit_suites[i].make());
		else
			srunner_add_suite(sr, unit_suites[i].make());
	}
	return sr;
}

int main(int argc, char **argv)
{
	const char *tap = NULL;
	SRunner *sr;
	int argi, failed;
	size_t i;

	for (argi = 1; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--list")) {
			for (i = 0; i < NR_SUITES; i++)
				printf("%s\n", unit_suites[i].name);
			return 0;
		} else if (!strcmp(argv[argi], "--tap") && argi + 1 < argc) {
			tap = argv[++argi];
		} else if (!strcmp(argv[argi], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	sr = build_runner(argv + argi, argc - argi);
	if (!sr) {
		fprintf(stderr, "unit-tests: no suite matches\n");
		return 2;
	}
	if (tap)
		srunner_set_tap(sr, tap);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
