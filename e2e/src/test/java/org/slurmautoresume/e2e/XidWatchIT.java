package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.xid.KernelRecord;
import org.slurmautoresume.nodeops.xid.KernelRecordSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * The agent's own-node Xid watch on the real cluster: an agent per node under test, bound to it
 * with {@code --node}, following that node's kernel log. A reset-class Xid marks that node and
 * no other; an application-class one marks nothing; an ordinary user's job that writes a forged
 * Xid into the machine's real kernel log gets nothing marked.
 */
class XidWatchIT {

    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    /** A node nothing runs on and nobody marked, so what the test sees is its own doing. */
    private static String idleNode() {
        return Wait.until(
                "an idle node",
                Duration.ofSeconds(120),
                () -> cluster.nodeNames().stream()
                        .filter(name -> cluster.node(name).state().base().equals("IDLE")
                                && cluster.node(name).state().isSchedulable())
                        .reduce((first, second) -> second));
    }

    private static LocalAgent agentFor(String node, String... more) {
        List<String> options = new java.util.ArrayList<>(List.of("--node", node, "--metrics-listen", "127.0.0.1:0"));
        options.addAll(List.of(more));
        return LocalAgent.start(
                cluster,
                cluster.clusterDir().resolve("xid-it-" + node + "-" + System.nanoTime()),
                options.toArray(String[]::new));
    }

    /** 1 when an earlier run left this Xid in the node's log: the agent counts it once among the old records. */
    private static double leftOver(Path kernelLog, int xid) throws IOException {
        return Files.readString(kernelLog).contains("NVRM: Xid (PCI:0000:3b:00): " + xid + ",") ? 1.0 : 0.0;
    }

    @Test
    void aResetClassXidMarksItsOwnNodeAtOnceAndNoOther() throws Exception {
        String victim = idleNode();
        Path kernelLog = cluster.kernelLog(victim);
        // An earlier run's Xid 79 left in this node's log is one more reset-class sighting (from before the agent).
        double before = leftOver(kernelLog, 79);
        LocalAgent agent = agentFor(victim, "--xid-source", kernelLog.toString());
        try {
            long injected = System.nanoTime();
            cluster.gpuFault(victim, 79);
            Node marked = Wait.until(victim + " marked by its agent", Duration.ofSeconds(30), () -> {
                Node n = cluster.node(victim);
                return n.state().isFail() ? Optional.of(n) : Optional.empty();
            });
            System.out.printf(
                    "XidWatchIT: Xid 79 injected -> %s FAIL seen in Slurm after %d ms%n",
                    victim, (System.nanoTime() - injected) / 1_000_000);
            String reason = marked.reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Reboot Xid 79 GPU PCI:0000:3b:00"), reason);
            for (String other : cluster.nodeNames()) {
                if (!other.equals(victim)) {
                    assertFalse(
                            cluster.node(other)
                                    .reason()
                                    .map(r -> r.text().contains("Xid"))
                                    .orElse(false),
                            other + " was marked for " + victim + "'s Xid");
                }
            }
            assertEquals(
                    1.0, LocalAgent.sample(agent.scrapeMetrics(), "autoresume_nodes_marked_total{action=\"reboot\"}"));
            assertEquals(
                    before + 1.0,
                    LocalAgent.sample(agent.scrapeMetrics(), "autoresume_agent_xids_total{class=\"reset\"}"));
        } finally {
            agent.stop();
            cluster.gpuRepair(victim);
            cluster.run(List.of("scontrol", "update", "nodename=" + victim, "state=resume"));
        }
    }

