/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe.so, a SPANK plugin for the end-to-end tests only: `srun --probe-value=STRING` puts
 * STRING into every task's environment as PROBE_VALUE. It stands for any other plugin's
 * option (pyxis's --container-image, say) that must reach slurmstepd unchanged when
 * auto_resume.so hands srun to the supervisor.
 */
#include <slurm/spank.h>
#include <stdlib.h>
#include <string.h>

SPANK_PLUGIN(probe, 1);

static char *probe_value;

static int on_probe_value(int val, const char *optarg, int remote)
{
	char *copy;
	(void)val;
	(void)remote;
	/* Slurm may call this more than once (command line, environment): the last one stays. */
	copy = strdup(optarg ? optarg : "");
	if (copy == NULL) {
		slurm_error("probe: --probe-value: %m");
		return -1;
	}
	free(probe_value);
	probe_value = copy;
	return 0;
}

static struct spank_option probe_option = {
	"probe-value", "STRING", "[probe] Export STRING to the tasks as PROBE_VALUE (tests only).",
	1, 0, on_probe_value
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_LOCAL && spank_context() != S_CTX_REMOTE)
		return 0;
	if (spank_option_register(sp, &probe_option) != ESPANK_SUCCESS) {
		slurm_error("probe: cannot register --probe-value");
		return -1;
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	spank_err_t rc;
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || probe_value == NULL)
		return 0;
	rc = spank_setenv(sp, "PROBE_VALUE", probe_value, 1);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("probe: task_init: spank_setenv PROBE_VALUE: %s", spank_strerror(rc));
		return -1;
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	free(probe_value);
	probe_value = NULL;
	return 0;
}
