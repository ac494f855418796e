/* SPDX-License-Identifier: Apache-2.0 */
/*
 * auto_resume.so: adds --auto-resume[=0|1] to srun, sbatch and salloc.
 *
 * Each hook only looks at the context and hands off: srun to local.c, sbatch/salloc to
 * allocator.c, slurmstepd to remote.c; the option logic lives in options.c.
 *
 * Return codes. Every hook returns exactly 0, also when the plugin's own plumbing fails
 * (fail open: the step runs without auto-resume, and one line says why). Slurm reads a
 * hook's return only when plugstack.conf says `required`, and then a negative value stops
 * srun, sbatch, salloc or the task; 23.11 fails the whole step for more hooks, 25.05 counts
 * positive values too, and a failed slurm_spank_init in a batch step's slurmstepd drains the
 * node (docs/slurm-behaviour.md, "SPANK return codes across releases"). None of that may
 * follow from a plugin that only adds retries.
 * The two refusals, both about what the user gave, are -1 and say why where they happen:
 * an --auto-resume value (below) and a SLURM_AUTO_RESUME value (local.c).
 *
 * No hook asks for S_JOB_UID or S_JOB_GID: from 23.02 srun's side gets 99 there (Slurm's
 * SLURM_AUTH_NOBODY, "no identity"), and the plugin has no owner to pass on anyway: the
 * supervisor is srun's own process, exec'd in place.
 */
#include <slurm/spank.h>

#include "hooks.h"
#include "options.h"

SPANK_PLUGIN(auto_resume, 1);

static struct ar_config config;

static int on_auto_resume_option(int val, const char *optarg, int remote);

/*
 * Registered from slurm_spank_init rather than exported as `spank_options`: Slurm 22.05
 * does not read a static options table in sbatch/salloc, so the option would be missing there.
 */
static struct spank_option auto_resume_option = {
	"auto-resume", "[0|1]",
	"[auto-resume] Re-run this step on a repaired allocation when a node fails"
	" (srun); in sbatch/salloc, the default for the job's steps. Default: 0.",
	2, 0, on_auto_resume_option
};

static int on_auto_resume_option(int val, const char *optarg, int remote)
{
	int value;
	(void)val;
	/* slurmstepd gets the option too (from the environment and from srun); it has no use for it. */
	if (remote)
		return 0;
	/*
	 * Refused on purpose: srun, sbatch and salloc stop with "Invalid --auto-resume argument"
	 * whether the plugin is optional or required (every release checks an option callback's
	 * result as non-zero), so a typo is fixed instead of silently running without auto-resume.
	 */
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
	spank_err_t rc;

	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		break;
	default:
		return 0;
	}
	ar_config_init(&config);
	/*
	 * A site's typo must not stop every srun on the cluster, nor (required) drain the nodes
	 * that batch steps start on: auto-resume is off, and each command says so once. The
	 * option stays registered, so scripts that pass --auto-resume keep running.
	 */
	if (ar_config_parse_args(&config, ac, av, err, sizeof(err)) != 0) {
		slurm_error("auto-resume: plugstack.conf: %s; steps run without auto-resume", err);
		ar_config_init(&config);
		config.broken = 1;
	}
	rc = spank_option_register(sp, &auto_resume_option);
	if (rc != ESPANK_SUCCESS)
		slurm_error("auto-resume: spank_option_register(--%s): %s; steps run without auto-resume",
			    auto_resume_option.name, spank_strerror(rc));
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_LOCAL:
		return ar_local_post_opt(&config);
	case S_CTX_ALLOCATOR:
		ar_allocator_post_opt(sp, &config);
		return 0;
	default:
		return 0;
	}
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_REMOTE:
		ar_remote_task_init(sp);
		return 0;
	default:
		return 0;
	}
}
