package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;

/** {@code scontrol show slurmd} answers, as captured from the local cluster's slurmds (health/scontrol). */
class SlurmdCheckTest {

    @TempDir
    Path dir;

    private final CommandRunner runner = mock(CommandRunner.class);
    /** What the fake scontrol answers next: exit status, stdout, stderr, timed out. */
    private final Deque<Object[]> answers = new ArrayDeque<>();

    private final List<CommandRequest> asked = new ArrayList<>();
    private HealthContext context;

    @BeforeEach
    void setUp() {
        new FakeTools(dir).script("scontrol", "#!/bin/sh\nexit 1\n"); // found on PATH; the runner answers
        when(runner.run(any())).thenAnswer(invocation -> {
            CommandRequest request = invocation.getArgument(0);
            asked.add(request);
            Object[] a = answers.removeFirst();
            return new CommandResult(request, (int) a[0], (String) a[1], (String) a[2], (boolean) a[3], Duration.ZERO);
        });
        context = new HealthContext(
                runner, new ToolLocator(dir.toString()), HealthSettings.defaults(), OptionalInt::empty);
    }

    private void answers(int exit, String stdout, String stderr, boolean timedOut) {
        answers.add(new Object[] {exit, stdout, stderr, timedOut});
    }

    private void answered() {
        answers(0, HealthFixtures.read("scontrol/show-slurmd-22.05.txt"), "", false);
    }

    @ParameterizedTest
    @CsvSource({"22.05, 20240", "24.11, 18759"})
    void anAnsweringSlurmdPassesAndItsNodeIsNamedToScontrol(String release, String pid) {
        answers(0, HealthFixtures.read("scontrol/show-slurmd-" + release + ".txt"), "", false);
        CheckResult result = new SlurmdCheck("node3").run(context);
        assertEquals(HealthStatus.PASSED, result.status());
        assertTrue(
                result.evidence().get(0).contains("pid " + pid),
                result.evidence().toString());
        assertEquals(
                List.of(dir.resolve("scontrol").toString(), "show", "slurmd"),
                asked.get(0).argv());
        // Where several slurmds share a host (the local cluster), this picks the node's own.
        assertEquals("node3", asked.get(0).environment().get("SLURMD_NODENAME"));
    }

    @Test
    void silenceAfterAnAnswerIsAFaultARebootFixes() {
        SlurmdCheck check = new SlurmdCheck("node3");
        answered();
        check.run(context);

        answers(-1, "", "", true);
        CheckResult hung = check.run(context);
        assertEquals(HealthStatus.FAILED, hung.status());
        assertEquals(HealthAction.REBOOT, hung.action());
        assertTrue(hung.summary().contains("did not answer `scontrol show slurmd` within 15 s"), hung.summary());

        // Its slurmd stopped (SIGSTOP): scontrol's own wait, MessageTimeout, ran out first.
        for (String release : List.of("22.05", "24.11")) {
            answers(1, "", HealthFixtures.read("scontrol/show-slurmd-hung-" + release + ".stderr.txt"), false);
            assertEquals(HealthStatus.FAILED, check.run(context).status(), release);
        }
        answers(1, "", HealthFixtures.read("scontrol/show-slurmd-refused-22.05.stderr.txt"), false);
        CheckResult refused = check.run(context);
        assertEquals(HealthAction.REBOOT, refused.action());
        assertTrue(refused.summary().contains("Connection refused"), refused.summary());
    }

    /** A host whose slurmd is not meant to run, or not yet started, is not taken for a node whose slurmd stopped. */
    @Test
    void silenceBeforeTheFirstAnswerGivesNoVerdict() {
        SlurmdCheck check = new SlurmdCheck("node3");
        answers(1, "", HealthFixtures.read("scontrol/show-slurmd-refused-22.05.stderr.txt"), false);
        CheckResult result = check.run(context);
        assertEquals(HealthStatus.SKIPPED, result.status());
        assertTrue(result.summary().contains("has not answered yet"), result.summary());
    }

    /** Not the node's fault (a name this host's Slurm does not know, an auth or config error): no verdict. */
    @Test
    void otherErrorsGiveNoVerdict() {
        SlurmdCheck check = new SlurmdCheck("node3");
        answered();
        check.run(context);
        answers(1, "", HealthFixtures.read("scontrol/show-slurmd-unknown-node-22.05.stderr.txt"), false);
        CheckResult result = check.run(context);
        assertEquals(HealthStatus.SKIPPED, result.status());
        assertTrue(result.summary().contains("Address family"), result.summary());
    }

    @Test
    void withoutScontrolTheCheckIsSkippedAndABadNodeNameRefused() {
        HealthContext none = new HealthContext(
                runner,
                new ToolLocator(dir.resolve("empty").toString()),
                HealthSettings.defaults(),
                OptionalInt::empty);
        assertEquals(HealthStatus.SKIPPED, new SlurmdCheck("node3").run(none).status());
        assertTrue(asked.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new SlurmdCheck("node3;reboot"));
    }
}
