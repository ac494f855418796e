package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The root agent stopped and started again, as {@code systemctl restart} does, while jobs need
 * it: a supervisor waits for it instead of giving up on the first refused
 * connection, and the restarted agent still knows which marks are its own (its ledger in
 * {@code --state-dir}), so it resumes those and still not an administrator's.
 */
class AgentRestartIT {

    /** As InJobSpareIT: a first start may wait for nodes an earlier test left PLANNED. */
    private static final Duration FIRST_START = Duration.ofSeconds(300);
    /** How long the agent stays away: a slow restart, well inside the supervisor's 150 s bound. */
    private static final Duration AGENT_AWAY = Duration.ofSeconds(12);

    private static final String PREFIX = "86-agent-restart-it-";

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @Test
    void aNodeThatDiesWhileTheAgentIsAwayIsMarkedOnceItIsBackAndTheStepRunsAgain() throws Exception {
        String jobId = supervised.stepWithSpare(cluster, FIRST_START);
        try {
            supervised.stopAgentKeepingState();
            cluster.killNode("node2");
            // The outage under test, not a wait for a condition: the supervisor sees node2 silent meanwhile.
            Thread.sleep(AGENT_AWAY.toMillis());
            assertFalse(
                    reason("node2").startsWith("Action:Replace"),
                    "nothing but the agent marks nodes, and it is away: " + reason("node2"));
            assertEquals(JobState.RUNNING.name(), truth.jobField(jobId, "JobState"), "the job waits for the agent");
            supervised.startAgentAgain(cluster);

            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
            assertTrue(
                    truth.nodeField("node2", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node2", "Reason"));
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare", "node2", "node[1,3]"),
                    List.of(replacement.detail("path"), replacement.faultyNodes(), replacement.detail("stepNodes")),
                    timeline.toString());
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
            // The agent that marked node2 is the second one: the first never heard of the job's fault.
            String audit = LocalAgent.read(supervised.agent().auditLog());
            assertTrue(
                    audit.lines()
                            .anyMatch(l -> l.contains("\"op\":\"mark\"")
                                    && l.contains("\"node2\"")
                                    && l.contains("\"jobId\":\"" + jobId + "\"")
                                    && l.contains("\"ok\":true")),
                    audit);
            output.lines().filter(l -> l.contains("agent")).forEach(System.out::println);
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }

    /**
     * Mark, restart, resume: node2 of a --no-kill job dies and the agent marks it for the job; an
     * administrator drains node1 with the same reason (Slurm shows both as root's); the agent
     * restarts; node2 comes back. The new agent resumes node2, which the agent before the restart
     * marked, and refuses node1, which it never marked.
     */
    @Test
    void theRestartedAgentStillResumesItsOwnMarkAndNotAnAdministratorsDrain() throws Exception {
        String jobId = cluster.submit(
                "#!/bin/bash\nsleep 300\n",
                List.of("-N2", "-w", "node[1-2]", "--exclusive", "--no-kill", "-J", "agent-restart-it"));
        try {
            cluster.waitForJob(jobId, "to run", FIRST_START, job -> job.state() == JobState.RUNNING);
            cluster.killNode("node2");
            // The agent marks only what its own probe finds dead: asked again until node2's slurmd is gone.
            AtomicReference<String> said = new AtomicReference<>("");
            try {
                Wait.until("the agent to mark node2 for job " + jobId, Duration.ofSeconds(30), () -> {
                    CommandResult marked =
                            call(request("mark", jobId, "node2", ",\"action\":\"Replace\",\"state\":\"fail\""));
                    said.set(marked.stdout() + marked.stderr());
                    return said.get().contains("\"decision\":\"marked\"") ? Optional.of(true) : Optional.empty();
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; the agent's last answer: " + said.get(), e);
            }
            cluster.run(List.of("scontrol", "update", "nodename=node1", "state=drain", "reason=Action:Replace"));

            supervised.stopAgentKeepingState();
            supervised.startAgentAgain(cluster);
            cluster.reviveNode("node2");
            Wait.until(
                    "node2's slurmd to answer slurmctld again",
                    Duration.ofSeconds(120),
                    () -> truth.nodeField("node2", "State").contains("NOT_RESPONDING")
                            ? Optional.empty()
                            : Optional.of(true));

            CommandResult resumed = call(request("resume", jobId, "node2", ""));
            assertTrue(resumed.stdout().contains("\"decision\":\"resumed\""), resumed.stdout() + resumed.stderr());
            assertFalse(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));

            CommandResult refused = call(request("resume", jobId, "node1", ""));
            assertTrue(
                    refused.stdout().contains("\"ok\":false")
                            && refused.stdout().contains("no mark of its own"),
                    refused.stdout() + refused.stderr());
            assertTrue(truth.nodeField("node1", "State").contains("DRAIN"), truth.nodeField("node1", "State"));
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node[1-2]", "state=resume"));
        }
    }

    /** The node's Reason, empty when it has none (scontrol then leaves the key out). */
    private static String reason(String node) {
        Matcher m = Pattern.compile(" Reason=(\\S+)")
                .matcher(cluster.run(List.of("scontrol", "-o", "show", "node", node))
                        .stdout());
        return m.find() ? m.group(1) : "";
    }

    private static String request(String op, String jobId, String node, String more) {
        return "{\"op\":\"" + op + "\",\"jobId\":\"" + jobId + "\",\"nodes\":[\"" + node + "\"]" + more + "}";
    }

    /** As the job's owner, through the hidden agent-call command (what a supervisor sends). */
    private static CommandResult call(String json) {
        return cluster.runAsTestUser(List.of(
                cluster.launcher().toString(),
                "agent-call",
                "--socket",
                supervised.agent().socket().toString(),
                json));
    }
}
