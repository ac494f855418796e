/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slurmstepd's side, in each task of a supervised step: a line that ties the task to its
 * job and step (the supervisor's log has the same ids), and the attempt number in the
 * task's environment so that training scripts can tell a retry from the first run.
 *
 * The step is supervised when its environment has AUTORESUME_SUPERVISED, or the SLURM_
 * copy that local.c adds for steps run with --export=NONE or an --export list; the task
 * then gets both plain names back, so an srun inside it is not supervised a second time.
 *
 * Nothing here can fail the task: the step is supervised from srun's side whatever happens
 * in it, so a SPANK call that fails costs only what it was for, and says so in one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <slurm/slurm.h>

#include "hooks.h"

/* Long enough for any attempt number or guard value the supervisor sets. */
#define VALUE_MAX 64

/* The job's value of name into buf: 1 when set and not empty, 0 when not, -1 (said) on errors. */
static int job_env(spank_t sp, const char *name, char *buf, int len)
{
	spank_err_t rc = spank_getenv(sp, name, buf, len);
	if (rc == ESPANK_ENV_NOEXIST)
		return 0;
	if (rc == ESPANK_NOSPACE) {
		/* Set, just longer than anything we pass on: stands for itself as "1". */
		snprintf(buf, (size_t)len, "1");
		return 1;
	}
	if (rc != ESPANK_SUCCESS) {
		slurm_error("auto-resume: task_init: spank_getenv %s: %s; this task goes without %s",
			    name, spank_strerror(rc), name);
		return -1;
	}
	return buf[0] != '\0';
}

/* Gives name the value of the first of name, carrier that is set, else fallback. */
static void restore(spank_t sp, const char *name, const char *carrier, const char *fallback)
{
	char value[VALUE_MAX];
	int found = job_env(sp, name, value, sizeof(value));
	if (found != 0)
		return;
	found = job_env(sp, carrier, value, sizeof(value));
	if (found < 0)
		return;
	spank_err_t rc = spank_setenv(sp, name, found ? value : fallback, 1);
	if (rc != ESPANK_SUCCESS)
		slurm_error("auto-resume: task_init: spank_setenv %s: %s; this task goes without %s",
			    name, spank_strerror(rc), name);
}

static const char *step_name(uint32_t step, char *buf, size_t len)
{
	switch (step) {
	case SLURM_BATCH_SCRIPT:
		return "batch";
	case SLURM_EXTERN_CONT:
		return "extern";
	case SLURM_INTERACTIVE_STEP:
		return "interactive";
	default:
		snprintf(buf, len, "%u", step);
		return buf;
	}
}

void ar_remote_task_init(spank_t sp)
{
	uint32_t job, step, task;
	char value[VALUE_MAX];
	char step_buf[16];
	spank_err_t rc;
	int supervised;

	supervised = job_env(sp, AR_GUARD_ENV, value, sizeof(value));
	if (supervised == 0)
		supervised = job_env(sp, AR_GUARD_CARRIER_ENV, value, sizeof(value));
	if (supervised <= 0)
		return;
	if ((rc = spank_get_item(sp, S_JOB_ID, &job)) != ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_STEPID, &step)) != ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_TASK_GLOBAL_ID, &task)) != ESPANK_SUCCESS) {
		slurm_error("auto-resume: task_init: spank_get_item: %s; no task_init line for this task",
			    spank_strerror(rc));
	} else {
		/* This runs in the task's own process: its stderr is the task's stderr. */
		fprintf(stderr, "[auto-resume] JobID=%u StepID=%s TaskID=%u task_init\n",
			job, step_name(step, step_buf, sizeof(step_buf)), task);
	}
	restore(sp, AR_GUARD_ENV, AR_GUARD_CARRIER_ENV, "1");
	restore(sp, AR_ATTEMPT_ENV, AR_ATTEMPT_CARRIER_ENV, "1");
}
