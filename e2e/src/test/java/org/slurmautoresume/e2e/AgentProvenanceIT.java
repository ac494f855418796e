package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * What the ordinary test user cannot get the root agent to undo or reach, on the real cluster:
 * an administrator's FAIL, NHC's drain, a mark an administrator replaced after the job let the
 * node go, and another user's job on a shared node (the site's replace command is refused there,
 * a reboot waits for it). A job record another user spoiled decides nothing for the test user's
 * state=down. Each case asserts Slurm's own state and the agent's decision word.
 */
class AgentProvenanceIT {

    private static final String ADMIN_REASON = "bad DIMM, do not use";

    private static LocalCluster cluster;
    private static ClusterNodes nodes;
    private static LocalAgent agent;
    private static FlaggedHealthCheck healthCheck;
    private static Path replaceRuns;
    private final List<String> jobs = new ArrayList<>();
    /** Nodes a test killed: revived whatever their state says (set down before Slurm saw them silent). */
    private final List<String> killed = new ArrayList<>();

    @BeforeAll
    static void startAgent() throws IOException {
        cluster = LocalCluster.get();
        nodes = new ClusterNodes(cluster);
        healthCheck = FlaggedHealthCheck.create(cluster, "provenance-it-health-");
        // The site's replace command: it only leaves a file per node it was run for.
        Path dir = Files.createTempDirectory(cluster.clusterDir(), "provenance-it-replace-");
        replaceRuns = Files.createDirectories(dir.resolve("runs"));
        Path replace = dir.resolve("replace.sh");
        Files.writeString(replace, "#!/bin/sh\ntouch \"" + replaceRuns + "/$1\"\n");
        Files.setPosixFilePermissions(replace, PosixFilePermissions.fromString("rwxr-xr-x"));
        agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("provenance-it-" + ProcessHandle.current().pid()),
                "--health-command",
                healthCheck.command().toString(),
                "--health-reuse",
                "0", // health turns between requests
                "--replace-command",
                replace.toString());
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

    @AfterEach
    void cleanUp() throws IOException {
        for (String node : cluster.nodeNames()) {
            Files.deleteIfExists(healthCheck.flag(node));
            cluster.nhcPass(node);
            cluster.run(List.of("scontrol", "cancel_reboot", node));
        }
        for (String job : jobs) {
            cluster.run(List.of("scancel", job));
        }
        for (String node : killed) {
            cluster.reviveNode(node);
        }
        // A node set down under a job comes back through COMPLETING, and the scheduler may keep it
        // PLANNED a while (docs/slurm-behaviour.md): in service is what the next test needs.
        for (String node : cluster.nodeNames()) {
            if (nodes.state(node).matches(".*(DOWN|DRAIN|FAIL).*")) {
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            }
            Wait.until(
                    node + " to be back in service",
                    Duration.ofSeconds(180),
                    () -> nodes.state(node).matches("IDLE(\\+PLANNED)?") ? Optional.of(true) : Optional.empty());
        }
    }

    private Job startJob(int nodeCount, String name, String... more) {
        List<String> options = new ArrayList<>(List.of("-N" + nodeCount, "-n" + nodeCount, "--no-kill", "-J", name));
        options.addAll(List.of(more));
        String id = cluster.submit("#!/bin/bash\nsleep 300\n", options);
        jobs.add(id);
        return running(id);
    }

    private Job running(String jobId) {
        return cluster.waitForJob(
                jobId,
                "to run",
                Duration.ofSeconds(240),
                job -> job.state() == JobState.RUNNING && !job.nodeList().isBlank());
    }

    private static JsonNode call(String request) {
        return agent.callAsTestUser(cluster, request);
    }

    private static String decision(JsonNode answer) {
        return answer.get("decisions").get(0).get("decision").asText();
    }

    private static void administratorFails(String node) {
        nodes.scontrol("update", "nodename=" + node, "state=fail", "reason=" + ADMIN_REASON);
    }

