package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.client.SlurmException;

/** The agent's scheduled sweeps: every pass is reported, and none stops the schedule. */
class SweepScheduleTest {

    private static final Path LOCK = Path.of("/run/test-sweep.lock");
    private final Sweep sweep = mock(Sweep.class);
    private final List<Object> reports = new ArrayList<>();
    private final SweepSchedule schedule = new SweepSchedule(sweep, SweepPolicy.DEFAULTS, LOCK, reports::add);

    @Test
    void aPassHandsItsReportOn() {
        SweepReport report =
                new SweepReport("2026-11-22T09:00:00", false, 4, 0, "nothing-to-do", List.of(), List.of(), List.of());
        when(sweep.run(SweepPolicy.DEFAULTS, false, LOCK)).thenReturn(report);
        schedule.runOnce();
        assertEquals(1, reports.size());
        assertSame(report, reports.get(0));
    }

    @Test
    void aBusyLockSkipsThePassAndSaysWhoHoldsIt() {
        when(sweep.run(SweepPolicy.DEFAULTS, false, LOCK)).thenThrow(new SweepLock.BusyException(LOCK, "pid 42"));
        schedule.runOnce();
        assertTrue(reports.get(0).toString().startsWith("skipped: "), reports.toString());
        assertTrue(reports.get(0).toString().contains("pid 42"), reports.toString());
    }

    @Test
    void aFailedPassIsReportedAndTheNextOneStillRuns() {
        when(sweep.run(SweepPolicy.DEFAULTS, false, LOCK))
                .thenThrow(new SlurmException(SlurmException.Kind.TIMEOUT, "scontrol show node timed out"))
                .thenReturn(new SweepReport("t", false, 4, 0, "acted", List.of(), List.of(), List.of()));
        schedule.runOnce();
        schedule.runOnce();
        assertTrue(reports.get(0).toString().contains("scontrol show node timed out"), reports.toString());
        assertEquals("acted", ((SweepReport) reports.get(1)).status());
    }

    @Test
    void anIntervalMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> schedule.start(Duration.ZERO));
        schedule.close();
    }
}