    @Test
    void anApplicationClassXidMarksNothing() throws Exception {
        String node = idleNode();
        Path kernelLog = cluster.kernelLog(node);
        double before = leftOver(kernelLog, 13);
        LocalAgent agent = agentFor(node, "--xid-source", kernelLog.toString());
        try {
            cluster.gpuFault(node, 13);
            Wait.until(
                    "the agent to count the Xid",
                    Duration.ofSeconds(30),
                    () -> LocalAgent.sample(agent.scrapeMetrics(), "autoresume_agent_xids_total{class=\"application\"}")
                                    >= before + 1.0
                            ? Optional.of(true)
                            : Optional.empty());
            assertTrue(
                    cluster.node(node).state().isSchedulable(),
                    cluster.node(node).state().display());
            assertEquals(
                    0.0, LocalAgent.sample(agent.scrapeMetrics(), "autoresume_nodes_marked_total{action=\"reboot\"}"));
        } finally {
            agent.stop();
        }
    }

    /**
     * The attack: a program named like the driver's message that segfaults makes the kernel log
     * "NVRM: Xid (PCI:[pid]: segfault ... in NVRM: Xid (PCI:0000:3b:00): 79, ..." in the machine's
     * real kernel log. The agent watches the real /dev/kmsg and, through a sysfs tree in which
     * 0000:3b:00 IS an NVIDIA GPU, would act on a report for it: only the message's form stops it.
     */
    @Test
    void anOrdinaryUsersJobCannotForgeAnXid() throws Exception {
        String node = idleNode();
        Path sysfs = Files.createTempDirectory(cluster.clusterDir(), "xid-it-sysfs-");
        Path gpu = Files.createDirectories(sysfs.resolve("bus/pci/devices/0000:3b:00.0"));
        Files.writeString(gpu.resolve("vendor"), "0x10de\n");
        LocalAgent agent = agentFor(node, "--xid-source", "/dev/kmsg", "--sysfs-root", sysfs.toString());
        String token = "forged" + System.nanoTime();
        try {
            String jobId = cluster.submit("""
                    #!/bin/bash
                    d=$(mktemp -d)
                    printf 'int main(void){volatile int*p=0;*p=1;return 0;}' >"$d/c.c"
                    prog="$d/NVRM: Xid (PCI:0000:3b:00): 79, %s"
                    cc -o "$prog" "$d/c.c" || exit 3
                    "$prog"
                    echo "forger exit $?"
                    rm -rf "$d"
                    """.formatted(token), List.of("-N1", "-w", node, "-J", "xid-forger"));
            Job ended = cluster.waitForJobEnd(jobId, Duration.ofSeconds(120));
            assertTrue(cluster.jobOutput(jobId).contains("forger exit 139"), cluster.jobOutput(jobId) + ended);
            long forged = forgedRecordSequence(token);
            Wait.until(
                    "the agent to read past the forged record",
                    Duration.ofSeconds(30),
                    () -> LocalAgent.sample(agent.scrapeMetrics(), "autoresume_agent_kernel_log_sequence") >= forged
                            ? Optional.of(true)
                            : Optional.empty());
            assertTrue(
                    cluster.node(node).state().isSchedulable(),
                    cluster.node(node).state().display());
            String scrape = agent.scrapeMetrics();
            for (String xidClass : List.of("reset", "isolate", "application", "unknown")) {
                assertEquals(0.0, LocalAgent.sample(scrape, "autoresume_agent_xids_total{class=\"" + xidClass + "\"}"));
            }
            assertFalse(LocalAgent.read(agent.auditLog()).contains("\"xid\""), LocalAgent.read(agent.auditLog()));
        } finally {
            agent.stop();
            try (var files = Files.walk(sysfs)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The kernel's record of the forger's crash: it must be there, or the attack was not tried. */
    private static long forgedRecordSequence(String token) throws IOException {
        try (KernelRecordSource kmsg = KernelRecordSource.kmsg(Path.of("/dev/kmsg"))) {
            return kmsg.backlog().stream()
                    .map(KernelRecord::parse)
                    .flatMap(Optional::stream)
                    .filter(r -> r.fromKernel()
                            && r.message().contains(token)
                            && r.message().contains("segfault"))
                    .mapToLong(KernelRecord::sequence)
                    .max()
                    .orElseThrow(() -> new AssertionError("the kernel did not log the forger's segfault"
                            + " (debug.exception-trace off?): the attack was not tried"));
        }
    }
}
