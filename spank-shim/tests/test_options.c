/* Unit tests of options.c: no Slurm needed. `make check` runs them. */
#include <stdio.h>
#include <string.h>

#include "../src/options.h"

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

static void test_parse_flag(void)
{
	int v = -1;
	CHECK(ar_parse_flag(NULL, &v) == 0 && v == 1);
	CHECK(ar_parse_flag("", &v) == 0 && v == 1);
	CHECK(ar_parse_flag("1", &v) == 0 && v == 1);
	CHECK(ar_parse_flag("0", &v) == 0 && v == 0);
	CHECK(ar_parse_flag("yes", &v) == -1);
	CHECK(ar_parse_flag("2", &v) == -1);
	CHECK(ar_parse_flag("1 ", &v) == -1);
}

static void test_precedence(void)
{
	struct ar_setting s = { 0, AR_SRC_NONE };
	CHECK(ar_setting_apply(&s, AR_SRC_PLUGSTACK, 1) == 0 && s.value == 1);
	CHECK(ar_setting_apply(&s, AR_SRC_CMDLINE, 0) == 0 && s.value == 0);
	/* the environment cannot override the command line */
	CHECK(ar_setting_apply(&s, AR_SRC_ENV, 1) == 0 && s.value == 0 && s.source == AR_SRC_CMDLINE);
	/* the same value twice from one source is fine; a different one is not */
	CHECK(ar_setting_apply(&s, AR_SRC_CMDLINE, 0) == 0);
	CHECK(ar_setting_apply(&s, AR_SRC_CMDLINE, 1) == -1);
}

static void test_plugstack_args(void)
{
	struct ar_config c;
	char err[256];
	char *good[] = { "default=1", "supervisor=/opt/ar/bin/autoresume" };
	ar_config_init(&c);
	CHECK(c.enabled.value == 0 && strcmp(c.supervisor, AR_SUPERVISOR_DEFAULT) == 0);
	CHECK(ar_config_parse_args(&c, 2, good, err, sizeof(err)) == 0);
	CHECK(c.enabled.value == 1 && c.enabled.source == AR_SRC_PLUGSTACK);
	CHECK(strcmp(c.supervisor, "/opt/ar/bin/autoresume") == 0);

	char *unknown[] = { "defualt=1" };
	ar_config_init(&c);
	CHECK(ar_config_parse_args(&c, 1, unknown, err, sizeof(err)) == -1);
	CHECK(strstr(err, "defualt=1") != NULL);

	char *relative[] = { "supervisor=bin/autoresume" };
	CHECK(ar_config_parse_args(&c, 1, relative, err, sizeof(err)) == -1);

	char *bad[] = { "default=maybe" };
	CHECK(ar_config_parse_args(&c, 1, bad, err, sizeof(err)) == -1);
}

int main(void)
{
	test_parse_flag();
	test_precedence();
	test_plugstack_args();
	if (failures) {
		fprintf(stderr, "test_options: %d failed\n", failures);
		return 1;
	}
	printf("test_options: all passed\n");
	return 0;
}
