package org.slurmautoresume.nodeops.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.jobText;
import static org.slurmautoresume.slurm.parse.Records.nodeText;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;

class NodeAdminTest {

    private final RecordingRunner slurm = new RecordingRunner()
            // job 21 runs on node[1-3] (show-job-running-expanded.txt); job 22 finished
            .answer(List.of("-o", "show", "job"), jobText("show-job-running-expanded.txt") + "\n"
                    + jobText("show-job-expansion-donor-emptied.txt") + "\n");
    private final NodeAdmin admin = new NodeAdmin(new SlurmClient(slurm.runner, OutputFormat.TEXT),
            new NodeUpdater(slurm.runner));

    private void nodes(String hostlist, String... fixtureAndName) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < fixtureAndName.length; i += 2) {
            out.append(nodeText(fixtureAndName[i], fixtureAndName[i + 1])).append('\n');
        }
        slurm.answer(List.of("-o", "show", "node", hostlist), out.toString());
    }

    @Test
    void replaceMarksFailAndListsTheJobsThatWillFinishFirst() {
        nodes("node[1,4]", "show-node-mixed.txt", "node1", "show-node-idle.txt", "node4");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REPLACE, "node[1,4]", false, null);
        assertEquals(List.of("21"), proposal.affectedJobs().stream().map(j -> j.jobId()).toList());
        assertFalse(proposal.killsJobs());
        List<NodeOutcome> outcomes = admin.apply(proposal);
        assertEquals(List.of(
                List.of("scontrol", "update", "nodename=node1", "state=fail", "reason=Action:Replace"),
                List.of("scontrol", "update", "nodename=node4", "state=fail", "reason=Action:Replace")), slurm.changes);
        assertTrue(outcomes.stream().allMatch(NodeOutcome::changed));
    }

    @Test
    void forcedReplaceSetsDownWithTheGivenDetailAndKillsJobs() {
        nodes("node1", "show-node-mixed.txt", "node1");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REPLACE, "node1", true, "xid 79");
        assertTrue(proposal.killsJobs());
        admin.apply(proposal);
        assertEquals(List.of("scontrol", "update", "nodename=node1", "state=down", "reason=Action:Replace xid 79"),
                slurm.changes.get(0));
    }

    @Test
    void aNodeMidReplacementIsRefusedUnlessForcedAndTheRefusalSaysWhy() {
        nodes("node3", "show-node-mixed-fail.txt", "node3");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REPLACE, "node3", false, null);
        String why = proposal.targets().get(0).refusal().orElseThrow();
        assertTrue(why.contains("mid-replacement") && why.contains("waiting-for-jobs")
                && why.contains("since 2026-11-22T04:14:41") && why.contains("--force"), why);
        List<NodeOutcome> outcomes = admin.apply(proposal);
        assertEquals(NodeOutcome.REFUSED, outcomes.get(0).result());
        assertTrue(slurm.changes.isEmpty());
        assertTrue(admin.propose(NodeOperation.REPLACE, "node3", true, null).targets().get(0).willChange());
    }

    @Test
    void resumeRefusesANodeStillWaitingForItsReplacement() {
        nodes("node2", "show-node-fail-not-responding.txt", "node2");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.RESUME, "node2", false, null);
        assertTrue(proposal.targets().get(0).refusal().orElseThrow().contains("waiting-for-replacement"));
        admin.apply(proposal);
        assertTrue(slurm.changes.isEmpty());
    }

    @Test
    void resumeReturnsANodeBackUnderItsHostname() {
        nodes("node2", "show-node-idle-fail.txt", "node2");
        admin.apply(admin.propose(NodeOperation.RESUME, "node2", false, null));
        assertEquals(List.of(List.of("scontrol", "update", "nodename=node2", "state=resume")), slurm.changes);
    }

    @Test
    void resumeOfAnIdleNodeSaysThereIsNothingToResume() {
        nodes("node4", "show-node-idle.txt", "node4");
        assertTrue(admin.propose(NodeOperation.RESUME, "node4", false, null).targets().get(0).refusal().orElseThrow()
                .contains("nothing to resume"));
    }

    @Test
    void rebootIsOneScontrolRebootForAllNodes() {
        nodes("node[1,4]", "show-node-mixed.txt", "node1", "show-node-idle.txt", "node4");
        List<NodeOutcome> outcomes = admin.apply(admin.propose(NodeOperation.REBOOT, "node[1,4]", false, null));
        assertEquals(List.of(List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node[1,4]")),
                slurm.changes);
        assertEquals(2, outcomes.size());
    }

    @Test
    void slurmsOwnRefusalIsReportedAsDenied() {
        nodes("node4", "show-node-idle.txt", "node4");
        slurm.refuseChanges("slurm_update error: Invalid user id\n");
        NodeOutcome outcome = admin.apply(admin.propose(NodeOperation.REPLACE, "node4", false, null)).get(0);
        assertEquals(NodeOutcome.DENIED, outcome.result());
        assertTrue(outcome.message().contains("Invalid user id") && outcome.message().contains("root"), outcome.message());
    }

    @Test
    void statusListsOnlyNodesInReplacementOrReboot() {
        slurm.answer(List.of("-o", "show", "node"), nodeText("show-node-mixed-fail.txt", "node3") + "\n"
                + nodeText("show-node-idle.txt", "node4") + "\n" + nodeText("show-node-idle-fail.txt", "node2") + "\n");
        List<NodeStatus> status = admin.status(null);
        assertEquals(List.of("node3", "node2"), status.stream().map(s -> s.node().name()).toList());
        assertEquals(NodePhase.WAITING_FOR_JOBS, status.get(0).phase());
        assertEquals("2026-11-22T04:14:41", status.get(0).since().orElseThrow().toString());
        assertEquals("Action:Replace", status.get(0).reason());
    }

    @Test
    void noJobsInTheSystemIsAnEmptyList() {
        RecordingRunner empty = new RecordingRunner().answer(List.of("-o", "show", "job"), "No jobs in the system\n");
        assertTrue(new SlurmClient(empty.runner, OutputFormat.TEXT).jobs().isEmpty());
    }
}
