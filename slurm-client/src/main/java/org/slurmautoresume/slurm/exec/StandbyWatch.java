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
 * Notices a primary slurmctld that came back while a Slurm command sleeps in Slurm's own client.
 * With a backup controller in standby, a request that finds the primary stopped is answered "in
 * standby mode" by the backup, and Slurm's client library then sleeps SlurmctldTimeout/2 before
 * it asks again (60 s with the default SlurmctldTimeout of 120 s), however soon the primary is
 * back: a restart for an upgrade then costs every caller up to that sleep more. Without a backup a
 * request to a stopped primary takes seconds to fail too.
 *
 * <p>So a Slurm client command that has run {@link #SLOW} is watched with {@code scontrol ping},
 * which asks each controller directly, once a {@link #PING_EVERY}: if the primary was down at the
 * first ping and answers at a later one, the command is stopped and run again at once. A command
 * that is merely slow (the primary answered the first ping) is never stopped. Only commands that
 * talk to slurmctld and return by themselves are watched (scontrol, scancel, squeue, sinfo), not
 * salloc, srun or sbatch, which may wait for resources by design. A stopped command may have
 * reached slurmctld already: the toolkit's writes (marks, shrinks, cancels) may be repeated.
 */
public final class StandbyWatch implements CommandRunner {

    /** How long a command runs before the controllers are pinged: slurmctld answers in milliseconds. */
    public static final Duration SLOW = Duration.ofSeconds(2);
    static final Duration PING_EVERY = Duration.ofSeconds(1);
    private static final Duration PING_TIMEOUT = Duration.ofSeconds(5);
    /** A primary that flaps does not keep a command going for ever: at most this many fresh starts. */
    private static final int MAX_RESTARTS = 3;
    private static final Set<String> WATCHED = Set.of("scontrol", "scancel", "squeue", "sinfo");
    private static final Pattern PRIMARY = Pattern.compile("(?m)^Slurmctld\\(primary\\) at \\S+ is (UP|DOWN)");

    /** Whether the primary controller answers pings now; empty when that cannot be told. */
    @FunctionalInterface
    public interface PrimaryProbe {
        Optional<Boolean> primaryUp();
    }

    private final CommandRunner delegate;
    private final PrimaryProbe probe;
    private final Duration slow;
    private final Duration every;
    private final Supplier<ScheduledExecutorService> timer;
    private volatile ScheduledExecutorService started;

    /** Over {@code delegate}, asking {@code scontrol ping} through it. */
    public StandbyWatch(CommandRunner delegate) {
        this(delegate, null, SLOW, PING_EVERY, StandbyWatch::daemonTimer);
    }

    /** With the probe and the pace a test controls; a null probe pings through {@code delegate}. */
    StandbyWatch(CommandRunner delegate, PrimaryProbe probe, Duration slow, Duration every,
                 Supplier<ScheduledExecutorService> timer) {
        this.delegate = Objects.requireNonNull(delegate);
        this.probe = probe != null ? probe : () -> ping(delegate);
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
            ScheduledFuture<?> pings = timer().scheduleWithFixedDelay(watch::ping, slow.toMillis(), every.toMillis(),
                    TimeUnit.MILLISECONDS);
            CommandResult result;
            try {
                result = delegate.run(request, watch.own);
            } finally {
                pings.cancel(false);
            }
            if (!watch.primaryBack || cancel.cancelled() || restarts >= MAX_RESTARTS) {
                return result;
            }
            DebugLogging.debug(StandbyWatch.class, "`{}` stopped: the primary slurmctld answers again; running it anew",
                    request.display());
        }
    }

    /** One run of a command: its own way to stop it, and what the pings saw meanwhile. */
    private final class Watch {
        final Cancel own = new Cancel();
        private Boolean primaryAtFirst;
        volatile boolean primaryBack;

        Watch(Cancel outer) {
            outer.onCancel(own::cancel);
        }

        void ping() {
            Optional<Boolean> up = probe.primaryUp();
            if (up.isEmpty()) {
                return;
            }
            if (primaryAtFirst == null) {
                primaryAtFirst = up.get();
            } else if (!primaryAtFirst && up.get()) {
                primaryBack = true;
                own.cancel();
            }
        }
    }

    /** Whether argv runs a Slurm client that asks slurmctld and returns by itself (possibly behind env). */
    static boolean watched(List<String> argv) {
        int i = 0;
        if (program(argv.get(0)).equals("env")) {
            for (i = 1; i < argv.size() && (argv.get(i).startsWith("-") || argv.get(i).contains("=")); i++) {
                if (argv.get(i).equals("-u")) {
                    i++; // its NAME
                }
            }
        }
        return i < argv.size() && WATCHED.contains(program(argv.get(i)));
    }

    private static String program(String path) {
        Path name = Path.of(path).getFileName();
        return name == null ? path : name.toString();
    }

    /** {@code scontrol ping}: the primary's line says UP or DOWN. */
    static Optional<Boolean> ping(CommandRunner runner) {
        try {
            CommandResult result = runner.run(new CommandRequest(List.of("scontrol", "ping"), PING_TIMEOUT, Map.of()));
            return primaryUp(result.stdout());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    static Optional<Boolean> primaryUp(String pingOutput) {
        Matcher m = PRIMARY.matcher(pingOutput);
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
