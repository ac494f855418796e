package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * What an ordinary user can NOT get the root agent to do, on the real
 * cluster: resume an administrator's drain, set a node down, or act on a node they shrank out of
 * their job; and what they still can: mark and resume a faulty node of their own job. Each case
 * asserts Slurm's own state and the agent's structured answer. The site's health check (a flag
 * file per node) makes a node unhealthy on demand, so that only the authority rules stand between
 * the request and the node.
 */
class AgentAuthorityIT {

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static LocalAgent agent;
    private static FlaggedHealthCheck healthCheck;

    @BeforeAll
    static void startAgent() throws IOException {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        healthCheck = FlaggedHealthCheck.create(cluster, "authority-it-health-");
        // Tests turn a node's health between two requests: no verdict is shared across them.
        agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("authority-it-" + ProcessHandle.current().pid()),
                "--health-command",
                healthCheck.command().toString(),
                "--health-reuse",
                "0");
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

    private static JsonNode call(String json) {
        return agent.callAsTestUser(cluster, json);
    }

    private static String request(String op, String jobId, String node, String extra) {
        return LocalAgent.request(op, jobId, node, extra);
    }

    private static String mark(String jobId, String node, String state) {
        return LocalAgent.mark(jobId, node, state);
    }

    private static void assertRefused(JsonNode answer, String node, String why) {
        assertFalse(answer.get("ok").asBoolean(), answer.toString());
        JsonNode decision = answer.get("decisions").get(0);
        assertEquals(node, decision.get("node").asText(), answer.toString());
        assertEquals("refused", decision.get("decision").asText(), answer.toString());
        assertTrue(decision.get("why").asText().contains(why), answer.toString());
    }

    private static Job startJob(int nodes, String name) {
        String jobId = cluster.submit(
                "#!/bin/bash\nsleep 300\n", List.of("-N" + nodes, "--exclusive", "--no-kill", "-J", name));
        return cluster.waitForJob(
                jobId,
                "to run",
                Duration.ofSeconds(300),
                job -> job.state() == JobState.RUNNING && !job.nodeList().isBlank());
    }

    private static void unhealthy(String node) throws IOException {
        Files.writeString(healthCheck.flag(node), "");
    }

    private static void cleanUp(Job job, List<String> nodes) throws IOException {
        cluster.run(List.of("scancel", job.jobId()));
        for (String node : nodes) {
            Files.deleteIfExists(healthCheck.flag(node));
            String state = truth.nodeField(node, "State");
            if (state.contains("FAIL") || state.contains("DRAIN") || state.contains("DOWN")) {
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            }
        }
    }

    /**
     * The job's StartTime once it is back in the queue after a requeue, done completing (PENDING,
     * or held): Slurm's requeue delay puts it ahead.
     */
    private static String queuedAgain(String jobId) {
        cluster.waitForJob(
                jobId,
                "to be back in the queue",
                Duration.ofSeconds(60),
                j -> j.restarts() >= 1 && !j.state().isActive() && !j.state().isFinished());
        return truth.jobField(jobId, "StartTime");
    }

    /** The agent's answer to the test user's {@code expedite} of the job, asked once the job runs. */
    private static JsonNode expediteOnceRunning(String jobId) {
        cluster.waitForJob(jobId, "to run", Duration.ofSeconds(300), j -> j.state() == JobState.RUNNING);
        return call("{\"op\":\"expedite\",\"jobId\":\"" + jobId + "\"}");
    }

    /** Long enough for an agent that took the request to have acted (its settle and a round). */
    private static final Duration EXPEDITE_WOULD_HAVE_ACTED = Duration.ofSeconds(5);

    @Test
    void anotherUsersJobIsNotStartedEarlierAtTheUsersRequest() throws Exception {
        String other = cluster.submitAsOtherUser("#!/bin/bash\nsleep 300\n", List.of("-N1", "--requeue"));
        try {
            JsonNode answer = expediteOnceRunning(other);
            assertFalse(answer.get("ok").asBoolean(), answer.toString());
            assertTrue(answer.get("message").asText().contains("belongs to"), answer.toString());
            assertTrue(cluster.run(List.of("scontrol", "requeue", other)).succeeded());
            String held = queuedAgain(other);
            Thread.sleep(EXPEDITE_WOULD_HAVE_ACTED.toMillis()); // a negative: nothing to wait for
            assertEquals(held, truth.jobField(other, "StartTime"));
            assertTrue(
                    LocalDateTime.parse(held).isAfter(LocalDateTime.now().plusSeconds(60)),
                    "Slurm's requeue delay still holds the job: " + held);
            assertEquals("BeginTime", truth.jobField(other, "Reason"));
        } finally {
            cluster.run(List.of("scancel", other));
        }
    }

