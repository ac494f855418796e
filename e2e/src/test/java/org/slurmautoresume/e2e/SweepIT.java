package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.sweep.SweepLock;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.JobState;

/** `autoresume sweep` repairing the stuck states the local cluster can produce, run as root. */
class SweepIT {

    private static LocalCluster cluster;
    private static ClusterNodes nodes;
    private final ObjectMapper json = new ObjectMapper();
    private Path policy;
    private Path lock;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        nodes = new ClusterNodes(cluster);
    }

    @BeforeEach
    void writePolicy() throws Exception {
        Path dir = Files.createDirectories(cluster.clusterDir().resolve("sweep-it"));
        policy = dir.resolve("policy.yaml");
        lock = dir.resolve("sweep.lock");
        // 4 nodes: let the sweep act on all of them unless a test says otherwise. The shared
        // cluster's accounting holds every test's marks, so the lemon rule (LemonIT) is off here.
        Files.writeString(policy, "maxNodes: 10\nmaxPartitionPercent: 100\nlemonMarks: 0\n");
    }

    @AfterEach
    void restore() {
        cluster.run(List.of("scancel", "--name=sweep-it"));
        cluster.run(List.of("scancel", "--user=" + cluster.testUser()));
        nodes.restoreAll();
    }

    private CommandResult sweep(String... extra) {
        List<String> args = new java.util.ArrayList<>(
                List.of("sweep", "--policy", policy.toString(), "--lock", lock.toString(), "--json"));
        args.addAll(List.of(extra));
        return nodes.autoresume(args.toArray(String[]::new));
    }

    /** The agent sweeping on its own schedule (--sweep-every) does what a timer-driven sweep does. */
    @Test
    void theAgentsScheduledSweepResumesAReplacedNode() throws Exception {
        LocalAgent agent = LocalAgent.start(
                cluster,
                cluster.clusterDir().resolve("sweep-it/agent"),
                "--sweep-every",
                "1",
                "--sweep-policy",
                policy.toString(),
                "--sweep-lock",
                lock.toString());
        try {
            nodes.replaceAndReviveWithoutWaiting("node2"); // the agent's sweep may resume it at once
            nodes.waitForState("node2", "IDLE", Duration.ofSeconds(30));
            JsonNode acted =
                    Wait.until("an audit line for the agent's sweep that resumed node2", Duration.ofSeconds(10), () -> {
                        try {
                            for (String line : Files.readAllLines(agent.auditLog())) {
                                JsonNode entry = json.readTree(line).get("sweep");
                                if (entry != null
                                        && entry.isObject()
                                        && entry.get("status").asText().equals("acted")) {
                                    return Optional.of(entry);
                                }
                            }
                            return Optional.empty();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
            assertEquals(
                    "resume-if-healthy", acted.get("actions").get(0).get("kind").asText(), acted.toString());
            assertEquals("node2", acted.get("actions").get(0).get("target").asText(), acted.toString());
            assertEquals("done", acted.get("actions").get(0).get("result").asText(), acted.toString());
        } finally {
            agent.stop();
        }
    }

    @Test
    void aReplacedNodeBackUnderItsHostnameIsResumedAndASecondSweepHasNothingToDo() throws Exception {
        nodes.replaceAndRevive("node2");

        CommandResult dry = sweep("--dry-run");
        assertEquals(10, dry.exitCode(), dry.stdout() + dry.stderr());
        JsonNode planned = json.readTree(dry.stdout()).get("actions").get(0);
        assertEquals("resume-if-healthy", planned.get("kind").asText());
        assertEquals("planned", planned.get("result").asText());
        assertEquals("IDLE+FAIL", nodes.state("node2"), "--dry-run changed the node");

        CommandResult acted = sweep();
        assertEquals(10, acted.exitCode(), acted.stdout() + acted.stderr());
        assertEquals(
                "done",
                json.readTree(acted.stdout())
                        .get("actions")
                        .get(0)
                        .get("result")
                        .asText());
        nodes.waitForState("node2", "IDLE", Duration.ofSeconds(10));

        CommandResult again = sweep();
        assertEquals(0, again.exitCode(), again.stdout());
        assertEquals(
                "nothing-to-do", json.readTree(again.stdout()).get("status").asText());
    }

    /**
     * The policy's healthCommand is the toolkit's own `autoresume health` (with a fake
     * nvidia-smi and a kernel log holding Xid 79): its exit 8 makes the sweep keep the node out
     * with Action:Reboot, not resume it and not ask for a replacement.
     */
    @Test
    void aReplacedNodeWhoseHealthCheckAsksForARebootIsKeptWithActionReboot() throws Exception {
        Path bin = Files.createDirectories(cluster.clusterDir().resolve("sweep-it/fake-gpu-bin"));
        StringBuilder gpus = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            gpus.append(i)
                    .append(", 00000000:")
                    .append(10 + i)
                    .append(":00.0, GPU-it-")
                    .append(i)
                    .append(", 0, No\n");
        }
        Files.writeString(
                bin.resolve("nvidia-smi"),
                "#!/bin/sh\ncase \"$*\" in\n  *--query-gpu*) printf '%s' '" + gpus + "';;\n  *) exit 2;;\nesac\n");
        Files.writeString(
                bin.resolve("dmesg"),
                "#!/bin/sh\necho '[ 1234.567890] NVRM: Xid (PCI:0000:10:00): 79,"
                        + " pid=1234, name=python, GPU has fallen off the bus.'\n");
        for (String tool : List.of("nvidia-smi", "dmesg")) {
            Files.setPosixFilePermissions(
                    bin.resolve(tool), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.writeString(
                policy,
                "maxNodes: 10\nmaxPartitionPercent: 100\nlemonMarks: 0\nhealthCommand: [\"env\", \"PATH=" + bin + ":"
                        + System.getenv("PATH") + "\", \"" + cluster.launcher()
                        + "\", \"health\", \"--check\", \"gpu\","
                        + " \"--expected-gpus\", \"8\", \"--node\", \"{node}\","
                        // The fake dmesg is this node's kernel log here, not the machine's own /dev/kmsg.
                        + " \"--kernel-log\", \"-\"]\n");
        nodes.replaceAndRevive("node2");

        CommandResult swept = sweep();
        assertEquals(10, swept.exitCode(), swept.stdout() + swept.stderr());
        JsonNode action = json.readTree(swept.stdout()).get("actions").get(0);
        assertEquals("resume-if-healthy", action.get("kind").asText(), action.toString());
        assertEquals("kept", action.get("result").asText(), action.toString());
        assertTrue(action.get("message").asText().contains("exited 8"), action.toString());
        assertTrue(nodes.state("node2").contains("FAIL"), nodes.state("node2"));
        assertTrue(nodes.reason("node2").startsWith("Action:Reboot health check failed"), nodes.reason("node2"));
    }

    /**
     * The security rule of the sweep (SECURITY.md): a user's job named exactly as recovery names
     * its donors, for a job of theirs that has ended: a rule that trusted the name would cancel it
     * as root. It is reported and left running.
     */
    @Test
    void aJobMerelyNamedLikeADonorIsLeftAlone() throws Exception {
        String ended = cluster.submit("#!/bin/bash\ntrue\n", List.of("-N1", "-w", "node1", "--job-name=sweep-it"));
        cluster.waitForJobEnd(ended, Duration.ofSeconds(300));
        String forged = cluster.submit(
                "#!/bin/bash\nsleep 300\n", List.of("-N1", "-w", "node2", "--job-name=autoresume-donor-" + ended));
        cluster.waitForJob(forged, "to run", Duration.ofSeconds(300), j -> j.state() == JobState.RUNNING);

        CommandResult swept = sweep();
        JsonNode report = json.readTree(swept.stdout());
        for (JsonNode action : report.get("actions")) {
            assertFalse(action.get("target").asText().equals(forged), "the sweep acted on the forged job: " + action);
        }
        boolean reported = false;
        for (JsonNode leftover : report.get("leftoverJobs")) {
            reported |= leftover.get("jobId").asText().equals(forged)
                    && leftover.get("kind").asText().equals("donor-named-job");
        }
        assertTrue(reported, swept.stdout());
        assertEquals(JobState.RUNNING, cluster.slurm().requireJob(forged).state());
    }

    /**
     * The sweep writes --textfile as root, in a directory the collector reads; where others may
     * write there (a drop directory left world-writable), the test user plants a link at the file's
     * name to a root-owned file. The pass replaces the link with its own file and never writes
     * through it.
     */
    @Test
    void aLinkTheTestUserPlantsAtTheTextfileIsReplacedNotWrittenThrough() throws Exception {
        Path drop = Files.createDirectories(cluster.clusterDir().resolve("sweep-it/textfile-drop"));
        Files.setPosixFilePermissions(drop, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path rootsOwn = cluster.clusterDir().resolve("sweep-it/roots-own.txt");
        Files.writeString(rootsOwn, "root's own\n");
        Path textfile = drop.resolve("autoresume_sweep.prom");
        Files.deleteIfExists(textfile);
        CommandResult planted = cluster.runAsTestUser(List.of("ln", "-s", rootsOwn.toString(), textfile.toString()));
        assertEquals(0, planted.exitCode(), planted.stderr());
        assertTrue(Files.isSymbolicLink(textfile));

        CommandResult swept = sweep("--textfile", textfile.toString());
        assertEquals(0, swept.exitCode(), swept.stdout() + swept.stderr());
        assertEquals("root's own\n", Files.readString(rootsOwn));
        assertFalse(Files.isSymbolicLink(textfile));
        assertEquals(0, (int) Files.getAttribute(textfile, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        assertTrue(
                Files.readString(textfile).contains("autoresume_sweep_last_pass_nodes_seen 4"),
                Files.readString(textfile));
    }

    @Test
    void aSecondSweepFindsTheLockHeldAndChangesNothing() throws Exception {
        nodes.replaceAndRevive("node2");
        try (SweepLock held = SweepLock.acquire(lock)) {
            CommandResult busy = sweep();
            assertEquals(12, busy.exitCode(), busy.stdout() + busy.stderr());
            assertTrue(busy.stderr().contains("pid=" + ProcessHandle.current().pid()), busy.stderr());
            assertEquals("IDLE+FAIL", nodes.state("node2"));
        }
        assertEquals(10, sweep().exitCode());
    }

    @Test
    void capsHoldBackAndSaySoThenTheNextSweepFinishes() throws Exception {
        Files.writeString(policy, "maxNodes: 1\nmaxPartitionPercent: 100\nlemonMarks: 0\n");
        nodes.replaceAndRevive("node2");
        nodes.replaceAndRevive("node3");

        CommandResult first = sweep();
        assertEquals(11, first.exitCode(), first.stdout() + first.stderr());
        JsonNode report = json.readTree(first.stdout());
        assertEquals("held-back", report.get("status").asText());
        assertEquals(1, report.get("actions").size());
        assertEquals(1, report.get("heldBack").size());
        assertTrue(report.get("heldBack").get(0).get("heldBecause").asText().contains("maxNodes=1"));

        CommandResult second = sweep();
        assertEquals(10, second.exitCode(), second.stdout() + second.stderr());
        nodes.waitForState("node2", "IDLE", Duration.ofSeconds(10));
        nodes.waitForState("node3", "IDLE", Duration.ofSeconds(10));
    }

    @Test
    void aKilledSlurmdThatStaysDownIsMarkedForReplacement() throws Exception {
        Files.writeString(policy, "notRespondingAfterSeconds: 1\nmaxPartitionPercent: 100\nlemonMarks: 0\n");
        // down* is slurmctld's own verdict, given only at SlurmdTimeout. An admin's state=down
        // does not stand in for it: no NOT_RESPONDING follows (seen on 22.05). At the cluster's
        // 300 s it takes up to 400 s, so this test shortens SlurmdTimeout while it waits.
        cluster.withSlurmdTimeout(15, () -> {
            cluster.killNode("node4");
            nodes.waitForState("node4", "DOWN+NOT_RESPONDING", Duration.ofSeconds(90)); // 15 s + ping cycles
        });
        Wait.until("node4 down for over a second", Duration.ofSeconds(10), () -> {
            CommandResult plan = sweep("--dry-run");
            return plan.exitCode() == 10 ? Optional.of(plan) : Optional.empty();
        });
        CommandResult acted = sweep();
        assertEquals(10, acted.exitCode(), acted.stdout() + acted.stderr());
        assertEquals("DOWN+FAIL+NOT_RESPONDING", nodes.state("node4"));
        assertTrue(nodes.reason("node4").startsWith("Action:Replace"), nodes.reason("node4"));

        cluster.reviveNode("node4"); // the replacement arrives: the next sweep returns it to service
        CommandResult back = sweep();
        assertEquals(10, back.exitCode(), back.stdout() + back.stderr());
        nodes.waitForState("node4", "IDLE", Duration.ofSeconds(10));
    }
}