    private static void assertAdministratorsFail(String node) {
        assertTrue(nodes.state(node).contains("FAIL"), nodes.state(node));
        assertTrue(nodes.reason(node).startsWith(ADMIN_REASON), nodes.reason(node));
    }

    @Test
    void anAdministratorsFailStaysThroughTheUsersMarkResumeAndReboot() {
        Job job = startJob(1, "provenance-it-admin");
        String node = Hostlist.expand(job.nodeList()).get(0);
        administratorFails(node);

        JsonNode marked = call(LocalAgent.mark(job.jobId(), node, "fail"));
        assertEquals(NodeDecision.ALREADY_OUT, decision(marked), marked.toString());
        assertEquals(NodeDecision.REFUSED, decision(call(LocalAgent.request("resume", job.jobId(), node, ""))));
        assertEquals(NodeDecision.REFUSED, decision(call(LocalAgent.request("reboot", job.jobId(), node, ""))));

        assertAdministratorsFail(node);
        assertFalse(nodes.state(node).contains("REBOOT"), nodes.state(node));
    }

    @Test
    void anNhcDrainStaysThroughTheUsersMarkAndResume() {
        Job job = startJob(1, "provenance-it-nhc");
        String node = Hostlist.expand(job.nodeList()).get(0);
        assertTrue(cluster.nhcFail(node, "check_nv_healthmon: GPU 0 fell off the bus")
                .succeeded());
        Wait.until(
                node + " to be drained by NHC",
                Duration.ofSeconds(30),
                () -> nodes.reason(node).startsWith("NHC:") ? Optional.of(true) : Optional.empty());

        JsonNode marked = call(LocalAgent.mark(job.jobId(), node, "fail"));
        assertEquals(NodeDecision.ALREADY_OUT, decision(marked), marked.toString());
        assertEquals(NodeDecision.REFUSED, decision(call(LocalAgent.request("resume", job.jobId(), node, ""))));

        assertTrue(nodes.state(node).contains("DRAIN") && !nodes.state(node).contains("FAIL"), nodes.state(node));
        assertTrue(nodes.reason(node).startsWith("NHC: check_nv_healthmon"), nodes.reason(node));
    }

    /**
     * The agent marks a faulty node for the job, the job lets it go, an administrator repairs it
     * and fails it again: the job's old mark gives it no say over the node any more.
     */
    @Test
    void aNodeTheJobLetGoIsNotTheJobsOnceAnAdministratorChangedIt() throws IOException {
        Job job = startJob(2, "provenance-it-shrunk");
        List<String> both = Hostlist.expand(job.nodeList());
        String kept = both.get(0);
        String gone = both.get(1);
        Files.writeString(healthCheck.flag(gone), "");
        JsonNode marked = call(LocalAgent.mark(job.jobId(), gone, "fail"));
        assertEquals(NodeDecision.MARKED, decision(marked), marked.toString());
        CommandResult shrunk =
                cluster.runAsTestUser(List.of("scontrol", "update", "jobid=" + job.jobId(), "NodeList=" + kept));
        assertTrue(shrunk.succeeded() || shrunk.stderr().contains("DB index"), shrunk.stderr());
        cluster.waitForJob(
                job.jobId(),
                "to shrink to " + kept,
                Duration.ofSeconds(30),
                j -> j.nodeList().equals(kept));

        // Repaired and back in service: the job may no longer mark it.
        Files.delete(healthCheck.flag(gone));
        nodes.scontrol("update", "nodename=" + gone, "state=resume");
        Files.writeString(healthCheck.flag(gone), "");
        JsonNode again = call(LocalAgent.mark(job.jobId(), gone, "fail"));
        assertEquals(NodeDecision.REFUSED, decision(again), again.toString());
        assertFalse(nodes.state(gone).contains("FAIL"), nodes.state(gone));

        // Failed again by the administrator: nor may it resume or reboot it.
        administratorFails(gone);
        assertEquals(NodeDecision.REFUSED, decision(call(LocalAgent.request("resume", job.jobId(), gone, ""))));
        assertEquals(NodeDecision.REFUSED, decision(call(LocalAgent.request("reboot", job.jobId(), gone, ""))));
        assertAdministratorsFail(gone);
    }

