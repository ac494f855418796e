package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.supervisor.rules.OutputObserver.Stream.STDOUT;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The heartbeat's phases, through the same monitor every log rule runs in. */
class HeartbeatTest {

    private final FakeClock clock = new FakeClock();
    private final List<RuleViolation> violations = new ArrayList<>();
    private final RuleMonitor monitor =
            new RuleMonitor(List.of(new Heartbeat(60, 10, 100).rule()), clock, violations::add);

    @Test
    void theFirstBeatMustComeWithinTheStartupTimeout() {
        clock.advanceSeconds(59);
        monitor.onLine(STDOUT, "0: AUTORESUME_HEARTBEAT");
        clock.advanceSeconds(10);
        monitor.tick();
        assertTrue(violations.isEmpty(), violations.toString());

        RuleMonitor late = new RuleMonitor(List.of(new Heartbeat(60, 10, 100).rule()), clock, violations::add);
        clock.advanceSeconds(61);
        late.tick();
        assertEquals(RuleState.HANGING, violations.get(0).state());
        assertTrue(
                violations.get(0).reason().contains("expectedStartCutOffInSeconds=60"),
                violations.get(0).reason());
    }

    @Test
    void aCheckpointBeatAllowsTheLongerWaitOnceAndThenSteadyAppliesAgain() {
        monitor.onLine(STDOUT, "AUTORESUME_HEARTBEAT");
        clock.advanceSeconds(5);
        monitor.onLine(STDOUT, "AUTORESUME_HEARTBEAT phase=checkpoint");
        clock.advanceSeconds(99);
        monitor.tick();
        assertTrue(violations.isEmpty(), "a checkpoint may take 100 s: " + violations);
        monitor.onLine(STDOUT, "AUTORESUME_HEARTBEAT");
        clock.advanceSeconds(10.5);
        monitor.tick();
        assertEquals(1, violations.size());
        RuleViolation hang = violations.get(0);
        assertEquals(List.of(Heartbeat.NAME, RuleState.HANGING), List.of(hang.rule(), hang.state()));
        assertTrue(hang.reason().contains("expectedRecurringFrequencyInSeconds=10"), hang.reason());
    }

    @Test
    void aCheckpointThatNeverEndsIsAHangToo() {
        monitor.onLine(STDOUT, "AUTORESUME_HEARTBEAT phase=checkpoint");
        clock.advanceSeconds(100.5);
        monitor.tick();
        assertTrue(
                violations.get(0).reason().contains("100 s after a line with \"phase=checkpoint\""),
                violations.get(0).reason());
    }

    @Test
    void otherLinesAreNotBeats() {
        monitor.onLine(STDOUT, "AUTORESUME_HEARTBEAT");
        clock.advanceSeconds(6);
        monitor.onLine(STDOUT, "epoch 3 loss 0.2 (no heartbeat marker)");
        clock.advanceSeconds(5);
        monitor.tick();
        assertEquals(1, violations.size());
    }

    @Test
    void timeoutsArePositive() {
        assertThrows(IllegalArgumentException.class, () -> new Heartbeat(0, 10, 100));
    }
}
