package org.slurmautoresume.slurm.exec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Notices a controller that serves again while a Slurm command sleeps in Slurm's own client.
 * With a backup controller in standby, a request that finds the primary stopped is answered "in
 * standby mode" by the backup, and Slurm's client library then sleeps SlurmctldTimeout/2 before
 * it asks again (60 s with the default SlurmctldTimeout of 120 s), however soon the primary is
 * back or the backup has taken over: a restart for an upgrade, or a failover, then costs every
 * caller up to that sleep more. Without a backup a request to a stopped primary takes seconds to
 * fail too.
 *
 * <p>So a Slurm client command that has run {@link #SLOW} is watched once a {@link #PING_EVERY}:
 * {@code scontrol ping} asks each controller directly; a primary that answers serves, and where
 * only a backup answers (it does in standby too) a quick query with a short timeout tells whether
 * it serves (it has taken over) or sleeps the caller (standby). If no controller served at the
 * first look and one does at a later one, the command is stopped and run again at once. A command
 * that is merely slow (a controller served at the first look) is never stopped. Only commands that
 * talk to slurmctld and return by themselves are watched (scontrol, scancel, squeue, sinfo), not
 * salloc, srun or sbatch, which may wait for resources by design. A stopped command may have
 * reached slurmctld already: the toolkit's writes (marks, shrinks, cancels) may be repeated.
 * The pings also unmask 24.11's empty JSON answer to a lookup that reached no controller
 * ({@link #emptyJsonAnswer}).
 */
public final class StandbyWatch implements CommandRunner {

    /** How long a command runs before the controllers are pinged: slurmctld answers in milliseconds. */
    public static final Duration SLOW = Duration.ofSeconds(2);

    static final Duration PING_EVERY = Duration.ofSeconds(1);
    private static final Duration PING_TIMEOUT = Duration.ofSeconds(5);
    /** A primary that flaps does not keep a command going for ever: at most this many fresh starts. */
    private static final int MAX_RESTARTS = 3;

    private static final Set<String> WATCHED = Set.of("scontrol", "scancel", "squeue", "sinfo");
    /** A backup that has taken over answers this at once; one in standby makes the client sleep. */
    private static final List<String> SERVES_QUERY = List.of("scontrol", "-o", "show", "partition");

    private static final Duration SERVES_TIMEOUT = Duration.ofSeconds(2);
    /**
     * What the pings' and the answers' texts are read with, compiled at the first ping: every
     * command passes through this class, and a command that ends within {@link #SLOW} (nearly
     * all) never needs them.
     */
    private static final class Texts {
        static final Pattern PRIMARY = Pattern.compile("(?m)^Slurmctld\\(primary\\) at \\S+ is (UP|DOWN)");
        static final Pattern BACKUP_UP = Pattern.compile("(?m)^Slurmctld\\(backup\\d*\\) at \\S+ is UP");
        /** The records list of a JSON answer that holds none: {@code "jobs": []}, {@code "steps": []}... */
        static final Pattern EMPTY_LIST = Pattern.compile("\"(jobs|steps|nodes|partitions)\"\\s*:\\s*\\[\\s*]");
    }

    /** Whether a controller serves requests now; empty when that cannot be told. */
    @FunctionalInterface
    public interface ControllerProbe {
        Optional<Boolean> serves();
    }

    private final CommandRunner delegate;
    private final ControllerProbe probe;
    private final Duration slow;
    private final Duration every;
    private final Supplier<ScheduledExecutorService> timer;
    private volatile ScheduledExecutorService started;

    /** Over {@code delegate}, asking {@code scontrol ping} through it. */
    public StandbyWatch(CommandRunner delegate) {
        this(delegate, null, SLOW, PING_EVERY, StandbyWatch::daemonTimer);
    }

    /** With the probe and the pace a test controls; a null probe pings through {@code delegate}. */
    StandbyWatch(
            CommandRunner delegate,
            ControllerProbe probe,
            Duration slow,
            Duration every,
            Supplier<ScheduledExecutorService> timer) {
        this.delegate = Objects.requireNonNull(delegate);
        this.probe = probe != null ? probe : () -> serves(delegate);
        this.slow = Objects.requireNonNull(slow);
        this.every = Objects.requireNonNull(every);
        this.timer = Objects.requireNonNull(timer);
    }

    @Override
    public CommandResult run(CommandRequest request) {
        return run(request, new Cancel());
    }

    @Override
    public CommandResult run(CommandRequest request, Cancel cancel) {
        if (!watched(request.argv())) {
            return delegate.run(request, cancel);
        }
        for (int restarts = 0; ; restarts++) {
            Watch watch = new Watch(cancel);
            ScheduledFuture<?> pings = timer().scheduleWithFixedDelay(
                            watch::ping, slow.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
            CommandResult result;
            try {
                result = delegate.run(request, watch.own);
            } finally {
                pings.cancel(false);
            }
            if (!watch.servedAgain || cancel.cancelled() || restarts >= MAX_RESTARTS) {
                return watch.neverServed() && emptyJsonAnswer(request.argv(), result) ? unanswered(result) : result;
            }
            DebugLogging.debug(
                    StandbyWatch.class, "`{}` stopped: a slurmctld serves again; running it anew", request.display());
        }
    }

    /**
     * Slurm 24.11's {@code scontrol --json show job|step N} with no controller to ask retries the
     * connection for about MessageTimeout, then prints an empty list and exits 0, as it does for
     * an id that does not exist: no error in the document, nothing on stderr. Only the pings
     * tell the two apart. An empty JSON answer while every ping found no controller serving is
     * therefore returned as the connection failure it was, so that callers riding an outage see
     * it (and try again) instead of reading "not found".
     */
    static boolean emptyJsonAnswer(List<String> argv, CommandResult result) {
        return result.succeeded()
                && argv.contains("--json")
                && client(argv).filter("scontrol"::equals).isPresent()
                && Texts.EMPTY_LIST.matcher(result.stdout()).find();
    }

    private static CommandResult unanswered(CommandResult result) {
        return new CommandResult(
                result.request(),
                1,
                result.stdout(),
                "Unable to contact slurm controller (connect"
                        + " failure): scontrol printed an empty list while `scontrol ping` found no controller serving\n",
                false,
                result.elapsed());
    }

    /** One run of a command: its own way to stop it, and what the pings saw meanwhile. */
    private final class Watch {
        final Cancel own = new Cancel();
        /** Written by the pinging thread, read by the caller's once the command ended. */
        private volatile Boolean servedAtFirst;

        volatile boolean servedAgain;
        private volatile boolean servedEver;

        /** At least one ping answered, and none found a controller serving. */
        boolean neverServed() {
            return servedAtFirst != null && !servedEver;
        }

        Watch(Cancel outer) {
            outer.onCancel(own::cancel);
        }

        void ping() {
            Optional<Boolean> serves = probe.serves();
            if (serves.isEmpty()) {
                return;
            }
            servedEver |= serves.get();
            if (servedAtFirst == null) {
                servedAtFirst = serves.get();
            } else if (!servedAtFirst && serves.get()) {
                servedAgain = true;
                own.cancel();
            }
        }
    }

    /** Whether argv runs a Slurm client that asks slurmctld and returns by itself (possibly behind env). */
    static boolean watched(List<String> argv) {
        return client(argv).filter(WATCHED::contains).isPresent();
    }

    /** The name of the program argv runs, past an {@code env} with its options and assignments. */
    private static Optional<String> client(List<String> argv) {
        int i = 0;
        if (program(argv.get(0)).equals("env")) {
            for (i = 1;
                    i < argv.size()
                            && (argv.get(i).startsWith("-") || argv.get(i).contains("="));
                    i++) {
                if (argv.get(i).equals("-u")) {
                    i++; // its NAME
                }
            }
        }
        return i < argv.size() ? Optional.of(program(argv.get(i))) : Optional.empty();
    }

    private static String program(String path) {
        Path name = Path.of(path).getFileName();
        return name == null ? path : name.toString();
    }

    /**
     * Whether a controller serves: the primary answers {@code scontrol ping}, or a backup answers
     * it and also a quick query within {@link #SERVES_TIMEOUT} (one in standby answers pings but
     * makes the query sleep).
     */
    static Optional<Boolean> serves(CommandRunner runner) {
        try {
            String ping = runner.run(new CommandRequest(List.of("scontrol", "ping"), PING_TIMEOUT, Map.of()))
                    .stdout();
            Optional<Boolean> primary = primaryUp(ping);
            if (primary.isEmpty()
                    || primary.get()
                    || !Texts.BACKUP_UP.matcher(ping).find()) {
                return primary;
            }
            return Optional.of(runner.run(new CommandRequest(SERVES_QUERY, SERVES_TIMEOUT, Map.of()))
                    .succeeded());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    static Optional<Boolean> primaryUp(String pingOutput) {
        Matcher m = Texts.PRIMARY.matcher(pingOutput);
        return m.find() ? Optional.of(m.group(1).equals("UP")) : Optional.empty();
    }

    private ScheduledExecutorService timer() {
        ScheduledExecutorService current = started;
        if (current == null) {
            synchronized (this) {
                if (started == null) {
                    started = timer.get();
                }
                current = started;
            }
        }
        return current;
    }

    static ScheduledExecutorService daemonTimer() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "standby-watch");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
