#include "spank_stub.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stub_state stub;

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
	stub.registered = opt;
	stub.registrations++;
	return ESPANK_SUCCESS;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
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
	if (!overwrite && stub_env_get(var))
		return ESPANK_ENV_EXISTS;
	stub_env_set(var, val);
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	uint32_t *out;
	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	va_start(ap, item);
	out = va_arg(ap, uint32_t *);
	va_end(ap);
	switch (item) {
	case S_JOB_ID:
		*out = stub.job_id;
		return ESPANK_SUCCESS;
	case S_JOB_STEPID:
		*out = stub.step_id;
		return ESPANK_SUCCESS;
	case S_TASK_GLOBAL_ID:
		*out = stub.task_global_id;
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
