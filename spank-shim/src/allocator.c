/*
 * sbatch/salloc's side. `sbatch --auto-resume=1` (or salloc) sets the default for the job's
 * steps: SLURM_AUTO_RESUME goes into the job's environment (sbatch copies SLURM_* variables
 * even under --export=NONE; salloc hands its environment to its command), where srun reads it
 * with less precedence than its own --auto-resume.
 */
#include <stdlib.h>

#include "hooks.h"

int ar_allocator_post_opt(spank_t sp, const struct ar_config *config)
{
	/* A job submitted from inside a supervised step is a new job: its steps start afresh. */
	const char *step_only[] = { AR_GUARD_ENV, AR_ATTEMPT_ENV, AR_GUARD_CARRIER_ENV, AR_ATTEMPT_CARRIER_ENV };
	for (size_t i = 0; i < sizeof(step_only) / sizeof(step_only[0]); i++) {
		if (unsetenv(step_only[i]) != 0) {
			slurm_error("auto-resume: unsetenv %s: %m", step_only[i]);
			return -1;
		}
	}
	if (config->enabled.source != AR_SRC_CMDLINE)
		return 0;
	/*
	 * Slurm would also pass the option itself to every srun in the job as if typed on that
	 * srun's command line, so `srun --auto-resume=0` there would conflict with it instead of
	 * winning. The job default travels as SLURM_AUTO_RESUME only.
	 */
	spank_err_t rc = spank_job_control_unsetenv(sp, AR_OPTION_ENV);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("auto-resume: spank_job_control_unsetenv(%s): %s", AR_OPTION_ENV, spank_strerror(rc));
		return -1;
	}
	if (unsetenv(AR_OPTION_ENV) != 0 || setenv(AR_ENV_VAR, config->enabled.value ? "1" : "0", 1) != 0) {
		slurm_error("auto-resume: setenv %s: %m", AR_ENV_VAR);
		return -1;
	}
	return 0;
}
