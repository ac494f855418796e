package org.slurmautoresume.supervisor.step.launch;

import java.time.Duration;
import java.util.List;
import org.slurmautoresume.supervisor.policy.SignalNumber;

/**
 * One running srun as the supervisor sees it. An interface so the attempt loop, the step watch
 * and the restart actions can be tested with a scripted srun instead of a live cluster.
 */
public interface Srun {

    long pid();

    boolean isAlive();

    /** Waits for srun to exit and its output to be fully copied; its status (128+N for signal N). */
    int waitFor() throws InterruptedException;

    boolean signal(SignalNumber signal);

    /** The last lines srun (and the tasks through it) wrote to stderr. */
    List<String> stderrTail();

    /** True when srun ended within {@code timeout}. */
    boolean awaitExit(Duration timeout) throws InterruptedException;

    /** SIGKILL: srun did not end by itself after its step was cancelled. */
    void kill();
}
