package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.slurmautoresume.slurm.parse.Records.jobText;
import static org.slurmautoresume.slurm.parse.Records.nodeText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.parse.Fixtures;

/** `autoresume node ...` over recorded 22.05 output; job 21 runs on node[1-3]. */
class NodeCommandTest {

    private final CliHarness cli = new CliHarness(Map.of())
            .answer(List.of("-o", "show", "job"), 0, jobText("show-job-running-expanded.txt") + "\n", "")
            .answer(List.of("show", "config"), 0, Fixtures.read("slurm-22.05", "show-config.txt"), "");

    {
        // The ids squeue lists on each node: job 21 on node[1-3], none on node4.
        for (String node : List.of("node1", "node2", "node3", "node4")) {
            cli.answer(
                    List.of(
                            "-h",
                            "-a",
                            "-w",
                            node,
                            "-t",
                            "RUNNING,SUSPENDED,COMPLETING,CONFIGURING,RESIZING,SIGNALING,STAGE_OUT,STOPPED",
                            "-o",
                            "%A"),
                    0,
                    node.equals("node4") ? "" : "21\n",
                    "");
        }
    }

    private CliHarness node(String name, String fixture) {
        return cli.answer(List.of("-o", "show", "node", name), 0, nodeText(fixture, name) + "\n", "");
    }

    private void verifyNoUpdate() {
        verify(cli.runner, never()).run(argThat(r -> r != null && r.argv().contains("update")));
    }

    private void verifyUpdate(String... args) {
        List<String> expected = new java.util.ArrayList<>(List.of("scontrol"));
        expected.addAll(List.of(args));
        verify(cli.runner).run(argThat(r -> r != null && r.argv().equals(expected)));
    }

    @Test
    void replaceMarksFailAndSaysWhichJobsWillFinishFirst() {
        node("node1", "show-node-mixed.txt")
                .answer(List.of("update", "nodename=node1", "state=fail", "reason=Action:Replace"), 0, "", "");
        assertEquals(0, cli.run("node", "replace", "node1"), cli.err);
        assertTrue(cli.out.contains("lets them finish") && cli.out.contains("21 grow"), cli.out);
        assertTrue(cli.out.contains("node1: changed"), cli.out);
        verifyUpdate("update", "nodename=node1", "state=fail", "reason=Action:Replace");
    }

    @Test
    void forcedReplaceWithoutATerminalOrYesRefusesAndChangesNothing() {
        node("node1", "show-node-mixed.txt");
        assertEquals(ExitCode.FAILED.code(), cli.run("node", "replace", "--force", "node1"));
        assertTrue(cli.out.contains("KILLED"), cli.out);
        assertTrue(cli.err.contains("not a terminal") && cli.err.contains("--yes"), cli.err);
        verifyNoUpdate();
    }

    @Test
    void forcedReplaceAskedAndConfirmedSetsDown() {
        node("node1", "show-node-mixed.txt")
                .answer(List.of("update", "nodename=node1", "state=down", "reason=Action:Replace xid 79"), 0, "", "");
        cli.prompt = question -> {
            assertTrue(question.contains("kill 1 job"), question);
            return Optional.of("y");
        };
        assertEquals(0, cli.run("node", "replace", "--force", "--reason", "xid 79", "node1"), cli.err);
        verifyUpdate("update", "nodename=node1", "state=down", "reason=Action:Replace xid 79");
    }

    @Test
    void forcedReplaceDeclinedChangesNothing() {
        node("node1", "show-node-mixed.txt");
        cli.prompt = question -> Optional.of("n");
        assertEquals(ExitCode.FAILED.code(), cli.run("node", "replace", "--force", "node1"));
        verifyNoUpdate();
    }

    @Test
    void yesSkipsTheQuestion() {
        node("node1", "show-node-mixed.txt")
                .answer(List.of("update", "nodename=node1", "state=down", "reason=Action:Replace"), 0, "", "");
        assertEquals(0, cli.run("node", "replace", "--force", "--yes", "node1"), cli.err);
    }

