package org.slurmautoresume.supervisor.step.diagnosis;

/** How one attempt of a step ended, and whether re-running it can ever be right. */
public enum Outcome {
    SUCCEEDED(false),
    /** Someone cancelled the step or the job (scancel). */
    CANCELLED(false),
    TIME_LIMIT(false),
    PREEMPTED(false),
    /** Slurm requeued the whole job: the batch script will start again anyway. */
    REQUEUED(false),
    /** The supervisor itself was told to stop (SIGINT, SIGTERM, SIGHUP). */
    INTERRUPTED(false),
    /** A node of the step went down, failed or stopped answering, or the job shrank. */
    NODE_FAULT(true),
    /** Non-zero exit on healthy nodes: the application failed. */
    APP_FAILURE(true),
    /**
     * srun could not start the step because slurmctld did not answer it (a controller restart
     * or failover): nothing ran, so it is started again once slurmctld answers, outside the budgets.
     */
    NOT_STARTED(true);

    private final boolean rerunnable;

    Outcome(boolean rerunnable) {
        this.rerunnable = rerunnable;
    }

    /** False for ends a user or Slurm chose: those are never re-run. */
    public boolean rerunnable() {
        return rerunnable;
    }
}
