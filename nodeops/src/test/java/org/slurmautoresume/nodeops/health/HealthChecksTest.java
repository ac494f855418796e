package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;

class HealthChecksTest {

    private static final Path SCONTROL = Path.of("/usr/bin/scontrol");

    /** A check that answers what it is told, or throws. */
    private record Fixed(String name, CheckResult answer) implements HealthCheck {
        @Override
        public String description() {
            return "fixed";
        }

        @Override
        public CheckResult run(HealthContext context) {
            if (answer == null) {
                throw new IllegalStateException("boom");
            }
            return answer;
        }
    }

    private static CheckResult failed(String name, HealthAction action) {
        return CheckResult.of(name, List.of(Finding.fault(action, name + " broke")), "");
    }

    private static HealthContext context() {
        return new HealthContext(
                mock(CommandRunner.class), new ToolLocator(""), HealthSettings.defaults(), OptionalInt::empty);
    }

    /** A check that waits until {@code together} checks run at once, and notes how many ran beside it. */
    private static HealthCheck meeting(
            String name, boolean alone, CountDownLatch together, AtomicInteger running, List<String> crowds) {
        return new HealthCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return "meets the others";
            }

            @Override
            public boolean runsAlone() {
                return alone;
            }

            @Override
            public CheckResult run(HealthContext context) {
                int now = running.incrementAndGet();
                if (!alone) {
                    together.countDown();
                }
                try {
                    if (!alone && !together.await(30, TimeUnit.SECONDS)) {
                        crowds.add(name + " waited alone");
                    }
                    crowds.add(name + " with " + Math.max(now, running.get()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    running.decrementAndGet();
                }
                return CheckResult.of(name, List.of(), name + " ok");
            }
        };
    }

    @Test
    void checksRunSideBySideAndTheOneThatLoadsEveryCpuAlone() {
        CountDownLatch together = new CountDownLatch(3);
        AtomicInteger running = new AtomicInteger();
        List<String> crowds = Collections.synchronizedList(new ArrayList<>());
        HealthCheck gpu = meeting("gpu", false, together, running, crowds);
        HealthCheck cpu = meeting("cpu", true, together, running, crowds);
        HealthCheck efa = meeting("efa", false, together, running, crowds);
        HealthCheck disk = meeting("disk", false, together, running, crowds);
        HealthChecks checks = new HealthChecks(List.of(gpu, cpu, efa, disk));
        HealthReport report = checks.run(context());
        assertEquals(
                List.of("gpu", "cpu", "efa", "disk"),
                report.results().stream().map(CheckResult::check).toList());
        assertTrue(crowds.stream().noneMatch(c -> c.endsWith("waited alone")), crowds.toString());
        assertTrue(crowds.contains("cpu with 1"), "stress ran beside another check: " + crowds);
        assertEquals(4, crowds.size(), crowds.toString());
    }

    @Test
    void slurmIsAskedForTheGpuCountOnceWhateverAsks() {
        AtomicInteger asked = new AtomicInteger();
        HealthContext context =
                new HealthContext(mock(CommandRunner.class), new ToolLocator(""), HealthSettings.defaults(), () -> {
                    asked.incrementAndGet();
                    return OptionalInt.of(8);
                });
        assertEquals(OptionalInt.of(8), context.expectedGpus());
        assertEquals(OptionalInt.of(8), context.expectedGpus());
        assertEquals(1, asked.get());
    }

    @Test
    void theStandardSetIsInADocumentedOrder() {
        assertEquals(
                List.of("gpu", "dcgm", "neuron", "efa", "cpu", "disk"),
                HealthChecks.standard().names());
    }

