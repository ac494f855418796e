package org.slurmautoresume.supervisor.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.rules.FakeClock;
import org.slurmautoresume.supervisor.rules.RuleState;
import org.slurmautoresume.supervisor.rules.RuleViolation;

/** The checkpoint rule on a real checkpoint directory, with a clock the test moves. */
class CheckpointMonitorTest {

    @TempDir
    Path root;

    private final FakeClock clock = new FakeClock();

    private Path dir() {
        return root.resolve("ckpt");
    }

    private static CheckpointRule rule(long startCutOff, long recurring) {
        return new CheckpointRule(
                Optional.empty(),
                Optional.empty(),
                startCutOff > 0 ? OptionalLong.of(startCutOff) : OptionalLong.empty(),
                recurring > 0 ? OptionalLong.of(recurring) : OptionalLong.empty());
    }

    private CheckpointMonitor monitor(CheckpointRule rule) {
        return new CheckpointMonitor(rule, new CheckpointLocator(dir(), ".metadata"), clock);
    }

    /** A DCP-style checkpoint whose marker is written now, by the test's clock. */
    private Path complete(String name) throws IOException {
        return complete(name, clock.instant());
    }

    private Path complete(String name, Instant markerWrittenAt) throws IOException {
        Path step = Files.createDirectories(dir().resolve(name));
        Files.writeString(step.resolve("__0_0.distcp"), "shard");
        Path marker = Files.writeString(step.resolve(".metadata"), "meta");
        Files.setLastModifiedTime(marker, FileTime.from(markerWrittenAt));
        return step;
    }

