/* SPDX-License-Identifier: Apache-2.0 */
/*
 * srun's side: hand the step to the supervisor in srun's own process, before srun has
 * allocated anything, by exec'ing the supervisor with srun's complete original argv (every
 * flag, other plugins' options included). The supervisor runs srun again as its child with
 * AUTORESUME_SUPERVISED set, and that srun goes through here untouched.
 *
 * Fail open: whatever goes wrong here, srun runs the step itself without auto-resume.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm_version.h>

#include "argv.h"
#include "hooks.h"

#define CMDLINE_PATH "/proc/self/cmdline"

/* Returns only on failure, with errno set; srun's state is as it was. */
static void exec_supervisor(const char *supervisor)
{
	char *cmdline = NULL;
	size_t len = 0;
	char **srun_argv = NULL;
	size_t srun_argc = 0;
	char **argv = NULL;
	sigset_t srun_mask, none;
	char version[32];
	int saved_errno;

	if (access(supervisor, X_OK) != 0)
		return;
	if (ar_read_file(CMDLINE_PATH, &cmdline, &len) != 0)
		goto fail;
	if (ar_argv_split(cmdline, len, &srun_argv, &srun_argc) != 0)
		goto fail;
	if (ar_supervise_argv(supervisor, srun_argv, srun_argc, &argv) != 0)
		goto fail;
	/*
	 * srun blocks SIGINT, SIGTERM, SIGHUP, ... before plugins load, and a blocked mask
	 * survives exec: the supervisor would never see the signals it must forward.
	 */
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, &srun_mask) != 0)
		goto fail;
	snprintf(version, sizeof(version), "%u.%02u.%u", SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
	setenv(AR_SLURM_VERSION_ENV, version, 1); /* a hint: without it the supervisor asks scontrol */
	execv(supervisor, argv);
	saved_errno = errno;
	unsetenv(AR_SLURM_VERSION_ENV);
	sigprocmask(SIG_SETMASK, &srun_mask, NULL);
	errno = saved_errno;
fail:
	saved_errno = errno;
	free(argv);
	free(srun_argv);
	free(cmdline);
	errno = saved_errno;
}

static int is_set(const char *name)
{
	const char *value = getenv(name);
	return value != NULL && value[0] != '\0';
}

/*
 * In an srun that is already supervised: makes sure its tasks learn it (remote.c), whatever
 * --export says, by carrying the guard and the attempt number under SLURM_ names. Without
 * them (setenv fails only for want of memory) the step still runs, supervised; only its
 * tasks under --export=NONE or a list miss the two variables.
 */
static void carry_to_tasks(void)
{
	const char *names[][2] = {
		{ AR_GUARD_ENV, AR_GUARD_CARRIER_ENV },
		{ AR_ATTEMPT_ENV, AR_ATTEMPT_CARRIER_ENV },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i][0]);
		if (value == NULL || value[0] == '\0')
			continue;
		if (setenv(names[i][1], value, 1) != 0) {
			slurm_error("auto-resume: setenv %s: %m; tasks started with --export=NONE or a list"
				    " will not see %s", names[i][1], names[i][0]);
			return;
		}
	}
}

int ar_local_post_opt(struct ar_config *config)
{
	char err[512];

	if (is_set(AR_GUARD_ENV) || is_set(AR_GUARD_CARRIER_ENV)) {
		carry_to_tasks();
		return 0;
	}
	/*
	 * Refused on purpose: a value that is neither 0 nor 1 was put there by someone, and
	 * guessing what they meant could supervise a step they opted out of, or the reverse.
	 * Slurm stops srun on this -1 only when the plugin is `required`; as `optional` srun
	 * prints the line and runs the step without auto-resume.
	 */
	if (ar_config_apply_env(config, getenv(AR_ENV_VAR), err, sizeof(err)) != 0) {
		slurm_error("auto-resume: %s", err);
		return -1;
	}
	/* A broken plugstack.conf was reported by slurm_spank_init already. */
	if (!config->enabled.value || config->broken)
		return 0;
	exec_supervisor(config->supervisor);
	fprintf(stderr, "auto-resume: cannot start the supervisor %s: %s; running this step without auto-resume\n",
		config->supervisor, strerror(errno));
	return 0;
}
