/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A stand-in for the few spank_* and slurm_* functions the plugin calls, so that its hooks
 * run in a plain test program. The test sets the context, the job's environment and ids,
 * and reads back what the plugin did.
 */
#ifndef AUTO_RESUME_SPANK_STUB_H
#define AUTO_RESUME_SPANK_STUB_H

#include <slurm/spank.h>
#include <stdint.h>

#define STUB_MAX_ENV 32

struct stub_state {
	spank_context_t context;
	/* the job's environment (remote context): "NAME=value" strings owned by the stub */
	char *env[STUB_MAX_ENV];
	uint32_t job_id, step_id, task_global_id;
	/* the option the plugin registered, for the test to call its callback */
	struct spank_option *registered;
	int registrations;
	/* names given to spank_job_control_unsetenv, last one kept */
	char job_control_unset[256];
	int job_control_unsets;
	int errors;             /* slurm_error calls */
	char last_error[1024];
	/* failures to hand the plugin: an error other than ESPANK_SUCCESS is returned instead */
	spank_err_t getenv_error;
	const char *getenv_error_name;  /* only spank_getenv of this name fails; NULL: every one */
	spank_err_t setenv_error, get_item_error, register_error, job_control_error;
	int libc_env_errno;     /* non-zero: setenv/unsetenv fail with this errno */
};

extern struct stub_state stub;

/*
 * spank_get_item(S_JOB_UID or S_JOB_GID) calls, never reset. The stub answers 99 (Slurm's
 * SLURM_AUTH_NOBODY, what srun's side gets from 23.02): the plugin must never ask.
 */
extern int stub_identity_queries;

/* Back to an empty state in the given context. */
void stub_reset(spank_context_t context);
void stub_env_set(const char *name, const char *value);
const char *stub_env_get(const char *name);

#endif
