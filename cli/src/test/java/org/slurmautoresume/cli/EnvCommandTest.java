package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.parse.Fixtures;

class EnvCommandTest {

    private static final String V22 = "slurm-22.05";

    private static final List<String> NODE1_ARGS = List.of("-o", "show", "node", "node1");

    /** node1's record with NodeAddr 10.0.0.1, told apart from the local cluster's 127.0.0.1. */
    private static String node1At10001() {
        return Fixtures.read(V22, "show-node-mixed.txt").replace("NodeAddr=127.0.0.1", "NodeAddr=10.0.0.1");
    }

    private CliHarness shrunkJob() {
        // Job 6 shrank to node[1,3] after node2 died (recorded on the local cluster).
        return new CliHarness(Map.of("SLURM_JOB_ID", "6", "SLURM_JOB_NODELIST", "node[1-3]"))
                .answer(
                        List.of("-o", "show", "job", "6"),
                        0,
                        Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"),
                        "")
                .answer(NODE1_ARGS, 0, node1At10001(), "");
    }

    @Test
    void printsExportsFromScontrolNotFromTheStaleEnvironment() {
        CliHarness cli = shrunkJob();
        assertEquals(0, cli.run("env"), cli.err);
        assertEquals("""
                export NODE_LIST='node[1,3]'
                export MASTER_NODE='node1'
                export MASTER_ADDR='10.0.0.1'
                export NNODES='2'
                """, cli.out);
    }

    @Test
    void slurmVarsUpdateTheSizeVariablesSrunChecks() {
        CliHarness cli = shrunkJob();
        assertEquals(0, cli.run("env", "--slurm-vars"), cli.err);
        assertTrue(cli.out.contains("export SLURM_JOB_NODELIST='node[1,3]'\n"), cli.out);
        assertTrue(cli.out.contains("export SLURM_JOB_NUM_NODES='2'\n"), cli.out);
        assertTrue(cli.out.contains("export SLURM_NNODES='2'\n"), cli.out);
        assertTrue(cli.out.contains("export SLURM_NODELIST='node[1,3]'\n"), cli.out);
    }

    @Test
    void jsonHasTheHostsAndTheVariables() throws Exception {
        CliHarness cli = shrunkJob();
        assertEquals(0, cli.run("env", "--job", "6", "--format", "json"), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals("6", doc.get("jobId").asText());
        assertEquals(
                List.of("node1", "node3"),
                List.of(
                        doc.get("hosts").get(0).asText(),
                        doc.get("hosts").get(1).asText()));
        assertEquals("10.0.0.1", doc.get("variables").get("MASTER_ADDR").asText());
    }

    @Test
    void withoutAJobItSaysHowToNameOne() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(ExitCode.USAGE.code(), cli.run("env"));
        assertTrue(cli.err.contains("--job"), cli.err);
    }