    @Test
    void theUsersOwnRequeuedJobHeldByAnAdministratorStaysHeld() throws Exception {
        String jobId = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "--requeue"));
        try {
            JsonNode answer = expediteOnceRunning(jobId);
            assertTrue(answer.get("ok").asBoolean(), answer.toString());
            // The administrator requeues it held: no longer held by Slurm's requeue delay alone.
            assertTrue(cluster.run(List.of("scontrol", "requeuehold", jobId)).succeeded());
            String held = queuedAgain(jobId);
            String state = truth.jobField(jobId, "JobState");
            Thread.sleep(EXPEDITE_WOULD_HAVE_ACTED.toMillis()); // a negative: nothing to wait for
            assertEquals("0", truth.jobField(jobId, "Priority"), "still held");
            assertEquals(state, truth.jobField(jobId, "JobState"));
            assertEquals(held, truth.jobField(jobId, "StartTime"));
        } finally {
            cluster.run(List.of("scancel", jobId));
        }
    }

    @Test
    void anAdministratorsDrainIsNotResumedAtTheUsersRequest() throws IOException {
        Job job = startJob(1, "authority-it-admin-drain");
        String node = Hostlist.expand(job.nodeList()).get(0);
        try {
            CommandResult drained = cluster.run(
                    List.of("scontrol", "update", "nodename=" + node, "state=drain", "reason=Action:Replace"));
            assertTrue(drained.succeeded(), drained.stderr());

            assertRefused(call(request("resume", job.jobId(), node, "")), node, "no mark of its own on " + node);
            assertTrue(truth.nodeField(node, "State").contains("DRAIN"), truth.nodeField(node, "State"));
            assertTrue(truth.nodeField(node, "Reason").startsWith("Action:Replace"), truth.nodeField(node, "Reason"));
        } finally {
            cleanUp(job, List.of(node));
        }
    }

    @Test
    void anOrdinaryUserCannotSetANodeDown() throws IOException {
        Job job = startJob(1, "authority-it-down");
        String node = Hostlist.expand(job.nodeList()).get(0);
        try {
            unhealthy(node);
            String before = truth.nodeField(node, "State");
            assertRefused(call(mark(job.jobId(), node, "down")), node, "state=down is refused");
            assertEquals(before, truth.nodeField(node, "State"));
            assertEquals(JobState.RUNNING.name(), truth.jobField(job.jobId(), "JobState"));
        } finally {
            cleanUp(job, List.of(node));
        }
    }

    @Test
    void aNodeShrunkOutOfTheJobIsNoLongerTheUsersToMark() throws IOException {
        Job job = startJob(2, "authority-it-shrink");
        List<String> nodes = Hostlist.expand(job.nodeList());
        try {
            JsonNode watched = call("{\"op\":\"watch\",\"jobId\":\"" + job.jobId() + "\"}");
            assertTrue(watched.get("ok").asBoolean(), watched.toString());
            CommandResult shrunk =
                    cluster.runAsTestUser(List.of("scontrol", "update", "jobid=" + job.jobId(), "NumNodes=1"));
            assertTrue(shrunk.succeeded() || shrunk.stderr().contains("DB index"), shrunk.stderr());
            Job now = cluster.waitForJob(
                    job.jobId(),
                    "to shrink",
                    Duration.ofSeconds(30),
                    j -> Hostlist.expand(j.nodeList()).size() == 1);
            String kept = Hostlist.expand(now.nodeList()).get(0);
            String gone =
                    nodes.stream().filter(n -> !n.equals(kept)).findFirst().orElseThrow();
            unhealthy(gone);
            String before = truth.nodeField(gone, "State");

            assertRefused(call(mark(job.jobId(), gone, "fail")), gone, "not nodes of job " + job.jobId() + ": " + gone);
            assertEquals(before, truth.nodeField(gone, "State"));
            assertFalse(truth.nodeField(gone, "State").contains("FAIL"), truth.nodeField(gone, "State"));
        } finally {
            cleanUp(job, nodes);
        }
    }

    /** The caller's own recovery still works: its faulty node is marked, and its own mark resumed. */
    @Test
    void theUsersOwnFaultyNodeIsMarkedAndItsOwnMarkResumed() throws IOException {
        Job job = startJob(1, "authority-it-own");
        String node = Hostlist.expand(job.nodeList()).get(0);
        try {
            unhealthy(node);
            JsonNode marked = call(mark(job.jobId(), node, "fail"));
            assertTrue(marked.get("ok").asBoolean(), marked.toString());
            assertEquals(
                    "marked", marked.get("decisions").get(0).get("decision").asText(), marked.toString());
            assertTrue(truth.nodeField(node, "State").contains("FAIL"), truth.nodeField(node, "State"));
            assertTrue(truth.nodeField(node, "Reason").startsWith("Action:Replace"), truth.nodeField(node, "Reason"));

            Files.delete(healthCheck.flag(node));
            JsonNode resumed = call(request("resume", job.jobId(), node, ""));
            assertTrue(resumed.get("ok").asBoolean(), resumed.toString());
            assertEquals(
                    "resumed", resumed.get("decisions").get(0).get("decision").asText(), resumed.toString());
            assertFalse(truth.nodeField(node, "State").contains("FAIL"), truth.nodeField(node, "State"));
        } finally {
            cleanUp(job, List.of(node));
        }
    }
}
