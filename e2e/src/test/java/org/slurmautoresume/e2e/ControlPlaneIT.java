package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The control plane going away under protected steps: slurmdbd down during a whole
 * recovery, and a failover from the primary slurmctld to the backup while a step runs. The class
 * brings the cluster up with a backup controller once ({@code up --backup-controller}); tests put
 * back what they stopped.
 */
class ControlPlaneIT {

    /** As InJobSpareIT: a first start may wait for nodes an earlier test's resized job left PLANNED. */
    private static final Duration FIRST_START = Duration.ofSeconds(300);

    private static final String PREFIX = "86-control-plane-it-";
    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void startWithABackupController() {
        cluster = LocalCluster.get();
        cluster.ensureBackupController();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    /** Accounting unavailable changes nothing for recovery. */
    @Test
    void theStepRunsAgainOnTheSpareWhileSlurmdbdIsDown() throws Exception {
        cluster.stopDbd();
        String jobId = null;
        try {
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            cluster.killNode("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            // Accounting was away the whole time: sacct still cannot reach slurmdbd.
            CommandResult sacct = cluster.run(List.of("sacct", "-n", "-X", "-j", jobId, "-o", "State"));
            assertFalse(sacct.succeeded(), "slurmdbd should still be down: " + sacct.stdout());
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains("attempt=2 node=node1 list=node[1,3] mnode=node1\n"), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3] mnode=node1\n"), output);
            assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"));
            assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
            assertTrue(
                    truth.nodeField("node2", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node2", "Reason"));
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare", "node2", "node3"),
                    List.of(replacement.detail("path"), replacement.faultyNodes(), replacement.detail("spares")),
                    timeline.toString());
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
        } finally {
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            cluster.startDbd();
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }

    /** The primary dies, the backup takes over from the saved state, the step runs on. */
    @Test
    void aRunningStepSurvivesAFailoverToTheBackupController() throws Exception {
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME"
                  touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"
                  while [ ! -e "$SLURM_JOB_ID.release" ]; do sleep 1; done'
                echo "SRUN_EXIT=$?"
                """.formatted(supervised.agent().socket());
        String jobId = cluster.submit(script, List.of("-N2", "-w", "node[1-2]", "--exclusive"));
        boolean failedOver = false;
        try {
            SupervisedSteps.awaitFirstAttempt(cluster, jobId, FIRST_START);
            awaitStateSaved(jobId);
            cluster.failOver();
            failedOver = true;
            String ping = cluster.run(List.of("scontrol", "ping")).stdout();
            assertTrue(ping.contains("Slurmctld(primary) at arctld1 is DOWN"), ping);
            assertTrue(ping.contains("Slurmctld(backup) at arctld2 is UP"), ping);
            // The backup, now in control, knows the job and its step from the saved state.
            assertEquals("RUNNING", truth.jobField(jobId, "JobState"));
            assertEquals("node[1-2]", truth.jobField(jobId, "NodeList"));
            CommandResult step = cluster.run(List.of("scontrol", "-o", "show", "step", jobId + ".0"));
            assertTrue(step.succeeded() && step.stdout().contains(" State=RUNNING "), step.stdout() + step.stderr());
            cluster.writeJobsFile(jobId + ".release", "", "rw-r--r--");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(120));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertFalse(output.contains("attempt=2"), "the step never had to run again: " + output);
            assertEquals(List.of(1), Timeline.of(cluster, jobId).launchedAttempts());
        } finally {
            cluster.run(List.of("scancel", jobId));
            if (failedOver) {
                cluster.startController();
            }
            Files.deleteIfExists(cluster.jobsDir().resolve(jobId + ".release"));
        }
        String ping = cluster.run(List.of("scontrol", "ping")).stdout();
        assertTrue(ping.contains("Slurmctld(primary) at arctld1 is UP"), ping);
        Optional<Job> after = cluster.slurm().job(jobId);
        assertEquals(Optional.of(JobState.COMPLETED), after.map(Job::state), "the primary took back the job's record");
    }

    /**
     * A whole recovery through a failover. The primary dies and node2 with it;
     * the backup takes over after SlurmctldTimeout; the supervisor rides out the wait, the probes
     * find node2 meanwhile, and the step runs again on the in-job spare once the backup serves.
     * On the oldest release only: a newer one's clients meet the failover in the running-step test.
     */
    @Test
    @Tag(LocalCluster.OLDEST_RELEASE)
    void aNodeThatDiesWithThePrimaryIsReplacedOnceTheBackupServes() throws Exception {
        String jobId = supervised.stepWithSpare(cluster, FIRST_START);
        boolean failedOver = false;
        try {
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            awaitStateSaved(jobId);
            Instant primaryKilled = Instant.now();
            CompletableFuture<CommandResult> failover = CompletableFuture.supplyAsync(cluster::failOver);
            cluster.killNode("node2");
            failover.get(120, TimeUnit.SECONDS);
            failedOver = true;
            Instant backupServes = Instant.now();
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains(" node=node3 list=node[1,3] mnode=node1\n"), output);
            assertTrue(
                    truth.nodeField("node2", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node2", "Reason"));
            for (String node : List.of("node1", "node3", "node4")) {
                String state = truth.nodeField(node, "State");
                assertFalse(
                        state.contains("FAIL") || state.contains("DOWN") || state.contains("DRAIN"),
                        node + " " + state);
            }
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals("NODE_FAULT", timeline.outcomes().get(0), timeline.toString());
            timeline.assertSucceededAfterOnlyUnstarted(1);
            assertEquals("node2", timeline.only(Timeline.Kind.REPLACEMENT).faultyNodes(), timeline.toString());
            List<String> controller = timeline.all(Timeline.Kind.CONTROLLER).stream()
                    .map(e -> e.detail("state"))
                    .toList();
            assertFalse(controller.contains("given-up"), timeline.toString());
            Instant rerun = timeline.last(Timeline.Kind.LAUNCH).at();
            // One line for benchmarks/scripts/outage-recovery.sh: the re-run, counted from when the backup served.
            System.out.printf(
                    "outage-recovery: phase=failover outage_ms=%d running_again_after_back_ms=%d%n",
                    Duration.between(primaryKilled, backupServes).toMillis(),
                    Duration.between(backupServes, rerun).toMillis());
        } finally {
            cluster.run(List.of("scancel", jobId));
            if (failedOver) {
                cluster.startController();
            }
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }

    /**
     * A failover is a crash of the primary: the backup knows only what was saved. slurmctld saves
     * job state at most every 5 s after a change (state_save.c, SAVE_MAX_WAIT); killed sooner after
     * the job started, the backup recovered it PENDING, without its steps (seen, 22.05). So the test
     * makes one more change to the job and waits until slurmctld has written job_state after it.
     */
    private static void awaitStateSaved(String jobId) throws Exception {
        Path jobState = cluster.clusterDir().resolve("state/slurmctld/job_state");
        Instant before = Instant.now();
        CommandResult update = cluster.run(List.of("scontrol", "update", "jobid=" + jobId, "comment=control-plane-it"));
        assertTrue(update.succeeded(), update.stderr());
        Wait.until("slurmctld to save the state of job " + jobId, Duration.ofSeconds(30), () -> {
            try {
                return Files.getLastModifiedTime(jobState).toInstant().isAfter(before)
                        ? Optional.of(true)
                        : Optional.empty();
            } catch (java.io.IOException e) {
                return Optional.empty();
            }
        });
    }
}
