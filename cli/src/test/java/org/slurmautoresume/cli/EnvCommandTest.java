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

    private CliHarness shrunkJob() {
        // Job 6 shrank to node[1,3] after node2 died (recorded on the local cluster).
        return new CliHarness(Map.of("SLURM_JOB_ID", "6", "SLURM_JOB_NODELIST", "node[1-3]"))
                .answer(List.of("-o", "show", "job", "6"), 0, Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"), "")
                .answer(List.of("-o", "show", "node", "node1"), 0,
                        Fixtures.read(V22, "show-node-mixed.txt").replace("NodeAddr=127.0.0.1", "NodeAddr=10.0.0.1"), "");
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
        assertEquals(List.of("node1", "node3"), List.of(doc.get("hosts").get(0).asText(), doc.get("hosts").get(1).asText()));
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
                .answer(List.of("-o", "show", "job", "99"), 1, "", Fixtures.read(V22, "show-job-invalid-id.stderr.txt"));
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("env", "--job", "99"));
        assertTrue(cli.err.startsWith("autoresume: job 99 "), cli.err);
        assertTrue(!cli.err.contains("Exception"), cli.err);
    }

    @Test
    void aPendingJobHasNoNodesYet() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(List.of("-o", "show", "job", "14"), 0, Fixtures.read(V22, "show-job-pending-resources.txt"), "");
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
                .run(org.mockito.ArgumentMatchers.argThat(r -> r != null && r.argv().contains("show")));
        org.mockito.Mockito.verify(fromEnv.runner, org.mockito.Mockito.never())
                .run(org.mockito.ArgumentMatchers.argThat(r -> r != null && r.argv().contains("show")));
    }

    @Test
    void aHetJobComponentIsAJobId() {
        CliHarness cli = new CliHarness(Map.of())
                .answer(List.of("-o", "show", "job", "99+1"), 1, "", Fixtures.read(V22, "show-job-invalid-id.stderr.txt"));
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("env", "--job", "99+1"));
        assertTrue(cli.err.startsWith("autoresume: job 99+1 "), cli.err);
    }
}
