package org.slurmautoresume.slurm.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ControllerOutageTest {

    private static final CommandRequest REQUEST = CommandRequest.of("scontrol", "-o", "show", "node", "node1");
    private static final CommandResult DOWN =
            result(1, "slurm_load_node error: Unable to contact slurm controller (connect failure)");
    private static final CommandResult STANDBY =
            result(1, "slurm_load_node error: Slurm backup controller in standby mode");
    private static final CommandResult OK = result(0, "");
    private static final CommandResult INVALID = result(1, "slurm_load_node error: Invalid node name specified");

    /** Each call of the command takes 4 s, as scontrol does against a stopped controller with MessageTimeout=5. */
    private static final long CALL_NANOS = Duration.ofSeconds(4).toNanos();

    private final AtomicLong clock = new AtomicLong();
    private final List<Duration> pauses = new ArrayList<>();
    private final List<String> told = new ArrayList<>();
    private final Deque<CommandResult> answers = new ArrayDeque<>();
    private int calls;

    private final ControllerOutage.Listener listener = new ControllerOutage.Listener() {
        @Override
        public void unreachable(String why, Duration bound) {
            told.add("unreachable " + bound.toSeconds() + " " + why);
        }

        @Override
        public void answersAgain(Duration lasted) {
            told.add("back " + lasted.toSeconds());
        }

        @Override
        public void gaveUp(Duration lasted, Duration bound) {
            told.add("gave up " + lasted.toSeconds());
        }
    };

    private static CommandResult result(int exit, String stderr) {
        return new CommandResult(REQUEST, exit, "", stderr, false, Duration.ZERO);
    }

    private ControllerOutage outage(Duration bound, long dice) {
        return new ControllerOutage(
                bound,
                listener,
                RetryPolicy.DEFAULT,
                d -> {
                    pauses.add(d);
                    clock.addAndGet(d.toNanos());
                },
                clock::get,
                () -> dice);
    }

    private CommandRunner slurm(ControllerOutage outage) {
        return outage.riding(request -> {
            calls++;
            clock.addAndGet(CALL_NANOS);
            return answers.isEmpty() ? DOWN : answers.poll();
        });
    }

    @Test
    void aRestartShorterThanTheBoundIsWaitedOutAndToldOnceEachWay() {
        answers.addAll(List.of(DOWN, DOWN, STANDBY, DOWN, OK));
        CommandRunner runner = slurm(outage(Duration.ofSeconds(90), Long.MAX_VALUE));

        assertEquals(OK, runner.run(REQUEST));
        assertEquals(5, calls);
        assertEquals(
                List.of(
                        "unreachable 90 slurm_load_node error: Unable to contact slurm controller (connect failure)",
                        "back " + Duration.ofNanos(clock.get() - CALL_NANOS).toSeconds()),
                told);
    }

    @Test
    void pausesAreRandomBelowACapThatDoublesToFourSeconds() {
        ControllerOutage outage = outage(Duration.ofSeconds(600), Long.MAX_VALUE);
        // Long.MAX_VALUE mod (cap + 1) for each cap; with a die showing 0 every pause would be 0.
        assertEquals(Long.MAX_VALUE % 501, outage.pause(1).toMillis());
        assertEquals(Long.MAX_VALUE % 1001, outage.pause(2).toMillis());
        assertEquals(Long.MAX_VALUE % 4001, outage.pause(4).toMillis());
        assertEquals(Long.MAX_VALUE % 4001, outage.pause(5).toMillis());
        assertEquals(Long.MAX_VALUE % 4001, outage.pause(60).toMillis());
        assertEquals(0, outage(Duration.ofSeconds(600), 0).pause(7).toMillis());
    }

    @Test
    void anOutageLongerThanTheBoundIsGivenUpOnceAndLaterCallsTryOnlyOnce() {
        ControllerOutage outage = outage(Duration.ofSeconds(30), 7_777);
        CommandRunner runner = slurm(outage);

        assertEquals(DOWN, runner.run(REQUEST));
        assertTrue(clock.get() >= Duration.ofSeconds(30).toNanos(), "kept trying for the whole bound");
        assertTrue(clock.get() < Duration.ofSeconds(30 + 4 + 8).toNanos(), "and not much longer");
        int first = calls;

        assertEquals(DOWN, runner.run(REQUEST));
        assertEquals(first + 1, calls, "a call after giving up tries once");
        assertEquals(2, told.size());
        assertTrue(told.get(1).startsWith("gave up 3"), told.toString());
        assertTrue(outage.isDown());

        answers.add(OK);
        assertEquals(OK, runner.run(REQUEST));
        assertFalse(outage.isDown());
        assertTrue(told.get(2).startsWith("back "), told.toString());

        // The next outage is a new one: waited out again, told again.
        answers.addAll(List.of(DOWN, OK));
        assertEquals(OK, runner.run(REQUEST));
        assertEquals(5, told.size(), told.toString());
    }

    @Test
    void aRefusalIsAnAnswerAndEndsTheOutage() {
        answers.addAll(List.of(DOWN, INVALID));
        assertEquals(INVALID, slurm(outage(Duration.ofSeconds(90), 1)).run(REQUEST));
        assertEquals(2, calls);
        assertEquals(2, told.size());
        assertTrue(told.get(1).startsWith("back "));
    }

    @Test
    void aHealthyControllerIsAskedOnceAndNothingIsTold() {
        answers.add(OK);
        assertEquals(OK, slurm(outage(Duration.ofSeconds(90), 1)).run(REQUEST));
        assertEquals(1, calls);
        assertEquals(List.of(), told);
        assertEquals(List.of(), pauses);
    }

    @Test
    void aZeroBoundNeverRetries() {
        assertEquals(DOWN, slurm(outage(Duration.ZERO, 1)).run(REQUEST));
        assertEquals(1, calls);
        assertEquals(List.of(), pauses);
    }

    @Test
    void anInterruptedCallerStopsWaiting() {
        CommandRunner runner = slurm(outage(Duration.ofSeconds(90), 1));
        Thread.currentThread().interrupt();
        try {
            assertEquals(DOWN, runner.run(REQUEST));
            assertEquals(1, calls);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void theBoundIsSlurmctldTimeoutAndAMargin() {
        assertEquals(Duration.ofSeconds(180), ControllerOutage.boundFor(ControllerOutage.DEFAULT_SLURMCTLD_TIMEOUT));
        assertEquals(Duration.ofSeconds(90), ControllerOutage.boundFor(Duration.ofSeconds(30)));
    }
}
