package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Goodput worked out from timelines shaped as supervisors write them (src/test/resources/goodput). */
class GoodputTest {

    private static List<EventHistory.Event> timeline(String name) throws IOException, URISyntaxException {
        List<String> skipped = new ArrayList<>();
        List<EventHistory.Event> events = EventHistory.read(
                Path.of(GoodputTest.class.getResource("/goodput/" + name).toURI()), skipped);
        assertEquals(List.of(), skipped);
        return events;
    }

    private static Instant last(List<EventHistory.Event> events) {
        return events.get(events.size() - 1).at();
    }

    @Test
    void aNodeFaultFoundByTheHeartbeatIsSplitByCause() throws Exception {
        List<EventHistory.Event> events = timeline("heartbeat-checkpoint-node-fault.jsonl");
        Goodput g = Goodput.of(events, last(events), true);
        // Work from the launch to the last beat (10:04:56), less what the checkpoint at 10:03:00 did not keep;
        // then the second attempt from its first beat (10:05:25) to its end.
        assertEquals(Duration.ofSeconds(180 + 60), g.productive());
        assertEquals(Duration.ofSeconds(4), g.detection(), "the last beat to the heartbeat rule's detection");
        assertEquals(Duration.ofSeconds(11), g.recovery(), "the detection to the relaunch");
        assertEquals(Duration.ofSeconds(14), g.restart(), "the relaunch to its first heartbeat");
        assertEquals(Duration.ofSeconds(116), g.redone(), "the checkpoint to the last beat");
        assertEquals(Duration.ZERO, g.unattributed());
        assertEquals(1, g.faults());
        assertEquals(0, g.unmeasuredDetections());
        assertEquals(Duration.between(events.get(0).at(), last(events)), g.elapsed());
        assertEquals(240.0 / 385.0, g.ratio().orElseThrow(), 1e-9);
        assertEquals(g.ratio(), g.ratioAtMost());
        assertEquals(g, Goodput.of(events, last(events), false), "nothing runs: settled or not, the same");
    }

    @Test
    void withoutHeartbeatOrCheckpointTheRunTimeIsUnattributedNotProductive() throws Exception {
        List<EventHistory.Event> events = timeline("no-rules-silent-slurmd.jsonl");
        Goodput g = Goodput.of(events, last(events), true);
        assertEquals(Duration.ZERO, g.productive());
        assertEquals(Duration.ofSeconds(1200), g.unattributed());
        assertEquals(Duration.ofSeconds(20), g.recovery());
        assertEquals(Duration.ZERO, g.detection(), "the probe's detection has no latency");
        assertEquals(1, g.unmeasuredDetections());
        assertEquals(Duration.ZERO, g.restart());
        assertEquals(Duration.ZERO, g.redone());
        assertEquals(0.0, g.ratio().orElseThrow());
        assertEquals(1200.0 / 1220.0, g.ratioAtMost().orElseThrow(), 1e-9);
    }

    @Test
    void anAttemptThatNeverShowedProgressWasAllRestartAndAGiveUpEndsTheRecovery() throws Exception {
        List<EventHistory.Event> events = timeline("checkpoint-rule-gives-up.jsonl");
        Goodput g = Goodput.of(events, last(events), true);
        assertEquals(Duration.ofSeconds(210), g.productive());
        assertEquals(Duration.ofSeconds(30), g.redone(), "since the checkpoint at 10:03:30");
        assertEquals(Duration.ofSeconds(30), g.restart(), "the second attempt failed before any new checkpoint");
        assertEquals(Duration.ofSeconds(1 + 2), g.recovery(), "end to relaunch, then end to the give-up");
        assertEquals(Duration.ZERO, g.detection());
        assertEquals(2, g.faults());
        assertEquals(Duration.ofSeconds(273), g.elapsed());
    }

    @Test
    void whileAStepRunsOnlyWhatIsOverIsSettled() throws Exception {
        List<EventHistory.Event> events =
                timeline("heartbeat-checkpoint-node-fault.jsonl").subList(0, 10); // up to attempt 2's progress
        Instant now = Instant.parse("2026-11-28T10:05:35Z");
        Goodput settled = Goodput.of(events, now, true);
        assertEquals(Duration.ofSeconds(180), settled.productive());
        assertEquals(Duration.ofSeconds(11), settled.recovery());
        assertEquals(Duration.ZERO, settled.restart(), "attempt 2 has not ended");
        Goodput sofar = Goodput.of(events, now, false);
        assertEquals(Duration.ofSeconds(14), sofar.restart());
        assertEquals(Duration.ofSeconds(190), sofar.productive(), "attempt 2 has worked 10 s");
    }

