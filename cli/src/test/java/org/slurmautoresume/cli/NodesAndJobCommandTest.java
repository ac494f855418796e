package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.parse.Fixtures;

class NodesAndJobCommandTest {

    private static final String V22 = "slurm-22.05";

    @Test
    void nodesJsonHasStableFieldsForEveryNode() throws Exception {
        CliHarness cli = new CliHarness(Map.of())
                .answer(List.of("-o", "show", "node"), 0, Fixtures.read(V22, "show-node-all.txt"), "");
        assertEquals(0, cli.run("nodes", "--json"), cli.err);
        JsonNode nodes = new ObjectMapper().readTree(cli.out);
        assertEquals(4, nodes.size());
        JsonNode failed = nodes.get(2);
        assertEquals("node3", failed.get("name").asText());
        assertEquals("MIXED+FAIL", failed.get("state").asText());
        assertEquals("MIXED", failed.get("baseState").asText());
        assertEquals("FAIL", failed.get("stateFlags").get(0).asText());
        assertEquals("Action:Replace", failed.get("reason").asText());
        assertEquals("root", failed.get("reasonUser").asText());
        assertEquals(17003, failed.get("port").asInt());
    }

    @Test
    void stateFilterMatchesBaseOrFlag() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(List.of("-o", "show", "node"), 0, Fixtures.read(V22, "show-node-all.txt"), "");
        assertEquals(0, cli.run("nodes", "--state", "fail,drain"), cli.err);
        List<String> lines = cli.out.lines().toList();
        assertEquals(3, lines.size(), cli.out);
        assertTrue(lines.get(1).startsWith("node2 ") && lines.get(1).contains("bad gpu count=7 of 8"), cli.out);
        assertTrue(lines.get(2).startsWith("node3 ") && lines.get(2).contains("Action:Replace"), cli.out);
    }

    @Test
    void notStateLeavesOutNodesWithAnyOfTheStates() throws Exception {
        assertEquals(List.of("node1", "node4"), jsonNames("show-node-all.txt", "--not-state", "fail,drain"));
        assertEquals(
                List.of("node1", "node3", "node4"),
                jsonNames("show-node-all-with-down.txt", "--not-state", "not_responding"));
    }

    @Test
    void stateAndNotStateTogetherFindNodesStillRegistering() throws Exception {
        String[] registering = {"--state", "not_responding,unknown,powering_up", "--not-state", "powered_down"};
        assertEquals(
                List.of("node1", "node2", "node3", "node4"),
                jsonNames("show-node-all-unknown-at-startup.txt", registering));
        assertEquals(List.of("node2"), jsonNames("show-node-all-with-down.txt", registering));
        assertEquals(List.of(), jsonNames("show-node-all.txt", registering));
        assertEquals(List.of(), jsonNames("show-node-idle-powered-down.txt", registering));
        assertEquals(List.of("node4"), jsonNames("show-node-idle-not-responding-powering-up.txt", registering));
    }

    @Test
    void schedulableSplitsNodesTheSchedulerWouldUseFromTheOthers() throws Exception {
        assertEquals(List.of("node1", "node4"), jsonNames("show-node-all.txt", "--schedulable"));
        assertEquals(List.of("node2", "node3"), jsonNames("show-node-all.txt", "--schedulable=false"));
        assertEquals(List.of("node1", "node3", "node4"), jsonNames("show-node-all-with-down.txt", "--schedulable"));
        assertEquals(List.of(), jsonNames("show-node-all-unknown-at-startup.txt", "--schedulable"));
        assertEquals(List.of(), jsonNames("show-node-idle-powered-down.txt", "--schedulable"));
        assertEquals(List.of(), jsonNames("show-node-idle-drain-reboot-requested.txt", "--schedulable"));
    }

    private static List<String> jsonNames(String fixture, String... filters) throws Exception {
        CliHarness cli =
                new CliHarness(Map.of()).answer(List.of("-o", "show", "node"), 0, Fixtures.read(V22, fixture), "");
        List<String> args = new java.util.ArrayList<>(List.of("nodes", "--json"));
        args.addAll(List.of(filters));
        assertEquals(0, cli.run(args.toArray(String[]::new)), cli.err);
        List<String> names = new java.util.ArrayList<>();
        new ObjectMapper()
                .readTree(cli.out)
                .forEach(node -> names.add(node.get("name").asText()));
        return names;
    }

    @Test
    void aHostlistTooLargeIsAUsageError() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(ExitCode.USAGE.code(), cli.run("nodes", "n[0-999999999]"));
        assertTrue(cli.err.contains("n[0-999999999]"), cli.err);
    }

    @Test
    void missingScontrolIsSlurmUnavailable() {
        CliHarness cli = new CliHarness(Map.of());
        org.mockito.Mockito.when(cli.runner.run(org.mockito.ArgumentMatchers.any()))
                .thenThrow(CommandException.cannotStart(CommandRequest.of("scontrol"), null));
        assertEquals(ExitCode.SLURM_UNAVAILABLE.code(), cli.run("nodes"));
        assertTrue(cli.err.contains("slurm-client"), cli.err);
    }

    @Test
    void jobShowsFieldsAndSteps() throws Exception {
        CliHarness cli = new CliHarness(Map.of())
                .answer(List.of("-o", "show", "job", "9"), 0, Fixtures.read(V22, "show-job-running-multistep.txt"), "")
                .answer(List.of("-o", "show", "step", "9"), 0, Fixtures.read(V22, "show-step-job-multi.txt"), "");
        assertEquals(0, cli.run("job", "9", "--json"), cli.err);
        JsonNode job = new ObjectMapper().readTree(cli.out);
        assertEquals("RUNNING", job.get("state").asText());
        assertEquals("node[2-3]", job.get("nodeList").asText());
        assertEquals(3, job.get("steps").size());
        assertEquals("9.1", job.get("steps").get(2).get("stepId").asText());
    }

    @Test
    void waitReturnsFailureForAJobThatDidNotComplete() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(List.of("-o", "show", "job", "13"), 0, Fixtures.read(V22, "show-job-failed.txt"), "");
        assertEquals(ExitCode.FAILED.code(), cli.run("job", "13", "--wait", "--timeout", "5"));
        assertTrue(cli.out.contains("FAILED"), cli.out);
    }

    @Test
    void noSubcommandIsAUsageError() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(ExitCode.USAGE.code(), cli.run());
        assertTrue(cli.err.contains("subcommand"), cli.err);
    }
}
