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
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JsonRecords;
import org.slurmautoresume.slurm.parse.Records;

class NodeAdminTest {

    private final RecordingRunner slurm = new RecordingRunner()
            // job 21 runs on node[1-3] (show-job-running-expanded.txt); job 22 finished
            .answer(
                    List.of("-o", "show", "job"),
                    jobText("show-job-running-expanded.txt") + "\n" + jobText("show-job-expansion-donor-emptied.txt")
                            + "\n")
            .jobsOn("node1", "21")
            .jobsOn("node2", "21")
            .jobsOn("node3", "21");
    private final NodeAdmin admin =
            new NodeAdmin(new SlurmClient(slurm.runner, OutputFormat.TEXT), new NodeUpdater(slurm.runner));

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
        assertEquals(
                List.of("21"),
                proposal.affectedJobs().stream().map(j -> j.jobId()).toList());
        assertFalse(proposal.killsJobs());
        List<NodeOutcome> outcomes = admin.apply(proposal);
        assertEquals(
                List.of(
                        List.of("scontrol", "update", "nodename=node1", "state=fail", "reason=Action:Replace"),
                        List.of("scontrol", "update", "nodename=node4", "state=fail", "reason=Action:Replace")),
                slurm.changes);
        assertTrue(outcomes.stream().allMatch(NodeOutcome::changed));
    }

    /**
     * A user's line break spoils their job's record in the listing: the job is still named by the
     * id squeue lists on the node, and the other jobs are read as ever.
     */
    @Test
    void aSpoiledJobRecordIsListedByIdAndBlocksNothing() {
        slurm.answer(
                        List.of("-o", "show", "job"),
                        jobText("show-job-running-expanded.txt") + "\n"
                                + jobText("show-job-running-expanded.txt")
                                        .replaceFirst("JobId=21 JobName=\\S+", "JobId=30 JobName=x")
                                        .replaceFirst(" UserId=", "\nJobState=RUNNING NodeList=node3 UserId=")
                                + "\n")
                .jobsOn("node1", "21", "30");
        nodes("node1", "show-node-mixed.txt", "node1");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REPLACE, "node1", true, null);
        assertEquals(
                List.of("21", "30"),
                proposal.affectedJobs().stream().map(j -> j.jobId()).toList());
        assertTrue(proposal.killsJobs());
    }

    @Test
    void forcedReplaceSetsDownWithTheGivenDetailAndKillsJobs() {
        nodes("node1", "show-node-mixed.txt", "node1");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REPLACE, "node1", true, "xid 79");
        assertTrue(proposal.killsJobs());
        admin.apply(proposal);
        assertEquals(
                List.of("scontrol", "update", "nodename=node1", "state=down", "reason=Action:Replace xid 79"),
                slurm.changes.get(0));
    }

    @Test
    void aNodeMidReplacementIsRefusedUnlessForcedAndTheRefusalSaysWhy() {
        nodes("node3", "show-node-mixed-fail.txt", "node3");
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REPLACE, "node3", false, null);
        String why = proposal.targets().get(0).refusal().orElseThrow();
        assertTrue(
                why.contains("mid-replacement")
                        && why.contains("waiting-for-jobs")
                        && why.contains("since 2026-11-22T04:14:41")
                        && why.contains("--force"),
                why);
        List<NodeOutcome> outcomes = admin.apply(proposal);
        assertEquals(NodeOutcome.REFUSED, outcomes.get(0).result());
        assertTrue(slurm.changes.isEmpty());
        assertTrue(admin.propose(NodeOperation.REPLACE, "node3", true, null)
                .targets()
                .get(0)
                .willChange());
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
        assertTrue(admin.propose(NodeOperation.RESUME, "node4", false, null)
                .targets()
                .get(0)
                .refusal()
                .orElseThrow()
                .contains("nothing to resume"));
    }

    /** What {@code scontrol -o show node HOSTLIST} answers once the reboot request ran. */
    private void nodesAfterTheRequest(String hostlist, String... records) {
        slurm.answerAfterAChange(List.of("-o", "show", "node", hostlist), String.join("\n", records) + "\n");
    }

    /** A 22.05 node record with the reason the toolkit's reboot request sets (Slurm replaces the node's). */
    private static String rebootTaken(String fixture, String name) {
        return Records.nodeTextWithReason(fixture, name, "Action:Reboot [root@2026-11-22T04:14:46]");
    }

    @Test
    void rebootIsOneScontrolRebootForAllNodesAndEachIsReadBack() {
        nodes("node[1,4]", "show-node-mixed.txt", "node1", "show-node-idle.txt", "node4");
        nodesAfterTheRequest(
                "node[1,4]",
                rebootTaken("show-node-allocated-reboot-requested.txt", "node1"),
                rebootTaken("show-node-idle-drain-reboot-requested.txt", "node4"));
        List<NodeOutcome> outcomes = admin.apply(admin.propose(NodeOperation.REBOOT, "node[1,4]", false, null));
        assertEquals(
                List.of(List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node[1,4]")),
                slurm.changes);
        assertEquals(
                List.of(NodeOutcome.CHANGED, NodeOutcome.CHANGED),
                outcomes.stream().map(NodeOutcome::result).toList());
        assertEquals(
                "Slurm shows ALLOCATED+DRAIN+REBOOT_REQUESTED", outcomes.get(0).message());
        assertEquals("Slurm shows IDLE+DRAIN+REBOOT_REQUESTED", outcomes.get(1).message());
    }

    @Test
    void aRebootSlurmSkipsIsReportedIgnoredWithTheStateAndWhy() {
        // node4 was idle when read; power saving powered it down before the request reached slurmctld.
        nodes("node4", "show-node-idle.txt", "node4");
        nodesAfterTheRequest("node4", nodeText("show-node-idle-powered-down.txt", "node4"));
        NodeOutcome outcome = admin.apply(admin.propose(NodeOperation.REBOOT, "node4", false, null))
                .get(0);
        assertEquals(NodeOutcome.IGNORED, outcome.result(), outcome.toString());
        assertTrue(
                outcome.message().startsWith("Slurm left it IDLE+POWERED_DOWN: Slurm skips a reboot request")
                        && outcome.message().contains("power saving"),
                outcome.message());
        assertEquals("scontrol reboot ASAP nextstate=RESUME reason=Action:Reboot node4", outcome.command());
    }

    @Test
    void aMixedHostlistSaysWhichNodesSlurmTookAndWhichItSkipped() {
        nodes("node[1,4]", "show-node-mixed.txt", "node1", "show-node-idle.txt", "node4");
        nodesAfterTheRequest(
                "node[1,4]",
                rebootTaken("show-node-allocated-reboot-requested.txt", "node1"),
                nodeText("show-node-idle-powering-down.txt", "node4"));
        List<NodeOutcome> outcomes = admin.apply(admin.propose(NodeOperation.REBOOT, "node[1,4]", false, null));
        assertEquals(1, slurm.changes.size(), slurm.changes.toString());
        assertEquals(
                List.of(NodeOutcome.CHANGED, NodeOutcome.IGNORED),
                outcomes.stream().map(NodeOutcome::result).toList());
        assertTrue(
                outcomes.get(1).message().contains("IDLE+POWERING_DOWN"),
                outcomes.get(1).message());
    }

    @Test
    void aNodeInAStateSlurmSkipsIsNotAskedFor() {
        nodes("node[1,4]", "show-node-mixed.txt", "node1", "show-node-down-drain-reboot-issued.txt", "node4");
        nodesAfterTheRequest("node1", rebootTaken("show-node-allocated-reboot-requested.txt", "node1"));
        NodeAdmin.Proposal proposal = admin.propose(NodeOperation.REBOOT, "node[1,4]", false, null);
        String why = proposal.targets().get(1).refusal().orElseThrow();
        assertTrue(
                why.startsWith("not asked: Slurm skips a reboot request for a node that is rebooting already")
                        && why.contains("DOWN+DRAIN+REBOOT_ISSUED"),
                why);
        List<NodeOutcome> outcomes = admin.apply(proposal);
        assertEquals(
                List.of(List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node1")),
                slurm.changes);
        assertEquals(
                List.of(NodeOutcome.REFUSED, NodeOutcome.CHANGED),
                outcomes.stream().map(NodeOutcome::result).toList());
    }

    @Test
    void aNodeMissingWhenReadBackIsNotClaimed() {
        nodes("node4", "show-node-idle.txt", "node4");
        nodesAfterTheRequest("node4", "");
        NodeOutcome outcome = admin.apply(admin.propose(NodeOperation.REBOOT, "node4", false, null))
                .get(0);
        assertEquals(NodeOutcome.FAILED, outcome.result(), outcome.toString());
        assertTrue(outcome.message().contains("not known"), outcome.message());
    }

    @Test
    void rebootReadsBackTheJsonOfNewerReleasesTheSameWay() {
        // --json node records (25.11's, fixtures/slurm-25.11) with the states after the request put in.
        RecordingRunner json = new RecordingRunner()
                .answer(List.of("--json", "show", "job"), Fixtures.read(JsonRecords.V2411, "show-job-running.json"))
                .answer(
                        List.of("--json", "show", "node", "node[1-2]"),
                        JsonRecords.nodesJson("show-node-idle.json", "{\"name\": \"node1\"}", "{\"name\": \"node2\"}"))
                .answerAfterAChange(
                        List.of("--json", "show", "node", "node[1-2]"),
                        JsonRecords.nodesJson(
                                "show-node-idle.json",
                                "{\"name\": \"node1\", \"state\": [\"IDLE\", \"DRAIN\", \"REBOOT_REQUESTED\"],"
                                        + " \"reason\": \"Action:Reboot\"}",
                                "{\"name\": \"node2\", \"state\": [\"IDLE\", \"POWERED_DOWN\"]}"));
        NodeAdmin jsonAdmin =
                new NodeAdmin(new SlurmClient(json.runner, OutputFormat.JSON), new NodeUpdater(json.runner));
        List<NodeOutcome> outcomes = jsonAdmin.apply(jsonAdmin.propose(NodeOperation.REBOOT, "node[1-2]", false, null));
        assertEquals(
                List.of(NodeOutcome.CHANGED, NodeOutcome.IGNORED),
                outcomes.stream().map(NodeOutcome::result).toList());
        assertTrue(
                outcomes.get(1).message().contains("IDLE+POWERED_DOWN"),
                outcomes.get(1).message());
    }

    @Test
    void resumeIsRefusedWhileARebootIsIssuedEvenForced() {
        nodes("node4", "show-node-down-drain-reboot-issued.txt", "node4");
        for (boolean force : List.of(false, true)) {
            NodeAdmin.Proposal proposal = admin.propose(NodeOperation.RESUME, "node4", force, null);
            String why = proposal.targets().get(0).refusal().orElseThrow();
            assertTrue(
                    why.startsWith("its reboot is issued and not finished (DOWN+DRAIN+REBOOT_ISSUED")
                            && why.contains("returns it to service itself"),
                    why);
            assertEquals(NodeOutcome.REFUSED, admin.apply(proposal).get(0).result());
        }
        assertTrue(slurm.changes.isEmpty(), slurm.changes.toString());
    }

    @Test
    void resumeIsRefusedWhileARebootIsIssuedInJsonToo() {
        RecordingRunner json = new RecordingRunner()
                .answer(List.of("--json", "show", "job"), Fixtures.read(JsonRecords.V2411, "show-job-running.json"))
                .answer(
                        List.of("--json", "show", "node", "node2"),
                        JsonRecords.nodesJson(
                                "show-node-idle.json",
                                "{\"state\": [\"DOWN\", \"DRAIN\", \"REBOOT_ISSUED\"], \"reason\": \"Action:Reboot : reboot issued\"}"));
        NodeAdmin jsonAdmin =
                new NodeAdmin(new SlurmClient(json.runner, OutputFormat.JSON), new NodeUpdater(json.runner));
        NodeOutcome outcome = jsonAdmin
                .apply(jsonAdmin.propose(NodeOperation.RESUME, "node2", false, null))
                .get(0);
        assertEquals(NodeOutcome.REFUSED, outcome.result());
        assertTrue(outcome.message().contains("DOWN+DRAIN+REBOOT_ISSUED"), outcome.message());
        assertTrue(json.changes.isEmpty(), json.changes.toString());
    }

    @Test
    void resumeStillCallsOffARebootOnlyRequested() {
        nodes("node4", "show-node-idle-drain-reboot-requested.txt", "node4");
        admin.apply(admin.propose(NodeOperation.RESUME, "node4", false, null));
        assertEquals(List.of(List.of("scontrol", "update", "nodename=node4", "state=resume")), slurm.changes);
    }

    @Test
    void slurmsOwnRefusalIsReportedAsDenied() {
        nodes("node4", "show-node-idle.txt", "node4");
        slurm.refuseChanges("slurm_update error: Invalid user id\n");
        NodeOutcome outcome = admin.apply(admin.propose(NodeOperation.REPLACE, "node4", false, null))
                .get(0);
        assertEquals(NodeOutcome.DENIED, outcome.result());
        assertTrue(
                outcome.message().contains("Invalid user id")
                        && outcome.message().contains("root"),
                outcome.message());
    }

    @Test
    void statusListsOnlyNodesInReplacementOrReboot() {
        slurm.answer(
                List.of("-o", "show", "node"),
                nodeText("show-node-mixed-fail.txt", "node3") + "\n" + nodeText("show-node-idle.txt", "node4") + "\n"
                        + nodeText("show-node-idle-fail.txt", "node2") + "\n");
        List<NodeStatus> status = admin.status(null);
        assertEquals(
                List.of("node3", "node2"),
                status.stream().map(s -> s.node().name()).toList());
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
