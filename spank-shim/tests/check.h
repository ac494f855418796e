/* SPDX-License-Identifier: Apache-2.0 */
/* The one assertion macro of the C tests: reports and counts, never stops the run. */
#ifndef AUTO_RESUME_CHECK_H
#define AUTO_RESUME_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

/* Ends main: 0 when every CHECK held. */
static inline int check_report(const char *name)
{
	if (failures) {
		fprintf(stderr, "%s: %d failed\n", name, failures);
		return 1;
	}
	printf("%s: all passed\n", name);
	return 0;
}

#endif
