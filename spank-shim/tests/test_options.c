/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of options.c: no Slurm needed. `make check` runs them. */
#include <string.h>

#include "../src/options.h"
#include "check.h"

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

static void test_environment(void)
{
	struct ar_config c;
	char err[256];
	ar_config_init(&c);
	/* unset or empty: nothing changes */
	CHECK(ar_config_apply_env(&c, NULL, err, sizeof(err)) == 0 && c.enabled.source == AR_SRC_NONE);
	CHECK(ar_config_apply_env(&c, "", err, sizeof(err)) == 0 && c.enabled.source == AR_SRC_NONE);
	CHECK(ar_config_apply_env(&c, "1", err, sizeof(err)) == 0 && c.enabled.value == 1);
	CHECK(c.enabled.source == AR_SRC_ENV);
	/* applied again (srun calls post_opt once per heterogeneous component) */
	CHECK(ar_config_apply_env(&c, "1", err, sizeof(err)) == 0);
	CHECK(ar_config_apply_env(&c, "yes", err, sizeof(err)) == -1);
	CHECK(strcmp(err, "SLURM_AUTO_RESUME=yes: expected 0 or 1") == 0);

	/* the environment beats the plugstack default and loses to the command line */
	char *site_on[] = { "default=1" };
	ar_config_init(&c);
	CHECK(ar_config_parse_args(&c, 1, site_on, err, sizeof(err)) == 0);
	CHECK(ar_config_apply_env(&c, "0", err, sizeof(err)) == 0 && c.enabled.value == 0);
	ar_config_init(&c);
	CHECK(ar_setting_apply(&c.enabled, AR_SRC_CMDLINE, 1) == 0);
	CHECK(ar_config_apply_env(&c, "0", err, sizeof(err)) == 0 && c.enabled.value == 1);
}

int main(void)
{
	test_parse_flag();
	test_precedence();
	test_plugstack_args();
	test_environment();
	return check_report("test_options");
}
