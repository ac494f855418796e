/*
 * auto_resume.so: adds --auto-resume[=0|1] to srun, sbatch and salloc.
 *
 * Each hook only looks at the context and hands off; the option logic lives in options.c.
 */
#include <slurm/spank.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

SPANK_PLUGIN(auto_resume, 1);

static struct ar_config config;

static int on_auto_resume_option(int val, const char *optarg, int remote);

struct spank_option spank_options[] = {
	{
		"auto-resume", "[0|1]",
		"[auto-resume] Re-run this step on a repaired allocation when a node fails"
		" (srun); in sbatch/salloc, the default for the job's steps. Default: 0.",
		2, 0, on_auto_resume_option
	},
	SPANK_OPTIONS_TABLE_END
};

static int on_auto_resume_option(int val, const char *optarg, int remote)
{
	int value;
	(void)val;
	(void)remote;
	if (ar_parse_flag(optarg, &value) != 0) {
		slurm_error("auto-resume: --auto-resume=%s: expected 0 or 1", optarg);
		return -1;
	}
	if (ar_setting_apply(&config.enabled, AR_SRC_CMDLINE, value) != 0) {
		slurm_error("auto-resume: --auto-resume given twice with different values");
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	char err[256];
	(void)sp;
	ar_config_init(&config);
	if (ar_config_parse_args(&config, ac, av, err, sizeof(err)) != 0) {
		slurm_error("auto-resume: plugstack.conf: %s", err);
		return -1;
	}
	return 0;
}