    /** Scans every quarter second for {@code seconds}; the first violation, if any. */
    private Optional<RuleViolation> scanFor(CheckpointMonitor monitor, double seconds) {
        for (int i = 0; i < seconds * 4; i++) {
            clock.advanceSeconds(0.25);
            Optional<RuleViolation> found = monitor.scan();
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    @Test
    void checkpointsThatKeepComingAreHealthyAndOnesThatStopAreHangingAfterTheFrequency() throws IOException {
        CheckpointMonitor monitor = monitor(rule(10, 3));
        Path last = null;
        for (int i = 1; i <= 4; i++) {
            assertTrue(scanFor(monitor, 1).isEmpty());
            last = complete("step-" + i);
        }
        Instant lastWritten = clock.instant();
        Files.createDirectories(dir().resolve("step-5")); // a save that never completes: no marker
        Files.writeString(dir().resolve("step-5").resolve("__0_0.distcp"), "shard");
        RuleViolation violation = scanFor(monitor, 10).orElseThrow();
        assertEquals(CheckpointRule.NAME, violation.rule());
        assertEquals(RuleState.HANGING, violation.state());
        assertEquals(RuleViolation.Source.CHECKPOINT_RULE, violation.source());
        assertEquals(
                Duration.ofMillis(3250),
                Duration.between(lastWritten, violation.detectedAt()),
                "found by the first scan past the deadline");
        assertEquals(lastWritten, violation.lastMatchAt().orElseThrow());
        assertEquals(last.toString(), violation.lastMatchLine().orElseThrow());
        assertEquals(4, violation.matches());
        assertEquals(
                "checkpoint rule is HANGING: no new complete checkpoint in " + dir() + " for 3.3 s, more than"
                        + " expectedRecurringFrequencyInSeconds=3; newest complete checkpoint " + last
                        + ", marker written at "
                        + lastWritten + "; 4 new in this attempt",
                violation.describe());
        assertEquals("the newest checkpoint", violation.evidenceName());
        assertTrue(monitor.scan().isEmpty(), "reported once");
    }

    @Test
    void theCheckpointTheAttemptResumedFromIsNotNewAndItsOwnIs() throws IOException {
        Instant attemptOneSaved = clock.instant().minusSeconds(60);
        Path fromAttemptOne = complete("step-4", attemptOneSaved);
        CheckpointMonitor fresh = monitor(rule(5, 0));
        RuleViolation violation = scanFor(fresh, 6).orElseThrow();
        assertTrue(
                violation
                        .reason()
                        .startsWith("no new complete checkpoint in " + dir()
                                + " within expectedStartCutOffInSeconds=5 of the start (5.3 s)"),
                violation.reason());
        assertTrue(
                violation
                        .reason()
                        .contains("newest complete checkpoint " + fromAttemptOne + ", marker written at "
                                + attemptOneSaved + ", from before this attempt"),
                violation.reason());
        assertTrue(violation.lastMatchAt().isEmpty());
        assertEquals("the start", violation.evidenceName());

        CheckpointMonitor secondAttempt = monitor(rule(5, 0));
        assertTrue(scanFor(secondAttempt, 2).isEmpty());
        complete("step-6");
        assertTrue(scanFor(secondAttempt, 10).isEmpty(), "its own checkpoint came within the cut-off");
    }

    @Test
    void aDirectoryThatDoesNotExistYetIsWaitedForAndNamedWhenNothingCame() throws IOException {
        CheckpointMonitor monitor = monitor(rule(4, 0));
        assertTrue(scanFor(monitor, 2).isEmpty());
        RuleViolation violation = scanFor(monitor, 3).orElseThrow();
        assertTrue(
                violation.reason().endsWith("; " + dir() + " does not exist; 0 new in this attempt"),
                violation.reason());

        CheckpointMonitor later = monitor(rule(4, 0));
        Files.createDirectories(dir().resolve("step-1"));
        assertTrue(later.scan().isEmpty());
        complete("step-1");
        assertTrue(scanFor(later, 10).isEmpty(), "the directory appeared, then the checkpoint");
    }

    @Test
    void aHalfWrittenCheckpointIsNotNew() throws IOException {
        CheckpointMonitor monitor = monitor(rule(3, 0));
        Files.createDirectories(dir().resolve("step-1"));
        Files.writeString(dir().resolve("step-1").resolve("__0_0.distcp"), "shard");
        RuleViolation violation = scanFor(monitor, 4).orElseThrow();
        assertTrue(
                violation.reason().endsWith("; no checkpoint in it holds .metadata; 0 new in this attempt"),
                violation.reason());
    }

    @Test
    void aCheckpointAfterTheDeadlineDoesNotExcuseTheWait() throws IOException {
        CheckpointMonitor monitor = monitor(rule(0, 2));
        clock.advanceSeconds(0.5);
        complete("step-1");
        assertTrue(monitor.scan().isEmpty());
        clock.advanceSeconds(2.5); // no scan saw the deadline pass (a slow scan, a busy machine)
        Path late = complete("step-2");
        clock.advanceSeconds(0.1);
        RuleViolation violation = monitor.scan().orElseThrow();
        assertTrue(
                violation.reason().startsWith("no new complete checkpoint in " + dir() + " for 2.6 s"),
                violation.reason());
        assertTrue(
                violation
                        .reason()
                        .contains("newest complete checkpoint " + late + ", marker written at "
                                + clock.instant().minusMillis(100) + ", too late; 1 new in this attempt"),
                violation.reason());
    }

    @Test
    void onlyARecurringFrequencyWaitsForTheFirstCheckpointWithoutLimit() throws IOException {
        CheckpointMonitor monitor = monitor(rule(0, 2));
        assertTrue(scanFor(monitor, 30).isEmpty());
        complete("step-1");
        assertTrue(scanFor(monitor, 2).isEmpty());
        assertTrue(scanFor(monitor, 0.5).isPresent());
    }

    @Test
    void aCheckpointRewrittenInPlaceIsNew() throws IOException {
        Files.createDirectories(dir());
        Path marker = Files.writeString(dir().resolve(".metadata"), "meta");
        Files.setLastModifiedTime(marker, FileTime.from(clock.instant()));
        CheckpointMonitor monitor = monitor(rule(2, 2));
        for (int i = 0; i < 5; i++) {
            assertTrue(scanFor(monitor, 1.5).isEmpty(), "rewrite " + i);
            Files.setLastModifiedTime(marker, FileTime.from(clock.instant()));
        }
        assertTrue(scanFor(monitor, 2.5).isPresent());
    }

    /**
     * A marker's time from a file server whose clock is off is held to the span in which the
     * checkpoint must have appeared: one an hour "old" does not fire the rule at once, one from
     * the future does not put it off.
     */
    @Test
    void aMarkerTimeOutsideWhatIsPossibleIsClampedToTheScans() throws IOException {
        CheckpointMonitor monitor = monitor(rule(0, 3));
        clock.advanceSeconds(1);
        monitor.scan();
        clock.advanceSeconds(1);
        complete("step-1", clock.instant().minusSeconds(3600));
        clock.advanceSeconds(0.5);
        Instant previousScan = clock.instant().minusMillis(1500);
        assertTrue(monitor.scan().isEmpty(), "an hour-old marker time is not an hour-old checkpoint");
        RuleViolation violation = scanFor(monitor, 5).orElseThrow();
        assertEquals(previousScan, violation.lastMatchAt().orElseThrow(), "counted from the scan before it appeared");

        CheckpointMonitor future = monitor(rule(0, 3));
        clock.advanceSeconds(1);
        complete("step-2", clock.instant().plusSeconds(3600));
        Instant seen = clock.instant();
        assertTrue(future.scan().isEmpty());
        assertEquals(
                seen,
                scanFor(future, 5).orElseThrow().lastMatchAt().orElseThrow(),
                "a marker from the future counts from when it was seen");
    }

    @Test
    void scansComeEveryIntervalAndOnTimeForADeadline() throws IOException {
        CheckpointMonitor monitor = monitor(rule(30, 6));
        assertEquals(Duration.ofMillis(1500), monitor.untilNextScan(), "a quarter of the shortest limit");
        complete("step-1");
        clock.advanceSeconds(0.5);
        monitor.scan();
        clock.advanceSeconds(5);
        assertEquals(Duration.ofMillis(501), monitor.untilNextScan(), "just past the deadline, 5.5 s after step-1");
        clock.advanceSeconds(0.501);
        assertTrue(monitor.scan().isPresent());
    }
}
