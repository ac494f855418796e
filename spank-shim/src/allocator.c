/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sbatch/salloc's side. `sbatch --auto-resume=1` (or salloc) sets the default for the job's
 * steps: SLURM_AUTO_RESUME goes into the job's environment (sbatch copies SLURM_* variables
 * even under --export=NONE; salloc hands its environment to its command), where srun reads it
 * with less precedence than its own --auto-resume.
 */
#include <stdlib.h>

#include "hooks.h"

void ar_allocator_post_opt(spank_t sp, const struct ar_config *config)
{
	/* A job submitted from inside a supervised step is a new job: its steps start afresh. */
	const char *step_only[] = { AR_GUARD_ENV, AR_ATTEMPT_ENV, AR_GUARD_CARRIER_ENV, AR_ATTEMPT_CARRIER_ENV };
	for (size_t i = 0; i < sizeof(step_only) / sizeof(step_only[0]); i++) {
		if (unsetenv(step_only[i]) != 0)
			slurm_error("auto-resume: unsetenv %s: %m; this job's steps may run without auto-resume",
				    step_only[i]);
	}
	if (config->enabled.source != AR_SRC_CMDLINE)
		return;
	/*
	 * Slurm would also pass the option itself to every srun in the job as if typed on that
	 * srun's command line, so `srun --auto-resume=0` there would conflict with it instead of
	 * winning. The job default travels as SLURM_AUTO_RESUME only.
	 */
	spank_err_t rc = spank_job_control_unsetenv(sp, AR_OPTION_ENV);
	if (rc != ESPANK_SUCCESS)
		slurm_error("auto-resume: spank_job_control_unsetenv(%s): %s; an srun --auto-resume in this"
			    " job that differs from the job's default will be refused", AR_OPTION_ENV, spank_strerror(rc));
	if (unsetenv(AR_OPTION_ENV) != 0)
		slurm_error("auto-resume: unsetenv %s: %m", AR_OPTION_ENV);
	if (setenv(AR_ENV_VAR, config->enabled.value ? "1" : "0", 1) != 0)
		slurm_error("auto-resume: setenv %s: %m; this job's steps do not get --auto-resume=%d as"
			    " their default", AR_ENV_VAR, config->enabled.value);
}
