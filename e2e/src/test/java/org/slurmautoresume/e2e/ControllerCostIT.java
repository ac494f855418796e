package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.JobState;

/**
 * What a supervised step costs slurmctld while nothing fails, counted by slurmctld itself: sdiag's
 * RPCs of the job's user over the first half minute of the watch, a step on node1 and node2 whose
 * agents both greet. Everything the user's job asks of slurmctld in that time counts (the
 * supervisor's lookup of its step included); a full node dump packs every node of the site, so
 * the count must not grow with the minutes the step runs.
 */
class ControllerCostIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final Duration WINDOW = Duration.ofSeconds(30);
    /** At most this many RPCs in a minute of a supervised step's watch: 3 in the window. */
    private static final int MAX_PER_MINUTE = 6;

    private static final String PREFIX = "84-controller-cost-it-";

    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    /** One user's line of sdiag's "statistics by user": its RPC count and their total time (µs). */
    record UserRpcs(long count, long totalMicros) {}

    static UserRpcs rpcsOf(String user) {
        CommandResult sdiag = cluster.run(List.of("sdiag"));
        assertEquals(0, sdiag.exitCode(), sdiag.stderr());
        Matcher line = Pattern.compile("(?m)^\\s*" + Pattern.quote(user)
                        + "\\s+\\(\\s*\\d+\\)\\s+count:(\\d+)\\s+ave_time:\\d+\\s+total_time:(\\d+)")
                .matcher(sdiag.stdout());
        // The user submitted the job: slurmctld has a line for it.
        assertTrue(line.find(), "no line for " + user + " in sdiag:\n" + sdiag.stdout());
        return new UserRpcs(Long.parseLong(line.group(1)), Long.parseLong(line.group(2)));
    }

    @Test
    void aSupervisedStepWhoseNodesAgentsGreetCostsTheControllerAtMostSixRpcsAMinute() throws Exception {
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node1", "--xid-source", "off");
        LocalAgent node2 = null;
        String jobId = null;
        try {
            node2 = LocalAgent.start(
                    cluster,
                    supervised.plugstack().installDir().resolve("agent-node2"),
                    "--node",
                    "node2",
                    "--xid-source",
                    "off");
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            UserRpcs before = rpcsOf(cluster.testUser());
            Thread.sleep(WINDOW.toMillis()); // the time measured, not a wait for a condition
            UserRpcs after = rpcsOf(cluster.testUser());
            assertEquals(
                    JobState.RUNNING, cluster.slurm().job(jobId).orElseThrow().state(), cluster.jobOutput(jobId));
            long rpcs = after.count() - before.count();
            double millis = (after.totalMicros() - before.totalMicros()) / 1000.0;
            System.out.printf(
                    "controller cost: %d RPCs of %s and %.1f ms of slurmctld's time in the step's first %d s%n",
                    rpcs, cluster.testUser(), millis, WINDOW.toSeconds());
            long allowed = MAX_PER_MINUTE * WINDOW.toSeconds() / 60;
            assertTrue(rpcs <= allowed, rpcs + " RPCs in " + WINDOW.toSeconds() + " s of a supervised step");
            assertTrue(
                    Timeline.of(cluster, jobId).all(Timeline.Kind.ATTEMPT_ENDED).isEmpty(), "nothing failed");
        } finally {
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            if (node2 != null) {
                node2.stop();
            }
            SupervisedSteps.stop(supervised);
        }
    }
}