    @Test
    void aDetectionStillBeingActedOnCountsAsLostNotProductive() throws Exception {
        List<EventHistory.Event> events =
                timeline("heartbeat-checkpoint-node-fault.jsonl").subList(0, 4); // the heartbeat rule just fired
        Goodput sofar = Goodput.of(events, Instant.parse("2026-11-28T10:05:02Z"), false);
        assertEquals(Duration.ofSeconds(4), sofar.detection());
        assertEquals(Duration.ofSeconds(2), sofar.recovery());
        assertEquals(Duration.ZERO, sofar.redone(), "the checkpoint is known at the end only");
        assertEquals(Duration.ofSeconds(296), sofar.unattributed());
    }

    @Test
    void aFirstBeatWrittenBeforeItsLaunchStillEndsThatAttemptsRestart() throws Exception {
        List<EventHistory.Event> events = new ArrayList<>(timeline("heartbeat-checkpoint-node-fault.jsonl"));
        // The relaunched srun beat at once, before the supervisor had written its launch.
        EventHistory.Event launch2 = events.get(8);
        EventHistory.Event beat = new EventHistory.Event(
                launch2.at().minusMillis(20),
                "progress",
                "41",
                2,
                null,
                java.util.OptionalLong.empty(),
                java.util.Map.of(
                        "source",
                        "heartbeat",
                        "signAt",
                        launch2.at().minusMillis(30).toString()));
        events.remove(9); // the progress as it was
        events.add(8, beat);
        Goodput g = Goodput.of(events, last(events), true);
        assertEquals(Duration.ZERO, g.restart(), "it beat as soon as it ran");
        assertEquals(Duration.ofSeconds(180 + 74), g.productive());
    }

    @Test
    void settledFiguresOnlyGrowAsEventsArrive() throws Exception {
        for (String name : List.of(
                "heartbeat-checkpoint-node-fault.jsonl",
                "no-rules-silent-slurmd.jsonl",
                "checkpoint-rule-gives-up.jsonl")) {
            List<EventHistory.Event> events = timeline(name);
            Goodput before = Goodput.NONE;
            for (int n = 1; n <= events.size(); n++) {
                Goodput now = Goodput.of(events.subList(0, n), events.get(n - 1).at(), true);
                for (String cause : Goodput.CAUSES) {
                    assertFalse(now.lost(cause).compareTo(before.lost(cause)) < 0, name + " " + n + " " + cause);
                }
                assertFalse(now.productive().compareTo(before.productive()) < 0, name + " " + n);
                assertFalse(now.unattributed().compareTo(before.unattributed()) < 0, name + " " + n);
                before = now;
            }
            assertEquals(Goodput.of(events, last(events), true), before);
            assertTrue(before.elapsed().compareTo(Duration.ZERO) > 0, name);
        }
    }

    @Test
    void aSecondStepAfterASuccessIsNoRestartAndTheGapBetweenIsNobodys() throws Exception {
        List<EventHistory.Event> first = timeline("heartbeat-checkpoint-node-fault.jsonl");
        List<EventHistory.Event> both = new ArrayList<>(first);
        Instant next = Instant.parse("2026-11-28T11:00:00Z");
        both.add(new EventHistory.Event(
                next, "launch", "41", 1, null, java.util.OptionalLong.empty(), java.util.Map.of("progressBy", "")));
        both.add(new EventHistory.Event(
                next.plusSeconds(30),
                "attempt-ended",
                "41",
                1,
                "41.2",
                java.util.OptionalLong.empty(),
                java.util.Map.of("outcome", "SUCCEEDED")));
        Goodput g = Goodput.of(both, next.plusSeconds(30), true);
        Goodput alone = Goodput.of(first, last(first), true);
        assertEquals(alone.productive().plusSeconds(30), g.productive());
        assertEquals(alone.lost(), g.lost());
        assertEquals(Duration.ZERO, g.unattributed());
    }
}