    /**
     * The test user's job and the second user's share a node; the test user's job has the node
     * marked (its fault is real to the agent's check): the site's replace command, which ends every
     * job on a node, is not run; a reboot waits for the other job, which keeps running.
     */
    @Test
    void replaceAndRebootDoNotReachAnotherUsersJobOnASharedNode() throws IOException {
        Job own = startJob(1, "provenance-it-shared");
        String node = Hostlist.expand(own.nodeList()).get(0);
        String other = cluster.submitAsOtherUser(
                "#!/bin/bash\nsleep 300\n", List.of("-N1", "-n1", "-w", node, "-J", "provenance-it-other"));
        jobs.add(other);
        assertEquals(node, running(other).nodeList());
        Files.writeString(healthCheck.flag(node), "");

        JsonNode marked = call(LocalAgent.mark(own.jobId(), node, "fail"));
        assertEquals(NodeDecision.MARKED, decision(marked), marked.toString());
        JsonNode replaced = call(LocalAgent.request("replace", own.jobId(), node, ""));
        assertEquals(NodeDecision.REFUSED, decision(replaced), replaced.toString());
        assertFalse(Files.exists(replaceRuns.resolve(node)), "the site's replace command ran for " + node);

        JsonNode rebooted = call(LocalAgent.request("reboot", own.jobId(), node, ""));
        assertEquals(NodeDecision.REBOOTING, decision(rebooted), rebooted.toString());
        assertTrue(nodes.state(node).contains("REBOOT_REQUESTED"), nodes.state(node));
        assertFalse(nodes.state(node).contains("REBOOT_ISSUED"), nodes.state(node));
        assertEquals(JobState.RUNNING, cluster.slurm().requireJob(other).state());
        assertFalse(Files.exists(replaceRuns.resolve(node)));
    }

    /**
     * The second user's job carries a name with a line break that writes a node list, so its
     * one-line record cannot be read; it runs elsewhere. The test user's dead node still goes
     * down at their request: the jobs on a node are listed by id, and nobody's record decides.
     */
    @Test
    void anotherUsersSpoiledJobRecordDoesNotBlockTheUsersDown() {
        Job own = startJob(1, "provenance-it-down", "--exclusive");
        String node = Hostlist.expand(own.nodeList()).get(0);
        String elsewhere = cluster.nodeNames().stream()
                .filter(n -> !n.equals(node))
                .findFirst()
                .orElseThrow();
        String spoiled = cluster.submitAsOtherUser(
                "#!/bin/bash\nsleep 300\n",
                List.of("-N1", "-n1", "-w", elsewhere, "-J", "x\nJobState=RUNNING NodeList=" + node));
        jobs.add(spoiled);
        Wait.until("job " + spoiled + " to run", Duration.ofSeconds(240), () -> {
            String state = cluster.run(List.of("squeue", "-h", "-j", spoiled, "-o", "%T"))
                    .stdout()
                    .strip();
            return state.equals("RUNNING") ? Optional.of(true) : Optional.empty();
        });

        killed.add(node);
        assertTrue(cluster.killNode(node).succeeded());
        JsonNode down = call(LocalAgent.mark(own.jobId(), node, "down"));
        assertEquals(NodeDecision.MARKED, decision(down), down.toString());
        assertTrue(nodes.state(node).contains("DOWN"), nodes.state(node));
        assertEquals(
                "RUNNING|" + elsewhere,
                cluster.run(List.of("squeue", "-h", "-j", spoiled, "-o", "%T|%N"))
                        .stdout()
                        .strip(),
                "the other user's job runs on where Slurm put it");
    }
}
