package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.slurmautoresume.slurm.parse.Records.node;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;

class CommandNodeHealthTest {

    private NodeHealth.Verdict run(int exit, String stderr) {
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any())).thenAnswer(inv -> {
            CommandRequest request = inv.getArgument(0);
            assertEquals(List.of("ssh", "node7", "check", "--node=node7"), request.argv());
            return new CommandResult(request, exit, "", stderr, false, Duration.ZERO);
        });
        return new CommandNodeHealth(runner, List.of("ssh", "{node}", "check", "--node={node}"), Duration.ofSeconds(5))
                .check(node("show-node-idle-fail.txt", "node7"));
    }

    @Test
    void exitZeroIsHealthy() {
        assertTrue(run(0, "").healthy());
    }

    @Test
    void exitEightAsksForAReboot() {
        NodeHealth.Verdict verdict = run(8, "xid 79");
        assertFalse(verdict.healthy());
        assertEquals("reboot", verdict.action());
        assertTrue(verdict.detail().contains("xid 79"), verdict.detail());
    }

    @Test
    void exitNineIsAFullFilesystemNotAFault() {
        NodeHealth.Verdict verdict = run(9, "");
        assertFalse(verdict.healthy());
        assertEquals("free-space", verdict.action());
    }

    @Test
    void anyOtherFailureAsksForAReplacement() {
        assertEquals("replace", run(1, "ecc").action());
        // autoresume health's exit for "replace (or a person)"; 3 (its "not found") is no reboot
        assertEquals("replace", run(7, "ecc").action());
        assertEquals("replace", run(3, "").action());
    }

    @Test
    void theEnvironmentGivenReachesTheCommandAndTheRunKeepsItsOutputApart() {
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any())).thenAnswer(inv -> {
            CommandRequest request = inv.getArgument(0);
            assertEquals(java.util.Map.of("AUTORESUME_CHECK", "on-request"), request.environment());
            return new CommandResult(request, 8, "summary\n", "secret-ish detail", false, Duration.ZERO);
        });
        CommandNodeHealth.Run run = new CommandNodeHealth(
                        runner,
                        List.of("/usr/sbin/site-check", "{node}"),
                        Duration.ofSeconds(5),
                        java.util.Map.of("AUTORESUME_CHECK", "on-request"))
                .run(node("show-node-idle-fail.txt", "node7"));
        assertEquals("reboot", run.verdict().action());
        assertEquals("/usr/sbin/site-check", run.program());
        assertEquals("exited 8", run.ended());
        assertEquals("summary\n", run.stdout());
        assertEquals("secret-ish detail", run.stderr());
        assertFalse(run.ended().contains("secret"), "how it ended is our own words");
    }

    @Test
    void aTimeoutEndsInOurOwnWords() {
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any()))
                .thenAnswer(
                        inv -> new CommandResult(inv.getArgument(0), -1, "", "partial", true, Duration.ofSeconds(5)));
        CommandNodeHealth.Run run = new CommandNodeHealth(runner, List.of("check", "{node}"), Duration.ofSeconds(5))
                .run(node("show-node-idle-fail.txt", "node7"));
        assertEquals("replace", run.verdict().action());
        assertEquals("timed out after 5 s", run.ended());
    }
}