    @Test
    void namedChecksRunInRegistryOrderAndUnknownNamesAreRefused() {
        HealthChecks checks = new HealthChecks(List.of(
                new Fixed("a", CheckResult.skipped("a", "no tool")),
                new Fixed("b", failed("b", HealthAction.REBOOT)),
                new Fixed("c", failed("c", HealthAction.REPLACE))));
        HealthReport report = checks.run(context(), List.of("b", "a"));
        assertEquals(
                List.of("a", "b"),
                report.results().stream().map(CheckResult::check).toList());
        assertEquals(HealthAction.REBOOT, report.worstAction());
        assertEquals(HealthAction.REPLACE, checks.run(context()).worstAction());
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> checks.run(context(), List.of("gpus")));
        assertTrue(e.getMessage().contains("\"gpus\"") && e.getMessage().contains("a, b, c"), e.getMessage());
    }

    @Test
    void aBrokenCheckIsReportedWithoutHidingTheOthers() {
        HealthChecks checks =
                new HealthChecks(List.of(new Fixed("a", null), new Fixed("b", failed("b", HealthAction.REBOOT))));
        HealthReport report = checks.run(context());
        assertEquals(2, report.results().size());
        assertEquals(HealthStatus.FAILED, report.results().get(0).status());
        assertTrue(report.results().get(0).summary().contains("boom"));
        assertEquals(HealthAction.REBOOT, report.worstAction());
    }

    @Test
    void allSkippedIsSkippedNotFailed() {
        HealthReport report = new HealthReport(List.of(CheckResult.skipped("gpu", "none")));
        assertEquals(HealthStatus.SKIPPED, report.status());
        assertTrue(!report.failed());
        assertTrue(NodeMarker.markFor("node1", report).isEmpty());
    }

    /** What {@code --mark} runs on node1, in service and with no reason. */
    private static List<String> command(HealthReport report) {
        NodeMarker marker = new NodeMarker(slurmWithNode1InService(), SCONTROL, "root");
        return marker.argv(marker.plan("node1", report, List.of()));
    }

    private static CommandRunner slurmWithNode1InService() {
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any()))
                .thenAnswer(inv -> new CommandResult(
                        inv.getArgument(0),
                        0,
                        org.slurmautoresume.slurm.parse.Fixtures.read("slurm-22.05", "show-node-idle.txt")
                                .replaceFirst("^NodeName=\\S+", "NodeName=node1"),
                        "",
                        false,
                        Duration.ZERO));
        return runner;
    }

    @Test
    void markCommandsFollowTheWorstAction() {
        HealthReport replace =
                new HealthReport(List.of(failed("gpu", HealthAction.REBOOT), failed("dcgm", HealthAction.REPLACE)));
        assertEquals(
                List.of("/usr/bin/scontrol", "update", "nodename=node1", "state=fail", "reason=Action:Replace"),
                command(replace));
        HealthReport reboot = new HealthReport(List.of(failed("gpu", HealthAction.REBOOT)));
        assertEquals("reason=Action:Reboot", command(reboot).get(4));
        HealthReport person =
                new HealthReport(List.of(failed("gpu", HealthAction.NONE), failed("dcgm", HealthAction.NONE)));
        assertEquals(
                List.of(
                        "/usr/bin/scontrol",
                        "update",
                        "nodename=node1",
                        "state=drain",
                        "reason=health check failed: gpu,dcgm"),
                command(person));
    }

    @Test
    void aPersonsFailureOutranksAFullDiskAndAFaultOutranksBoth() {
        HealthReport both =
                new HealthReport(List.of(failed("dcgm", HealthAction.NONE), failed("disk", HealthAction.FREE_SPACE)));
        assertEquals(HealthAction.NONE, both.worstAction());
        assertEquals("reason=health check failed: dcgm,disk", command(both).get(4));
        HealthReport withFault =
                new HealthReport(List.of(failed("gpu", HealthAction.REBOOT), failed("disk", HealthAction.FREE_SPACE)));
        assertEquals(HealthAction.REBOOT, withFault.worstAction());
        assertEquals(
                List.of("state=fail", "reason=Action:Reboot"),
                command(withFault).subList(3, 5));
        assertEquals(
                HealthAction.FREE_SPACE,
                new HealthReport(
                                List.of(CheckResult.skipped("gpu", "no tool"), failed("disk", HealthAction.FREE_SPACE)))
                        .worstAction());
    }

    @Test
    void anUnsafeNodeNameIsRefusedBeforeAnythingRuns() {
        CommandRunner runner = mock(CommandRunner.class);
        HealthReport report = new HealthReport(List.of(failed("gpu", HealthAction.REBOOT)));
        NodeMarker marker = new NodeMarker(runner, SCONTROL, "root");
        assertThrows(IllegalArgumentException.class, () -> marker.plan("node1 state=resume", report, List.of()));
        assertThrows(IllegalArgumentException.class, () -> marker.plan("-node1", report, List.of()));
        verify(runner, never()).run(any());
    }

    @Test
    void aRefusedUpdateNamesScontrolsComplaint() {
        CommandRunner runner = mock(CommandRunner.class);
        // The node reads as in service (only such a node is marked); the update is refused.
        when(runner.run(any()))
                .thenAnswer(inv -> ((CommandRequest) inv.getArgument(0)).argv().contains("show")
                        ? new CommandResult(
                                inv.getArgument(0),
                                0,
                                org.slurmautoresume.slurm.parse.Fixtures.read("slurm-22.05", "show-node-idle.txt")
                                        .replaceFirst("^NodeName=\\S+", "NodeName=node1"),
                                "",
                                false,
                                Duration.ZERO)
                        : new CommandResult(
                                inv.getArgument(0),
                                1,
                                "",
                                "slurm_update error: Access/permission denied",
                                false,
                                Duration.ZERO));
        NodeMarker marker = new NodeMarker(runner, SCONTROL, "root");
        HealthReport report = new HealthReport(List.of(failed("gpu", HealthAction.REPLACE)));
        CommandException e =
                assertThrows(CommandException.class, () -> marker.apply(marker.plan("node1", report, List.of())));
        assertTrue(
                e.getMessage().contains("permission denied") && e.getMessage().contains("nodename=node1"),
                e.getMessage());
    }

    @Test
    void aToolThatCannotStartBecomesAResultNotAnException() {
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any())).thenThrow(CommandException.cannotStart(CommandRequest.of("/bin/x"), null));
        HealthContext context =
                new HealthContext(runner, new ToolLocator(""), HealthSettings.defaults(), OptionalInt::empty);
        CommandResult result = context.run(Path.of("/bin/x"), List.of(), Duration.ofSeconds(1));
        assertEquals(HealthContext.CANNOT_START, result.exitCode());
        assertTrue(result.stderr().contains("/bin/x"));
    }

    @Test
    void localNodeNamePrefersSlurmdsVariable() {
        assertEquals(
                "gpu-st-7",
                LocalNode.name(java.util.Map.of("SLURMD_NODENAME", "gpu-st-7")).orElseThrow());
        assertEquals("ip-10-1-2-3", LocalNode.shortName("ip-10-1-2-3.ec2.internal"));
    }

    @Test
    void theChecksRunOnARequestAreKnownByTheSameNamesAndLoadNothing() {
        assertEquals(HealthChecks.standard().names(), HealthChecks.onRequest().names());
        CommandRunner runner = mock(CommandRunner.class);
        HealthContext context =
                new HealthContext(runner, new ToolLocator(""), HealthSettings.defaults(), OptionalInt::empty);
        HealthReport report =
                new HealthChecks(List.of(new NotOnRequest(new Fixed("cpu", null)))).run(context); // throws if run
        assertEquals(HealthStatus.SKIPPED, report.results().get(0).status(), report.toString());
        assertTrue(report.results().get(0).summary().contains("not run on a request"), report.toString());
        verify(runner, never()).run(any());
    }
}
