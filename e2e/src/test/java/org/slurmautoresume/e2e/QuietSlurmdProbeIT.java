package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Where no agent answers on the step's nodes the supervisor asks each node's slurmd every second.
 * Asked for its status in its own protocol, slurmd writes nothing to its log: half a minute of a
 * supervised step (30 probes of each node) leaves no error line in the slurmd logs of the step's
 * nodes (a bare connect left two per node per second). A killed node is still found by the same
 * probe: its slurmd refuses, and the step runs again on the job's spare.
 */
class QuietSlurmdProbeIT {

    private static final String PREFIX = "86-quiet-probe-it-";
    private static final Duration QUIET_FOR = Duration.ofSeconds(30);
    private static final List<String> STEP_NODES = List.of("node1", "node2");

    private static LocalCluster cluster;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void startAgentAndPlugin() {
        cluster = LocalCluster.get();
        supervised = SupervisedSteps.start(cluster, PREFIX);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @Test
    void halfAMinuteOfProbesLeavesSlurmdsLogCleanAndAKilledNodeIsStillFound() throws Exception {
        String jobId = supervised.stepWithSpare(cluster, Duration.ofSeconds(60));
        try {
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            Map<String, Long> from = new LinkedHashMap<>();
            for (String node : STEP_NODES) {
                from.put(node, Files.size(slurmdLog(node)));
            }
            // Held for the whole window, checked every second: the first error line fails at once.
            long end = System.nanoTime() + QUIET_FOR.toNanos();
            while (System.nanoTime() < end) {
                for (String node : STEP_NODES) {
                    assertEquals(List.of(), errorLinesSince(node, from.get(node)), node + "'s slurmd log");
                }
                Job job = cluster.slurm().job(jobId).orElseThrow();
                assertEquals(JobState.RUNNING, job.state(), "the supervised job runs throughout");
                Thread.sleep(1000);
            }
            System.out.println(
                    "slurmd error lines over " + QUIET_FOR.toSeconds() + " s of probing on " + STEP_NODES + ": 0");

            long killed = System.nanoTime();
            Instant killedAt = Instant.now();
            cluster.killNode("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            assertEquals(
                    List.of("slurmd-probe", "node2"),
                    List.of(detection.detail("source"), detection.detail("nodes")),
                    timeline.toString());
            Duration found = Duration.between(killedAt, Instant.parse(detection.detail("foundAt")));
            System.out.println("killed node2 found by the slurmd probe " + found.toMillis() + " ms after the kill; job"
                    + " ended " + Duration.ofNanos(System.nanoTime() - killed).toSeconds() + " s after it");
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }

    private static Path slurmdLog(String node) {
        Path dir = Path.of(cluster.envValue("AR_LOG_DIR").orElseThrow());
        return dir.resolve("slurmd-" + node + ".log");
    }

    /** The lines with "error:" that the node's slurmd log gained past {@code offset}. */
    private static List<String> errorLinesSince(String node, long offset) throws IOException {
        try (RandomAccessFile log = new RandomAccessFile(slurmdLog(node).toFile(), "r")) {
            long length = log.length();
            if (length <= offset) {
                return List.of();
            }
            byte[] tail = new byte[Math.toIntExact(length - offset)];
            log.seek(offset);
            log.readFully(tail);
            return new String(tail, StandardCharsets.UTF_8)
                    .lines()
                    .filter(line -> line.contains("error:"))
                    .toList();
        }
    }
}
