package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The real agent, started as root on a socket under the cluster directory, asked by the ordinary
 * test user through {@code autoresume agent-call}: it marks a dead node of the user's own job
 * FAIL with reason Action:Replace, and refuses a healthy node and a node outside the job, with
 * every decision in its audit log.
 */
class AgentIT {

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static LocalAgent agent;
    private static Path socket;
    private static Path audit;
    private static FlaggedHealthCheck healthCheck;

    @BeforeAll
    static void startAgent() throws IOException {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        healthCheck = FlaggedHealthCheck.create(cluster, "agent-it-health-");
        // Tests turn a node's health between two requests: no verdict is shared across them.
        agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("agent-it-" + ProcessHandle.current().pid()),
                "--metrics-listen",
                "127.0.0.1:0",
                "--health-command",
                healthCheck.command().toString(),
                "--health-reuse",
                "0");
        socket = agent.socket();
        audit = agent.auditLog();
    }

    @AfterAll
    static void stopAgent() throws InterruptedException, IOException {
        if (agent != null) {
            agent.stop();
        }
        if (healthCheck != null) {
            healthCheck.close();
        }
    }

    /** One request as the test user, through the hidden agent-call command. */
    private static CommandResult call(String json) {
        return cluster.runAsTestUser(
                List.of(cluster.launcher().toString(), "agent-call", "--socket", socket.toString(), json));
    }

    private static String mark(String jobId, String node) {
        return "{\"op\":\"mark\",\"jobId\":\"" + jobId + "\",\"nodes\":[\"" + node
                + "\"],\"action\":\"Replace\",\"state\":\"fail\"}";
    }

    private static String read(Path file) {
        return LocalAgent.read(file);
    }

    private static String auditLineFor(String jobId, String node) {
        return read(audit)
                .lines()
                .filter(l -> l.contains("\"jobId\":\"" + jobId + "\"")
                        && l.contains("\"" + node + "\"")
                        && l.contains("\"op\":\"mark\""))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError(
                        "no audit line for job " + jobId + " node " + node + " in:\n" + read(audit)));
    }

    private static Job startJob(String script, String... options) {
        String jobId = cluster.submit(script, List.of(options));
        return cluster.waitForJob(
                jobId,
                "to run",
                Duration.ofSeconds(300),
                job -> job.state() == JobState.RUNNING && !job.nodeList().isBlank());
    }

    /**
     * logrotate's way: the audit log is moved away and the agent gets SIGHUP (SIGUSR2 alike, as
     * Slurm's daemons take both); its next lines go to a new file at the same path, the moved
     * file keeps what came before, and the agent runs on.
     */
    @ParameterizedTest
    @ValueSource(strings = {"HUP", "USR2"})
    void aSignalAfterLogrotateMovedTheAuditLogStartsANewOneThere(String signal) throws IOException {
        String before = "9" + System.nanoTime() % 1_000_000;
        String after = "8" + System.nanoTime() % 1_000_000;
        call(mark(before, cluster.nodeNames().get(0)));
        Path moved = audit.resolveSibling(audit.getFileName() + "-rotated-" + signal);
        Files.move(audit, moved);
        try {
            agent.signal(cluster, signal);
            Wait.until(
                    "the agent to open a new " + audit,
                    Duration.ofSeconds(10),
                    () -> Files.exists(audit) ? Optional.of(true) : Optional.empty());
            call(mark(after, cluster.nodeNames().get(0)));

            assertTrue(agent.isAlive(), "SIG" + signal + " ended the agent");
            assertTrue(read(moved).contains("\"jobId\":\"" + before + "\""), read(moved));
            assertFalse(
                    read(moved).contains("\"jobId\":\"" + after + "\""), "written to the moved file: " + read(moved));
            auditLineFor(after, cluster.nodeNames().get(0));
        } finally {
            Files.deleteIfExists(moved);
        }
    }

    @Test
    void aNodeOutsideTheCallersJobIsRefusedAndAudited() {
        Job job = startJob("#!/bin/bash\nsleep 300\n", "-N1", "--exclusive", "-J", "agent-it-outside");
        try {
            String outside = cluster.nodeNames().stream()
                    .filter(n -> !Hostlist.expand(job.nodeList()).contains(n))
                    .findFirst()
                    .orElseThrow();
            String before = truth.nodeField(outside, "State");
            CommandResult result = call(mark(job.jobId(), outside));
            assertEquals(1, result.exitCode(), result.stdout() + result.stderr());
            assertTrue(result.stdout().contains("\"ok\":false"), result.stdout());
            assertTrue(result.stdout().contains("not nodes of job " + job.jobId() + ": " + outside), result.stdout());
            assertEquals(before, truth.nodeField(outside, "State"), "the refused node's state must not change");

            String line = auditLineFor(job.jobId(), outside);
            assertTrue(line.contains("\"user\":\"" + cluster.testUser() + "\""), line);
            assertTrue(line.contains("\"ok\":false") && line.contains("\"refused\""), line);
        } finally {
            cluster.run(List.of("scancel", job.jobId()));
        }
    }

    /**
     * The site's health check in the agent's diagnosis: a node Slurm calls ALLOCATED, whose slurmd
     * answers, is marked at the job's request because the check says a reboot is needed.
     */
    @Test
    void aNodeTheSitesHealthCheckFailsIsMarkedThoughSlurmCallsItHealthy() throws IOException {
        Job job = startJob("#!/bin/bash\nsleep 300\n", "-N1", "--exclusive", "-J", "agent-it-health");
        String node = Hostlist.expand(job.nodeList()).get(0);
        String markReboot = "{\"op\":\"mark\",\"jobId\":\"" + job.jobId() + "\",\"nodes\":[\"" + node
                + "\"],\"action\":\"Reboot\",\"state\":\"fail\"}";
        Path flag = healthCheck.flag(node);
        try {
            CommandResult healthy = call(markReboot);
            assertEquals(1, healthy.exitCode(), healthy.stdout());
            assertTrue(healthy.stdout().contains("health check passed"), healthy.stdout());

            Files.writeString(flag, "");
            CommandResult marked = call(markReboot);
            assertEquals(0, marked.exitCode(), marked.stdout() + marked.stderr());
            assertTrue(marked.stdout().contains("health check failed (reboot)"), marked.stdout());
            // What the check printed is for the operator: the agent's log has it, the caller's answer does not.
            assertFalse(marked.stdout().contains("Xid 79"), marked.stdout());
            assertTrue(LocalAgent.read(agent.log()).contains("Xid 79 on GPU 0 of " + node), "the agent's log");
            assertTrue(truth.nodeField(node, "State").contains("FAIL"), truth.nodeField(node, "State"));
            assertEquals("Action:Reboot", truth.nodeField(node, "Reason"));
        } finally {
            Files.deleteIfExists(flag);
            cluster.run(List.of("scancel", job.jobId()));
            cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
        }
    }

    /**
     * A reboot already pending (an administrator's, here) is what the job's supervisor asks for:
     * the agent answers rebooting without asking Slurm again, so the supervisor waits for the
     * node instead of giving the recovery up, and the earlier request's reason stands.
     */
    @Test
    void aRebootAlreadyPendingIsAnsweredRebootingAndNotAskedAgain() throws IOException {
        Job job = startJob("#!/bin/bash\nsleep 300\n", "-N1", "--exclusive", "-J", "agent-it-pending-reboot");
        String node = Hostlist.expand(job.nodeList()).get(0);
        Path flag = healthCheck.flag(node);
        try {
            // The job holds the node, so the ASAP reboot waits for it: REBOOT_REQUESTED, drained.
            CommandResult asked = cluster.run(
                    List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=admin-maintenance", node));
            assertEquals(0, asked.exitCode(), asked.stderr());
            assertTrue(truth.nodeField(node, "State").contains("REBOOT_REQUESTED"), truth.nodeField(node, "State"));
            Files.writeString(flag, ""); // the agent's own diagnosis must agree the node needs a reboot

            CommandResult result =
                    call("{\"op\":\"reboot\",\"jobId\":\"" + job.jobId() + "\",\"nodes\":[\"" + node + "\"]}");
            assertEquals(0, result.exitCode(), result.stdout() + result.stderr());
            assertTrue(result.stdout().contains("\"decision\":\"reboot-requested\""), result.stdout());
            assertTrue(
                    truth.nodeField(node, "Reason").startsWith("admin-maintenance"), truth.nodeField(node, "Reason"));
            assertTrue(truth.nodeField(node, "State").contains("REBOOT_REQUESTED"), truth.nodeField(node, "State"));
        } finally {
            Files.deleteIfExists(flag);
            // The resume calls the reboot off; then the job goes.
            cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            cluster.run(List.of("scancel", job.jobId()));
        }
    }

    @Test
    void anotherUsersJobIsRefused() {
        CommandResult submitted = cluster.run(List.of(
                "sbatch",
                "--parsable",
                "-N1",
                "-J",
                "agent-it-root",
                "--output=/dev/null",
                "--chdir=/tmp",
                "--wrap",
                "sleep 300"));
        assertEquals(0, submitted.exitCode(), submitted.stderr());
        String jobId = submitted.stdout().strip().split(";")[0];
        try {
            Job job = cluster.waitForJob(
                    jobId,
                    "to run",
                    Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING && !j.nodeList().isBlank());
            String node = Hostlist.expand(job.nodeList()).get(0);
            CommandResult result = call(mark(jobId, node));
            assertEquals(1, result.exitCode(), result.stdout() + result.stderr());
            assertTrue(result.stdout().contains("belongs to root(0), not to " + cluster.testUser()), result.stdout());
            assertTrue(auditLineFor(jobId, node).contains("\"refused\""));
        } finally {
            cluster.run(List.of("scancel", jobId));
        }
    }

    @Test
    void aDeadNodeOfTheCallersJobIsMarkedFailAndAHealthyOneIsRefused() {
        // --exclusive: the node killed below runs nothing of anyone else's.
        Job job = startJob("#!/bin/bash\nsleep 600\n", "-N3", "--no-kill", "--exclusive", "-J", "agent-it-fault");
        List<String> nodes = Hostlist.expand(job.nodeList());
        String batchHost = job.batchHost().orElseThrow();
        List<String> others = new ArrayList<>(nodes);
        others.remove(batchHost);
        String victim = others.get(0);
        String healthy = others.get(1);
        boolean killed = false;
        boolean revived = false;
        try {
            CommandResult watched = call("{\"op\":\"watch\",\"jobId\":\"" + job.jobId() + "\"}");
            assertEquals(0, watched.exitCode(), watched.stdout() + watched.stderr());

            cluster.killNode(victim);
            killed = true;
            // The agent's own TCP probe sees the dead slurmd at once, long before SlurmdTimeout;
            // retried only in case slurmd's port still accepted for a moment.
            CommandResult marked = Wait.until(victim + " to be marked", Duration.ofSeconds(60), () -> {
                CommandResult r = call(mark(job.jobId(), victim));
                return r.exitCode() == 0 ? Optional.of(r) : Optional.empty();
            });
            assertTrue(marked.stdout().contains("\"decision\":\"marked\""), marked.stdout());
            assertTrue(truth.nodeField(victim, "State").contains("FAIL"), truth.nodeField(victim, "State"));
            assertEquals("Action:Replace", truth.nodeField(victim, "Reason"));
            assertTrue(auditLineFor(job.jobId(), victim).contains("\"marked\""));

            CommandResult refused = call(mark(job.jobId(), healthy));
            assertEquals(1, refused.exitCode(), refused.stdout() + refused.stderr());
            assertTrue(refused.stdout().contains("finds the node healthy"), refused.stdout());
            assertFalse(truth.nodeField(healthy, "State").contains("FAIL"), truth.nodeField(healthy, "State"));
            assertTrue(auditLineFor(job.jobId(), healthy).contains("\"refused\""));

            // Back as a replacement under the same hostname: the agent returns it to service for
            // the job's owner, because the reason is its own. The node may have left the shrunk
            // job by now; the watch above still makes it the caller's.
            cluster.reviveNode(victim);
            revived = true;
            String resume = "{\"op\":\"resume\",\"jobId\":\"" + job.jobId() + "\",\"nodes\":[\"" + victim + "\"]}";
            CommandResult resumed = Wait.until(victim + " to be resumed", Duration.ofSeconds(60), () -> {
                CommandResult r = call(resume);
                return r.exitCode() == 0 ? Optional.of(r) : Optional.empty();
            });
            assertTrue(resumed.stdout().contains("\"decision\":\"resumed\""), resumed.stdout());
            Wait.until(
                    victim + " to leave FAIL",
                    Duration.ofSeconds(30),
                    () -> truth.nodeField(victim, "State").contains("FAIL") ? Optional.empty() : Optional.of(true));
        } finally {
            cluster.run(List.of("scancel", job.jobId()));
            if (killed && !revived) {
                cluster.reviveNode(victim);
            }
            if (killed) {
                String state = truth.nodeField(victim, "State");
                if (state.contains("FAIL") || state.contains("DOWN") || state.contains("DRAIN")) {
                    cluster.run(List.of("scontrol", "update", "nodename=" + victim, "state=resume"));
                }
            }
        }
    }

    /**
     * The metrics endpoint over real HTTP: a supervised step whose log rule fires and whose re-run
     * succeeds moves the counters and histograms by exactly what happened to it, reported by its
     * supervisor (the test user) to this agent.
     */
    @Test
    void aStepsRuleViolationAndRestartShowInTheScrapedMetrics() {
        String before = agent.scrapeMetrics();
        Path config = cluster.writeJobsFile(
                "agent-it-metrics-" + ProcessHandle.current().pid() + ".yaml", """
                runPolicy:
                  jobMaxRetryCount: 1
                  logMonitoringConfiguration:
                    - name: Heartbeat
                      logPattern: ".*beat.*"
                      expectedRecurringFrequencyInSeconds: 2
                """, "rw-r--r--");
        String jobId = cluster.submit("""
                #!/bin/bash
                export AUTORESUME_CONFIG='%s' AUTORESUME_AGENT_SOCKET='%s'
                '%s' supervise -- srun -N1 -n1 bash -c 'echo "beat $AUTO_RESUME_ATTEMPT"; [ "$AUTO_RESUME_ATTEMPT" = 1 ] && sleep 120; echo done'
                echo "SUP $?"
                """.formatted(config, socket, cluster.launcher()), List.of("-N1"));
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(240));
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, job.state(), output);
        assertTrue(output.contains("SUP 0"), output);
        assertFalse(output.contains("did not count a report"), output);

        // The supervisor sends its reports before it exits; the scrape may still race the last one.
        String after = Wait.until("the agent to count the step's success", Duration.ofSeconds(10), () -> {
            String scrape = agent.scrapeMetrics();
            return LocalAgent.sample(scrape, "autoresume_jobs_successful_total")
                            > LocalAgent.sample(before, "autoresume_jobs_successful_total")
                    ? Optional.of(scrape)
                    : Optional.empty();
        });
        for (String series : List.of(
                "autoresume_jobs_started_total",
                "autoresume_jobs_successful_total",
                "autoresume_jobs_restarted_total{level=\"retry\"}",
                "autoresume_rule_violations_total{kind=\"log\",state=\"HANGING\"}",
                "autoresume_jobs_fault_detection_latency_seconds_count{source=\"log-rule\"}",
                "autoresume_jobs_restart_latency_seconds_count{level=\"retry\"}")) {
            assertEquals(
                    1.0, LocalAgent.sample(after, series) - LocalAgent.sample(before, series), series + "\n" + after);
        }
        double detected = LocalAgent.sample(
                        after, "autoresume_jobs_fault_detection_latency_seconds_sum{source=\"log-rule\"}")
                - LocalAgent.sample(before, "autoresume_jobs_fault_detection_latency_seconds_sum{source=\"log-rule\"}");
        assertTrue(detected >= 2.0 && detected <= 3.0, "detection latency " + detected + " s for a 2 s frequency");
        assertEquals(
                0.0,
                LocalAgent.sample(after, "autoresume_jobs_failed_total")
                        - LocalAgent.sample(before, "autoresume_jobs_failed_total"),
                after);
        assertTrue(LocalAgent.read(audit).contains("\"op\":\"report\""), LocalAgent.read(audit));
    }
}
