/* SPDX-License-Identifier: Apache-2.0 */
/*
 * auto-resume option logic, free of Slurm calls so it can be tested without srun.
 *
 * One setting (is auto-resume on for this step?) can be given in three places; the most
 * specific wins: the srun/sbatch/salloc command line, then the environment
 * (SLURM_AUTO_RESUME, which sbatch --auto-resume also sets for the job's steps), then the
 * plugstack.conf argument `default=0|1`.
 */
#ifndef AUTO_RESUME_OPTIONS_H
#define AUTO_RESUME_OPTIONS_H

#include <stddef.h>

#define AR_ENV_VAR "SLURM_AUTO_RESUME"
#define AR_SUPERVISOR_DEFAULT "/usr/local/bin/autoresume"

/* Set by the supervisor for the srun it runs: that srun (and any srun inside its tasks) is not supervised again. */
#define AR_GUARD_ENV "AUTORESUME_SUPERVISED"
/* Told to the supervisor: the Slurm release this plugin was built for. Slurm loads a SPANK
 * plugin only into the release it was built against, so it is also the running one; the
 * supervisor then needs no `scontrol --version` of its own on every start. */
#define AR_SLURM_VERSION_ENV "AUTORESUME_SLURM_VERSION"
/* The attempt number (1, 2, ...) of a supervised step, in every task's environment. */
#define AR_ATTEMPT_ENV "AUTO_RESUME_ATTEMPT"
/*
 * The same two carried from the supervisor's srun to its tasks under SLURM_ names: srun
 * passes SLURM_* variables even with --export=NONE or an --export list, the others not.
 */
#define AR_GUARD_CARRIER_ENV "SLURM_" AR_GUARD_ENV
#define AR_ATTEMPT_CARRIER_ENV "SLURM_" AR_ATTEMPT_ENV
/*
 * Where Slurm keeps a given --auto-resume for the remote side ("_SLURM_SPANK_OPTION_" +
 * plugin name + option name, '-' as '_'). sbatch/salloc also hand it to every srun of the
 * job as SLURM_SPANK_ + this name, which srun treats as typed on its own command line.
 */
#define AR_OPTION_ENV "_SLURM_SPANK_OPTION_auto_resume_auto_resume"

enum ar_source { AR_SRC_NONE = 0, AR_SRC_PLUGSTACK, AR_SRC_ENV, AR_SRC_CMDLINE };

struct ar_setting {
	int value;              /* 0 or 1 */
	enum ar_source source;  /* where value came from */
};

struct ar_config {
	struct ar_setting enabled;
	char supervisor[4096];  /* path of the autoresume launcher */
	/* plugstack.conf's arguments could not be read: srun never hands a step over */
	int broken;
};

/* "1", "0", or NULL/"" (a bare --auto-resume) -> 1. Returns 0, or -1 for anything else. */
int ar_parse_flag(const char *text, int *out);

/*
 * Records a value from a source. A lower-precedence source never overrides a higher one;
 * the same source giving the same value twice is accepted (Slurm may call an option
 * callback more than once); the same source giving two different values is an error (-1).
 */
int ar_setting_apply(struct ar_setting *setting, enum ar_source source, int value);

/*
 * Applies the environment's SLURM_AUTO_RESUME value: NULL or "" leave the setting alone,
 * "0" and "1" apply with environment precedence. Anything else: why in err, returns -1.
 */
int ar_config_apply_env(struct ar_config *config, const char *value, char *err, size_t errlen);

/* Defaults: off, supervisor at AR_SUPERVISOR_DEFAULT. */
void ar_config_init(struct ar_config *config);

/*
 * Applies plugstack.conf arguments (`default=0|1`, `supervisor=/abs/path`). On an unknown
 * key or bad value, writes why into err (size errlen) and returns -1.
 */
int ar_config_parse_args(struct ar_config *config, int ac, char **av, char *err, size_t errlen);

#endif
