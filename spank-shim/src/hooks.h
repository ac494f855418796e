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
 * should go on by itself: 0 (also when the supervisor cannot start: one warning line on
 * stderr), or -1 for a bad SLURM_AUTO_RESUME value.
 */
int ar_local_post_opt(struct ar_config *config);

/*
 * sbatch/salloc, after their options: a --auto-resume given there becomes the job's default
 * (SLURM_AUTO_RESUME in the job's environment), and a job started from inside a supervised
 * step does not inherit that step's supervision. Returns 0, or -1 when Slurm refuses.
 */
int ar_allocator_post_opt(spank_t sp, const struct ar_config *config);

/*
 * slurmstepd, in each task just before it runs: for a supervised step, one line on the
 * task's stderr and AUTO_RESUME_ATTEMPT in its environment. Returns 0, or -1 on a SPANK error.
 */
int ar_remote_task_init(spank_t sp);

#endif
