package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCommandTest {

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness(Map.of());

    @Test
    void agentCallSaysPlainlyWhenNoAgentRuns() {
        int code = cli.run(
                "agent-call", "--socket", dir.resolve("agent.sock").toString(), "{\"op\":\"watch\",\"jobId\":\"6\"}");
        assertEquals(ExitCode.FAILED.code(), code);
        assertTrue(cli.err.contains("the autoresume agent is not running: no socket at"), cli.err);
    }

    @Test
    void agentCallIsHiddenAndAgentIsListed() {
        cli.run("--help");
        assertTrue(cli.out.contains("agent "), cli.out);
        assertFalse(cli.out.contains("agent-call"), cli.out);
    }

    @Test
    void agentHelpSaysItRunsAsRoot() {
        assertEquals(0, cli.run("agent", "--help"));
        assertTrue(cli.out.contains("as root"), cli.out);
        assertTrue(cli.out.contains("--audit-log"), cli.out);
        assertTrue(cli.out.contains("--lemon-policy=FILE"), cli.out);
    }

    @Test
    void theMetricsAddressIsAPortOrAHostAndPort() {
        assertEquals(9464, AgentCommand.listenAddress("9464").getPort());
        assertTrue(AgentCommand.listenAddress("9464").getAddress().isAnyLocalAddress());
        assertEquals(
                "127.0.0.1",
                AgentCommand.listenAddress("127.0.0.1:0").getAddress().getHostAddress());
        assertTrue(AgentCommand.listenAddress("[::1]:9464").getAddress().isLoopbackAddress());
        for (String bad : new String[] {"", "http", "127.0.0.1:", "127.0.0.1:70000", "9464/metrics"}) {
            CliException e = org.junit.jupiter.api.Assertions.assertThrows(
                    CliException.class, () -> AgentCommand.listenAddress(bad), bad);
            assertTrue(e.getMessage().contains("--metrics-listen"), e.getMessage());
        }
        assertTrue(cli.run("agent", "--help") == 0 && cli.out.contains("--metrics-listen"), cli.out);
    }

    /** Under nohup SIGHUP is ignored from the start, and the JVM never installs the agent's handler for it. */
    @Test
    void tellsAHangupIgnoredFromTheStart() throws IOException {
        assertTrue(AgentCommand.hangupIgnored(status("0000000000000001")));
        assertTrue(AgentCommand.hangupIgnored(status("0000000001001001")));
        assertFalse(AgentCommand.hangupIgnored(status("0000000000001000")));
        assertFalse(AgentCommand.hangupIgnored(status("zz")));
        assertFalse(AgentCommand.hangupIgnored(dir.resolve("absent")));
    }

    private Path status(String sigIgn) throws IOException {
        return Files.writeString(
                dir.resolve("status"), "Name:\tjava\nSigBlk:\t0000000000000000\nSigIgn:\t" + sigIgn + "\nSigCgt:\t0\n");
    }
}
