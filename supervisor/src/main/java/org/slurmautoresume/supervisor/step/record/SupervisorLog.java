package org.slurmautoresume.supervisor.step.record;

import java.io.PrintStream;

/**
 * The lines a user sees from the supervisor, on stderr, each prefixed
 * {@code [auto-resume] JobID=<job> StepID=<step>:} so they can be told from the step's output.
 */
public final class SupervisorLog {

    private final PrintStream err;
    private final String jobId;
    private volatile String stepId = "?";

    public SupervisorLog(PrintStream err, String jobId) {
        this.err = err;
        this.jobId = jobId == null ? "none" : jobId;
    }

    public void stepId(String id) {
        stepId = id;
    }

    public void say(String message) {
        synchronized (err) {
            err.println("[auto-resume] JobID=" + jobId + " StepID=" + stepId + ": " + message);
            err.flush();
        }
    }
}
