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

enum ar_source { AR_SRC_NONE = 0, AR_SRC_PLUGSTACK, AR_SRC_ENV, AR_SRC_CMDLINE };

struct ar_setting {
	int value;              /* 0 or 1 */
	enum ar_source source;  /* where value came from */
};

struct ar_config {
	struct ar_setting enabled;
	char supervisor[4096];  /* path of the autoresume launcher */
};

/* "1", "0", or NULL/"" (a bare --auto-resume) -> 1. Returns 0, or -1 for anything else. */
int ar_parse_flag(const char *text, int *out);

/*
 * Records a value from a source. A lower-precedence source never overrides a higher one;
 * the same source giving the same value twice is accepted (Slurm may call an option
 * callback more than once); the same source giving two different values is an error (-1).
 */
int ar_setting_apply(struct ar_setting *setting, enum ar_source source, int value);

/* Defaults: off, supervisor at AR_SUPERVISOR_DEFAULT. */
void ar_config_init(struct ar_config *config);

/*
 * Applies plugstack.conf arguments (`default=0|1`, `supervisor=/abs/path`). On an unknown
 * key or bad value, writes why into err (size errlen) and returns -1.
 */
int ar_config_parse_args(struct ar_config *config, int ac, char **av, char *err, size_t errlen);

#endif
