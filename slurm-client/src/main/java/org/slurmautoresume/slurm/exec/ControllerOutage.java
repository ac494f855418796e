package org.slurmautoresume.slurm.exec;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * Rides out a slurmctld that is away (a restart for an upgrade, a failover to the backup
 * controller): a Slurm command that failed because the controller did not get or did not answer
 * the request is tried again, with jittered back-off, until it answers or the outage has lasted
 * longer than the bound. Shared by every Slurm call of one process, so an outage is one outage
 * however many threads meet it: its start, its end and giving up are each told once to the
 * {@link Listener}, and once the bound is spent further calls fail at their first try instead of
 * each waiting the whole bound again, until the controller answers.
 *
 * <p>The back-off is "full jitter" (a random pause between zero and a doubling cap): a thousand
 * supervisors that lost the same controller must not come back to it in lockstep.
 */
public final class ControllerOutage {

    /** Told what happens to the controller, once per outage; called on the thread that met it. */
    public interface Listener {
        /** The first failed call of an outage; {@code bound} is how long calls will keep trying. */
        void unreachable(String why, Duration bound);

        /** The controller answered again after being away for {@code lasted}. */
        void answersAgain(Duration lasted);

        /** The outage outlasted the bound: calls fail from now on until the controller answers. */
        void gaveUp(Duration lasted, Duration bound);

        /** Tells nobody: until someone {@linkplain #listen listens}, outages are only ridden out. */
        Listener NONE = new Listener() {
            @Override
            public void unreachable(String why, Duration bound) {}

            @Override
            public void answersAgain(Duration lasted) {}

            @Override
            public void gaveUp(Duration lasted, Duration bound) {}
        };
    }

    /** Slurm's default SlurmctldTimeout: the backup takes over after this long. */
    public static final Duration DEFAULT_SLURMCTLD_TIMEOUT = Duration.ofSeconds(120);
    /**
     * Beyond SlurmctldTimeout: the backup still has to load the saved state and start answering,
     * and a restarted primary with a large state takes a while too.
     */
    public static final Duration MARGIN = Duration.ofSeconds(60);

    private static final Duration FIRST_PAUSE = Duration.ofMillis(500);
    /**
     * The cap of the pauses: a controller back (or a backup that took over) is met 1.3 s later on
     * average, at most 4 s; a thousand supervisors waiting for it then ask about 500 times a
     * second, each a connection a stopped controller refuses or a backup in standby answers at once.
     * (8 s made the step's re-run after a failover 0.2 to 8.6 s late in the local cluster's runs.)
     */
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(4);

    private final RetryPolicy transients;
    private volatile Listener listener;
    private final RetryingCommandRunner.Sleeper sleeper;
    private final LongSupplier nanos;
    private final LongSupplier random;
    private volatile Duration bound;
    /** When the current outage began (nanos); meaningful only while {@link #down}. */
    private long since;

    private boolean down;
    private boolean givenUp;

    public ControllerOutage(Duration bound, Listener listener) {
        this(
                bound,
                listener,
                RetryPolicy.DEFAULT,
                d -> Thread.sleep(d.toMillis()),
                System::nanoTime,
                () -> ThreadLocalRandom.current().nextLong(Long.MAX_VALUE));
    }

    /** With the clock, the pause and the dice a test controls. */
    public ControllerOutage(
            Duration bound,
            Listener listener,
            RetryPolicy transients,
            RetryingCommandRunner.Sleeper sleeper,
            LongSupplier nanos,
            LongSupplier random) {
        this.listener = Objects.requireNonNull(listener);
        this.transients = Objects.requireNonNull(transients);
        this.sleeper = Objects.requireNonNull(sleeper);
        this.nanos = Objects.requireNonNull(nanos);
        this.random = Objects.requireNonNull(random);
        bound(bound);
    }

    /** SlurmctldTimeout plus the margin: how long a site's controller may be away without a failover failing. */
    public static Duration boundFor(Duration slurmctldTimeout) {
        return slurmctldTimeout.plus(MARGIN);
    }

    /**
     * Who is told from now on: the supervisor's log and timeline exist only after the Slurm client
     * that rides on this was made.
     */
    public void listen(Listener listener) {
        this.listener = Objects.requireNonNull(listener);
    }

    /** Changes the bound, e.g. once the cluster's SlurmctldTimeout is known. */
    public void bound(Duration bound) {
        if (bound.isNegative()) {
            throw new IllegalArgumentException("the outage bound must be 0 or more: " + bound);
        }
        this.bound = bound;
    }

    public Duration bound() {
        return bound;
    }

    /** Whether the last call found the controller away. */
    public synchronized boolean isDown() {
        return down;
    }

    /** {@code delegate} with every Slurm command riding out outages through this tracker. */
    public CommandRunner riding(CommandRunner delegate) {
        Objects.requireNonNull(delegate);
        return request -> run(delegate, request);
    }

    private CommandResult run(CommandRunner delegate, CommandRequest request) {
        for (int attempt = 1; ; attempt++) {
            CommandResult result = delegate.run(request);
            if (!transients.isTransient(result)) {
                answered();
                return result;
            }
            Duration lasted = failed(result);
            if (lasted == null) {
                return result; // given up on this outage already: one try per call until it answers
            }
            Duration left = bound.minus(lasted);
            if (left.isNegative() || left.isZero() || Thread.currentThread().isInterrupted()) {
                giveUp(lasted);
                return result;
            }
            try {
                sleeper.sleep(min(pause(attempt), left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return result;
            }
        }
    }

    /** Any answer, even a refusal, means the controller is back. */
    private void answered() {
        Duration lasted;
        synchronized (this) {
            if (!down) {
                return;
            }
            lasted = Duration.ofNanos(nanos.getAsLong() - since);
            down = false;
            givenUp = false;
        }
        listener.answersAgain(lasted);
    }

    /** How long the outage has lasted, or null when it was given up already. */
    private Duration failed(CommandResult result) {
        boolean first;
        Duration lasted;
        synchronized (this) {
            long now = nanos.getAsLong();
            first = !down;
            if (first) {
                down = true;
                since = now;
            }
            if (givenUp) {
                return null;
            }
            lasted = Duration.ofNanos(now - since);
        }
        if (first) {
            listener.unreachable(
                    result.timedOut() ? "timed out" : result.diagnosticTail().strip(), bound);
        }
        return lasted;
    }

    private void giveUp(Duration lasted) {
        synchronized (this) {
            if (givenUp || !down) {
                return;
            }
            givenUp = true;
        }
        listener.gaveUp(lasted, bound);
    }

    /** A random pause up to a cap that doubles from half a second to four. */
    Duration pause(int attempt) {
        long cap = FIRST_PAUSE.toMillis() << Math.min(attempt - 1, 10);
        cap = Math.min(cap, LONGEST_PAUSE.toMillis());
        return Duration.ofMillis(Math.floorMod(random.getAsLong(), cap + 1));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
