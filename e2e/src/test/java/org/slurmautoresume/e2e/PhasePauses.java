package org.slurmautoresume.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The supervisor's test pauses (AUTORESUME_TEST_PAUSE_AT/UNTIL) from the test's side: the batch
 * script's line that asks for them, the wait until the recovery stands at a phase (its timeline's
 * {@code pause} event), and the file that lets it go on.
 */
final class PhasePauses {

    /** A dead node's recovery passes these phases in this order (supervisor's PhasePause.Phase). */
    static final List<String> RECOVERY_ORDER = List.of("mark", "shrink", "diagnosis", "replacement", "rerun");

    private final LocalCluster cluster;
    private final List<String> phases;
    private final String prefix;

    PhasePauses(LocalCluster cluster, String name, List<String> phases) {
        this.cluster = cluster;
        this.phases = List.copyOf(phases);
        this.prefix = name + "-" + System.nanoTime() + ".go";
    }

    /** The batch script's line, before the supervised srun. */
    String scriptLine() {
        return "export AUTORESUME_TEST_PAUSE_AT=" + String.join(",", phases) + " AUTORESUME_TEST_PAUSE_UNTIL="
                + cluster.jobsDir().resolve(prefix);
    }

    /** Waits until job {@code jobId}'s recovery stands paused at {@code phase}. */
    void awaitPause(String jobId, String phase) {
        Timeline.awaitEvent(
                cluster,
                jobId,
                "the recovery to reach " + phase,
                Duration.ofSeconds(90),
                e -> e.is(Timeline.Kind.PAUSE) && e.detail("phase").equals(phase));
    }

    /** Lets the recovery go on past {@code phase}. */
    void release(String phase) {
        cluster.writeJobsFile(prefix + "." + phase, "", "rw-r--r--");
    }

    void cleanUp() {
        try {
            for (String phase : phases) {
                Files.deleteIfExists(cluster.jobsDir().resolve(prefix + "." + phase));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path file(String phase) {
        return cluster.jobsDir().resolve(prefix + "." + phase);
    }
}
