/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The per-context halves of the SPANK hooks. auto_resume.c only looks at spank_context()
 * and calls one of these: srun's own process (local.c), sbatch/salloc (allocator.c) and
 * slurmstepd (remote.c).
 */
#ifndef AUTO_RESUME_HOOKS_H
#define AUTO_RESUME_HOOKS_H

#include <slurm/spank.h>

#include "options.h"

/*
 * srun, after its options: unless the step is already supervised, replaces srun with
 * `SUPERVISOR supervise -- <srun's argv>` when auto-resume is on. Returns only when srun
 * should go on by itself: 0 (also when anything of the plugin's own fails, the supervisor
 * not starting included: one line on stderr), or -1 for a bad SLURM_AUTO_RESUME value.
 */
int ar_local_post_opt(struct ar_config *config);

/*
 * sbatch/salloc, after their options: a --auto-resume given there becomes the job's default
 * (SLURM_AUTO_RESUME in the job's environment), and a job started from inside a supervised
 * step does not inherit that step's supervision. Cannot fail: what it could not do, it says.
 */
void ar_allocator_post_opt(spank_t sp, const struct ar_config *config);

/*
 * slurmstepd, in each task just before it runs: for a supervised step, one line on the
 * task's stderr and AUTO_RESUME_ATTEMPT in its environment. Cannot fail the task: a SPANK
 * call that fails leaves out what it was for, in a line of its own.
 */
void ar_remote_task_init(spank_t sp);

#endif
