package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.xid.XidCatalog.XidClass;
import org.slurmautoresume.nodeops.xid.XidEvent;
import org.slurmautoresume.nodeops.xid.XidWatch.Sighting;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.ControllerOutage;
import org.slurmautoresume.slurm.exec.RetryPolicy;

/** What the agent does with its own node's Xids, over recorded scontrol output. */
class XidResponderTest {

    @TempDir
    Path dir;

    private final FakeSlurm slurm =
            new FakeSlurm().node("node1", "show-node-idle.txt").node("node2", "show-node-down-not-responding.txt");
    private final AgentMetrics metrics = new AgentMetrics();
    private final NodeVerdict verdict = new NodeVerdict();

    private XidResponder responder(String node) throws IOException {
        return new XidResponder(
                new OwnNodeMarker(
                        node, new SlurmClient(slurm.runner), new SlurmControl(slurm.runner), metrics, verdict),
                new AuditLog(dir.resolve("audit.log")),
                metrics);
    }

    private static Sighting sighting(int code, XidClass xidClass, boolean afterStart) {
        return new Sighting(
                new XidEvent("PCI:0000:3b:00", code, "pid=1, name=`rm -rf /`, detail"), xidClass, afterStart, 42);
    }

    @Test
    void aResetClassXidMarksTheNodeForAReboot() throws IOException {
        responder("node1").seen(sighting(79, XidClass.RESET, true));
        assertEquals(
                List.of(
                        List.of(
                                "scontrol",
                                "update",
                                "nodename=node1",
                                "state=fail",
                                "reason=Action:Reboot Xid 79 GPU PCI:0000:3b:00 (GPU has fallen off the bus), seen by autoresume agent")),
                slurm.updates);
        String audit = Files.readString(dir.resolve("audit.log"));
        assertTrue(audit.contains("\"xid\":79") && audit.contains("marked fail: Action:Reboot"), audit);
        assertFalse(audit.contains("rm -rf"), "the driver's text after the code is not the agent's to repeat");
        assertTrue(verdict.unhealthy(), "the liveness port says so, for supervisors to read Slurm now");
    }

    @Test
    void anIsolateClassXidAsksForAReplacement() throws IOException {
        responder("node1").seen(sighting(64, XidClass.ISOLATE, true));
        assertEquals(1, slurm.updates.size());
        assertTrue(slurm.updates.get(0).get(4).startsWith("reason=Action:Replace Xid 64 "), slurm.updates.toString());
    }

    @Test
    void applicationClassXidsAndOldOnesMarkNothing() throws IOException {
        XidResponder responder = responder("node1");
        responder.seen(sighting(31, XidClass.APPLICATION, true));
        responder.seen(sighting(999, XidClass.UNKNOWN, true));
        responder.seen(sighting(48, XidClass.RESET, false));
        assertEquals(List.of(), slurm.updates);
        assertEquals(3, Files.readAllLines(dir.resolve("audit.log")).size(), "each is audited");
        assertFalse(verdict.unhealthy());
    }

    @Test
    void aNodeAlreadyOutOfServiceKeepsItsReason() throws IOException {
        responder("node2").seen(sighting(79, XidClass.RESET, true));
        assertEquals(List.of(), slurm.updates);
        assertTrue(Files.readString(dir.resolve("audit.log")).contains("not marked"));
    }

    @Test
    void anXidSeenWhileSlurmctldIsAwayIsMarkedOnceItAnswers() throws IOException {
        // slurmctld away for the first three calls (the read of the node, then the mark twice), then back.
        int[] away = {3};
        List<String> paused = new java.util.ArrayList<>();
        CommandRunner restarting = request -> away[0]-- > 0
                ? new CommandResult(
                        request,
                        1,
                        "",
                        "slurm_update error: Unable to contact slurm controller (connect failure)",
                        false,
                        Duration.ZERO)
                : slurm.runner.run(request);
        CommandRunner riding = new ControllerOutage(
                        Duration.ofSeconds(180),
                        ControllerOutage.Listener.NONE,
                        RetryPolicy.DEFAULT,
                        d -> paused.add(d.toString()),
                        System::nanoTime,
                        () -> 7)
                .riding(restarting);
        XidResponder responder = new XidResponder(
                new OwnNodeMarker("node1", new SlurmClient(riding), new SlurmControl(riding), metrics, verdict),
                new AuditLog(dir.resolve("audit.log")),
                metrics);
        responder.seen(sighting(79, XidClass.RESET, true));
        assertEquals(1, slurm.updates.size(), "marked once slurmctld answered: " + slurm.updates);
        assertEquals(3, paused.size(), "a pause after each unanswered call");
        assertTrue(verdict.unhealthy());
        assertTrue(Files.readString(dir.resolve("audit.log")).contains("marked fail: Action:Reboot"));
    }

    @Test
    void aNodeUnknownToARestartedSlurmctldIsStillMarked() throws IOException {
        // Right after a slurmctld restart every node is UNKNOWN until its slurmd registers again.
        slurm.nodeText("node1", slurm.nodeText("node1").replaceFirst(" State=\\S+", " State=UNKNOWN"));
        responder("node1").seen(sighting(79, XidClass.RESET, true));
        assertEquals(1, slurm.updates.size(), "not taken for a node someone took out of service already");
    }
}