    @Test
    void unknownJobExitsNotFoundWithoutAStackTrace() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(
                        List.of("-o", "show", "job", "99"),
                        1,
                        "",
                        Fixtures.read(V22, "show-job-invalid-id.stderr.txt"));
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("env", "--job", "99"));
        assertTrue(cli.err.startsWith("autoresume: job 99 "), cli.err);
        assertTrue(!cli.err.contains("Exception"), cli.err);
    }

    @Test
    void aPendingJobHasNoNodesYet() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(
                        List.of("-o", "show", "job", "14"),
                        0,
                        Fixtures.read(V22, "show-job-pending-resources.txt"),
                        "");
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("env", "--job", "14"));
        assertTrue(cli.err.contains("PENDING") && cli.err.contains("Resources"), cli.err);
    }

    @Test
    void badFormatIsAUsageErrorWithAHint() {
        CliHarness cli = new CliHarness(Map.of("SLURM_JOB_ID", "6"));
        assertEquals(ExitCode.USAGE.code(), cli.run("env", "--format", "yaml"));
        assertTrue(cli.err.contains("Try 'autoresume env --help'"), cli.err);
    }

    @Test
    void aJobIdThatIsNotOneNeverReachesScontrol() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("env", "--job", "6;reboot"));
        assertTrue(cli.err.contains("--job: not a valid job id: \"6;reboot\""), cli.err);
        CliHarness fromEnv = new CliHarness(Map.of("SLURM_JOB_ID", "-6\nx"));
        assertEquals(ExitCode.NOT_FOUND.code(), fromEnv.run("env"));
        assertTrue(fromEnv.err.contains("SLURM_JOB_ID: not a valid job id: \"-6\\x0ax\""), fromEnv.err);
        org.mockito.Mockito.verify(cli.runner, org.mockito.Mockito.never())
                .run(org.mockito.ArgumentMatchers.argThat(
                        r -> r != null && r.argv().contains("show")));
        org.mockito.Mockito.verify(fromEnv.runner, org.mockito.Mockito.never())
                .run(org.mockito.ArgumentMatchers.argThat(
                        r -> r != null && r.argv().contains("show")));
    }

    @Test
    void aHetJobComponentIsAJobId() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(
                        List.of("-o", "show", "job", "99+1"),
                        1,
                        "",
                        Fixtures.read(V22, "show-job-invalid-id.stderr.txt"));
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("env", "--job", "99+1"));
        assertTrue(cli.err.startsWith("autoresume: job 99+1 "), cli.err);
    }
    /** A task of step 0 of job 6: the step runs on node[1-2] of the job's node[1-4]. */
    private static Map<String, String> stepTask(Map<String, String> extra) {
        Map<String, String> env = new java.util.HashMap<>(Map.of(
                "SLURM_JOB_ID",
                "6",
                "SLURM_JOB_NODELIST",
                "node[1-4]",
                "SLURM_JOB_NUM_NODES",
                "4",
                "SLURM_STEP_ID",
                "0",
                "SLURM_STEP_NODELIST",
                "node[1-2]",
                "SLURM_STEP_NUM_NODES",
                "2"));
        env.putAll(extra);
        return env;
    }

    @Test
    void insideAStepsTaskItDescribesTheStepNotTheJobsSpares() {
        CliHarness cli = new CliHarness(stepTask(Map.of())).answer(NODE1_ARGS, 0, node1At10001(), "");
        assertEquals(0, cli.run("env"), cli.err);
        assertEquals(
                List.of(
                        "export NODE_LIST='node[1-2]'",
                        "export MASTER_NODE='node1'",
                        "export MASTER_ADDR='10.0.0.1'",
                        "export NNODES='2'"),
                cli.out.lines().toList());
    }

    @Test
    void theSupervisorsMasterAddressForTheSameMasterSavesTheNodeRead() throws Exception {
        // No scontrol answer is set up: any call to Slurm would fail the command.
        CliHarness cli = new CliHarness(stepTask(Map.of("MASTER_NODE", "node1", "MASTER_ADDR", "10.0.0.9")));
        assertEquals(0, cli.run("env", "--format", "json"), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals("step", doc.get("scope").asText());
        assertEquals("10.0.0.9", doc.get("variables").get("MASTER_ADDR").asText());
        assertEquals("2", doc.get("variables").get("NNODES").asText());
    }

    @Test
    void aMasterAddressForAnotherNodeIsLookedUpAgain() {
        CliHarness cli = new CliHarness(stepTask(Map.of("MASTER_NODE", "node2", "MASTER_ADDR", "10.0.0.2")))
                .answer(NODE1_ARGS, 0, node1At10001(), "");
        assertEquals(0, cli.run("env"), cli.err);
        assertTrue(cli.out.contains("export MASTER_ADDR='10.0.0.1'\n"), cli.out);
    }

    @Test
    void scopeJobDescribesTheWholeAllocationFromAStepsTask() {
        CliHarness cli = shrunkJob();
        CliHarness inStep = new CliHarness(
                        stepTask(Map.of("SLURM_STEP_NODELIST", "node1", "SLURM_STEP_NUM_NODES", "1")))
                .answer(
                        List.of("-o", "show", "job", "6"),
                        0,
                        Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"),
                        "")
                .answer(NODE1_ARGS, 0, node1At10001(), "");
        assertEquals(0, inStep.run("env", "--scope", "job"), inStep.err);
        assertEquals(0, cli.run("env"), cli.err);
        assertEquals(cli.out, inStep.out);
    }

    @Test
    void slurmVarsStayTheJobsInsideAStep() {
        CliHarness cli = new CliHarness(stepTask(Map.of(
                        "SLURM_STEP_NODELIST",
                        "node1",
                        "SLURM_STEP_NUM_NODES",
                        "1",
                        "MASTER_NODE",
                        "node1",
                        "MASTER_ADDR",
                        "10.0.0.1")))
                .answer(
                        List.of("-o", "show", "job", "6"),
                        0,
                        Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"),
                        "")
                .answer(NODE1_ARGS, 0, node1At10001(), "");
        assertEquals(0, cli.run("env", "--slurm-vars"), cli.err);
        assertTrue(cli.out.contains("export NODE_LIST='node1'\n"), cli.out);
        assertTrue(cli.out.contains("export NNODES='1'\n"), cli.out);
        assertTrue(cli.out.contains("export SLURM_JOB_NODELIST='node[1,3]'\n"), cli.out);
    }

    @Test
    void scopeStepOutsideAStepIsAUsageError() {
        CliHarness cli = shrunkJob();
        assertEquals(ExitCode.USAGE.code(), cli.run("env", "--scope", "step"));
        assertTrue(cli.out.isEmpty(), cli.out);
    }
}
