/* SPDX-License-Identifier: Apache-2.0 */
#include "spank_stub.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct stub_state stub;
int stub_identity_queries;

#define SLURM_AUTH_NOBODY 99

/* Any non-NULL handle will do: the stub keeps its state in `stub`. */

void stub_reset(spank_context_t context)
{
	for (int i = 0; i < STUB_MAX_ENV; i++)
		free(stub.env[i]);
	memset(&stub, 0, sizeof(stub));
	stub.context = context;
}

static int env_index(const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < STUB_MAX_ENV; i++)
		if (stub.env[i] && strncmp(stub.env[i], name, n) == 0 && stub.env[i][n] == '=')
			return i;
	return -1;
}

void stub_env_set(const char *name, const char *value)
{
	int i = env_index(name);
	if (i < 0)
		for (i = 0; i < STUB_MAX_ENV && stub.env[i]; i++)
			;
	if (i == STUB_MAX_ENV)
		abort();
	free(stub.env[i]);
	size_t len = strlen(name) + strlen(value) + 2;
	stub.env[i] = malloc(len);
	if (stub.env[i] == NULL)
		abort();
	snprintf(stub.env[i], len, "%s=%s", name, value);
}

const char *stub_env_get(const char *name)
{
	int i = env_index(name);
	return i < 0 ? NULL : stub.env[i] + strlen(name) + 1;
}

spank_context_t spank_context(void)
{
	return stub.context;
}

const char *spank_strerror(spank_err_t err)
{
	static char text[32];
	snprintf(text, sizeof(text), "spank error %d", (int)err);
	return text;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	if (stub.register_error != ESPANK_SUCCESS)
		return stub.register_error;
	stub.registered = opt;
	stub.registrations++;
	return ESPANK_SUCCESS;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (stub.getenv_error != ESPANK_SUCCESS &&
	    (stub.getenv_error_name == NULL || strcmp(stub.getenv_error_name, var) == 0))
		return stub.getenv_error;
	const char *value = stub_env_get(var);
	if (value == NULL)
		return ESPANK_ENV_NOEXIST;
	if (len <= 0)
		return ESPANK_BAD_ARG;
	if ((size_t)snprintf(buf, (size_t)len, "%s", value) >= (size_t)len)
		return ESPANK_NOSPACE;
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (stub.setenv_error != ESPANK_SUCCESS)
		return stub.setenv_error;
	if (!overwrite && stub_env_get(var))
		return ESPANK_ENV_EXISTS;
	stub_env_set(var, val);
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	void *out;
	(void)sp;
	va_start(ap, item);
	out = va_arg(ap, void *);
	va_end(ap);
	if (item == S_JOB_UID || item == S_JOB_GID) {
		stub_identity_queries++;
		if (item == S_JOB_UID)
			*(uid_t *)out = SLURM_AUTH_NOBODY;
		else
			*(gid_t *)out = SLURM_AUTH_NOBODY;
		return ESPANK_SUCCESS;
	}
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (stub.get_item_error != ESPANK_SUCCESS)
		return stub.get_item_error;
	switch (item) {
	case S_JOB_ID:
		*(uint32_t *)out = stub.job_id;
		return ESPANK_SUCCESS;
	case S_JOB_STEPID:
		*(uint32_t *)out = stub.step_id;
		return ESPANK_SUCCESS;
	case S_TASK_GLOBAL_ID:
		*(uint32_t *)out = stub.task_global_id;
		return ESPANK_SUCCESS;
	default:
		return ESPANK_BAD_ARG;
	}
}

spank_err_t spank_job_control_unsetenv(spank_t sp, const char *name)
{
	(void)sp;
	if (stub.context == S_CTX_REMOTE)
		return ESPANK_NOT_LOCAL;
	if (stub.job_control_error != ESPANK_SUCCESS)
		return stub.job_control_error;
	snprintf(stub.job_control_unset, sizeof(stub.job_control_unset), "%s", name);
	stub.job_control_unsets++;
	return ESPANK_SUCCESS;
}

void slurm_error(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	vsnprintf(stub.last_error, sizeof(stub.last_error), format, ap);
	va_end(ap);
	stub.errors++;
}

void slurm_info(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	vfprintf(stderr, format, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The plugin's setenv/unsetenv (and the tests'), linked with --wrap (see the Makefile), so a
 * test can make them fail as they would for want of memory.
 */
int __real_setenv(const char *name, const char *value, int overwrite);
int __real_unsetenv(const char *name);

int __wrap_setenv(const char *name, const char *value, int overwrite)
{
	if (stub.libc_env_errno) {
		errno = stub.libc_env_errno;
		return -1;
	}
	return __real_setenv(name, value, overwrite);
}

int __wrap_unsetenv(const char *name)
{
	if (stub.libc_env_errno) {
		errno = stub.libc_env_errno;
		return -1;
	}
	return __real_unsetenv(name);
}