    @Test
    void aNodeMidReplacementIsLeftAloneWithTheReason() {
        node("node3", "show-node-mixed-fail.txt");
        assertEquals(ExitCode.FAILED.code(), cli.run("node", "reboot", "node3"));
        assertTrue(cli.out.contains("left alone: mid-replacement") && cli.out.contains("waiting-for-jobs"), cli.out);
        verify(cli.runner, never()).run(argThat(r -> r != null && r.argv().contains("reboot")));
    }

    @Test
    void aRebootSlurmLeftUndoneIsReportedIgnoredAndExitsOne() {
        // scontrol reboot exits 0, but node4 reads back as it was: no reboot pending, same BootTime.
        node("node4", "show-node-idle.txt")
                .answer(List.of("reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node4"), 0, "", "");
        assertEquals(ExitCode.FAILED.code(), cli.run("node", "reboot", "node4"));
        assertTrue(cli.out.contains("node4: ignored") && cli.out.contains("Slurm left it IDLE"), cli.out);
    }

    @Test
    void anOrdinaryUserIsToldBeforeAnythingIsTried() {
        cli.caller = new Caller(1001, "artest");
        node("node4", "show-node-idle.txt");
        assertEquals(ExitCode.PERMISSION_DENIED.code(), cli.run("node", "replace", "node4"));
        assertTrue(cli.err.contains("root or the SlurmUser (root)") && cli.err.contains("artest(1001)"), cli.err);
        verifyNoUpdate();
    }

    @Test
    void slurmsOwnRefusalIsExplained() {
        node("node4", "show-node-idle.txt")
                .answer(
                        List.of("update", "nodename=node4", "state=fail", "reason=Action:Replace"),
                        1,
                        "",
                        "slurm_update error: Invalid user id\n");
        assertEquals(ExitCode.PERMISSION_DENIED.code(), cli.run("node", "replace", "node4"));
        assertTrue(cli.out.contains("denied") && cli.out.contains("Invalid user id"), cli.out);
    }

    @Test
    void resumeJsonHasStableFields() throws Exception {
        node("node2", "show-node-idle-fail.txt").answer(List.of("update", "nodename=node2", "state=resume"), 0, "", "");
        assertEquals(0, cli.run("node", "resume", "--json", "node2"), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals("resume", doc.get("operation").asText());
        assertEquals("node2", doc.get("nodes").get(0).get("node").asText());
        assertEquals("changed", doc.get("outcomes").get(0).get("result").asText());
    }

    @Test
    void dryRunChangesNothing() {
        node("node4", "show-node-idle.txt");
        cli.caller = new Caller(1001, "artest");
        assertEquals(0, cli.run("node", "replace", "--dry-run", "node4"), cli.err);
        assertTrue(cli.out.contains("state=fail reason=Action:Replace"), cli.out);
        verifyNoUpdate();
    }

    @Test
    void aHostlistIsExpandedAndBadNamesAreUsageErrors() {
        assertEquals(ExitCode.USAGE.code(), cli.run("node", "resume", "node[1-"));
        assertFalse(cli.err.contains("Exception"), cli.err);
    }

    @Test
    void statusShowsPhaseAndSince() throws Exception {
        cli.answer(
                List.of("-o", "show", "node"),
                0,
                nodeText("show-node-mixed-fail.txt", "node3") + "\n"
                        + nodeText("show-node-idle.txt", "node4") + "\n"
                        + nodeText("show-node-fail-not-responding.txt", "node2")
                        + "\n",
                "");
        assertEquals(0, cli.run("node", "status", "--json"), cli.err);
        JsonNode rows = new ObjectMapper().readTree(cli.out);
        assertEquals(2, rows.size());
        assertEquals("waiting-for-jobs", rows.get(0).get("phase").asText());
        assertEquals("2026-11-22T04:14:41", rows.get(0).get("since").asText());
        assertEquals("waiting-for-replacement", rows.get(1).get("phase").asText());
        assertEquals(0, cli.run("node", "status"), cli.err);
        assertTrue(
                cli.out.lines().anyMatch(l -> l.startsWith("node2 ") && l.contains("DOWN+FAIL+NOT_RESPONDING")),
                cli.out);
    }
}
