package org.slurmautoresume.cli;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The parts of a long-running command (the agent) that must be stopped when it ends, added as
 * each starts and stopped in the reverse order, each on its own: one that fails to stop is said
 * and the others are stopped all the same. Registered as the JVM's shutdown hook before the first
 * part starts, so a SIGTERM that arrives while the command is still starting (systemd stopping a
 * unit it has just started) stops what has started so far, and a part added after that is
 * stopped at once instead of outliving the stop.
 */
final class ExitStops {

    /** One part: what it is called in a message, and how it stops. */
    @FunctionalInterface
    interface Stop {
        void stop() throws Exception;
    }

    private record Part(String name, Stop stop) {}

    private final Deque<Part> parts = new ArrayDeque<>();
    private final String who;
    private final PrintStream err;
    private boolean stopped;

    /** {@code who} begins each message, such as {@code autoresume agent}. */
    ExitStops(String who, PrintStream err) {
        this.who = who;
        this.err = err;
    }

    /** A new set whose {@link #stopAll} the JVM runs at exit, whatever the exit. */
    static ExitStops atShutdown(String who) {
        ExitStops stops = new ExitStops(who, System.err);
        Runtime.getRuntime().addShutdownHook(new Thread(stops::stopAll, who + " shutdown"));
        return stops;
    }

    /** Stops {@code part} with the others; at once if they were stopped already. */
    synchronized void add(String name, Stop stop) {
        Part part = new Part(name, stop);
        if (stopped) {
            stop(part);
        } else {
            parts.push(part);
        }
    }

    /** Every part added so far, the last one first; later additions are stopped as they come. */
    synchronized void stopAll() {
        stopped = true;
        while (!parts.isEmpty()) {
            stop(parts.pop());
        }
    }

    private void stop(Part part) {
        try {
            part.stop().stop();
        } catch (Exception e) {
            err.println(who + ": stopping " + part.name() + " failed: " + e);
        }
    }
}
