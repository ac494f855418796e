package org.slurmautoresume.supervisor.step;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.rules.OutputObserver;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.launch.SrunLauncher;

/**
 * The srun boundary for the supervisor's unit tests: each start plays the next {@link Scripted}
 * of a script (what it prints, how it ends, what it does to the fake cluster) and records the
 * argv and environment it was started with.
 */
public final class ScriptedSrun implements SrunLauncher {

    /** One attempt's srun; built with the methods below. */
    public static final class Scripted {
        private int status;
        private final List<String> stdout = new ArrayList<>();
        private final List<String> stderr = new ArrayList<>();
        private Consumer<Running> onStart = running -> {};
        private boolean untilSignalled;
        private Duration runsFor = Duration.ZERO;

        public static Scripted exits(int status) {
            Scripted attempt = new Scripted();
            attempt.status = status;
            return attempt;
        }

        /** Runs until signalled or killed, then ends 128+N (SIGKILL: 137). */
        public static Scripted runsUntilStopped() {
            Scripted attempt = new Scripted();
            attempt.untilSignalled = true;
            return attempt;
        }

        /** Ends by itself with {@code status} after {@code time}: long enough for the step to be looked up. */
        public static Scripted exitsAfter(Duration time, int status) {
            Scripted attempt = exits(status);
            attempt.runsFor = time;
            return attempt;
        }

        Scripted printing(String line) {
            stdout.add(line);
            return this;
        }

        Scripted stderr(String line) {
            stderr.add(line);
            return this;
        }

        /** Runs on the launcher's thread right after srun "started": creates a step, kills a node... */
        public Scripted onStart(Consumer<Running> action) {
            onStart = action;
            return this;
        }
    }

    /** A started attempt, as the supervisor sees it. */
    public static final class Running implements Srun {
        private final long pid;
        private final Scripted script;
        private final CountDownLatch ended = new CountDownLatch(1);
        private final List<SignalNumber> signals = new ArrayList<>();
        private volatile int status;

        Running(long pid, Scripted script) {
            this.pid = pid;
            this.script = script;
            this.status = script.status;
        }

        private void end(int exit) {
            if (ended.getCount() > 0) {
                status = exit;
                ended.countDown();
            }
        }

        public synchronized List<SignalNumber> signals() {
            return List.copyOf(signals);
        }

        @Override
        public long pid() {
            return pid;
        }

        @Override
        public boolean isAlive() {
            return ended.getCount() > 0;
        }

        @Override
        public int waitFor() throws InterruptedException {
            ended.await();
            return status;
        }

        @Override
        public boolean signal(SignalNumber signal) {
            synchronized (this) {
                signals.add(signal);
            }
            end(128 + signal.number());
            return true;
        }

        @Override
        public List<String> stderrTail() {
            return List.copyOf(script.stderr);
        }

        @Override
        public boolean awaitExit(Duration timeout) throws InterruptedException {
            return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void kill() {
            end(137);
        }
    }

    /** What one start was given. */
    public record Start(List<String> argv, Map<String, String> environment, Running srun) {}

    private static final AtomicInteger PIDS = new AtomicInteger(4_000_000);
    private final List<Scripted> script;
    private final List<Start> starts = new ArrayList<>();

    public ScriptedSrun(Scripted... script) {
        this.script = List.of(script);
    }

    public synchronized List<Start> starts() {
        return List.copyOf(starts);
    }

    @Override
    public Srun start(List<String> argv, Map<String, String> environment, OutputObserver observer) {
        Scripted next;
        Running running;
        synchronized (this) {
            if (starts.size() >= script.size()) {
                throw new AssertionError("srun started " + (starts.size() + 1) + " times; the script has "
                        + script.size() + " attempts");
            }
            next = script.get(starts.size());
            running = new Running(PIDS.incrementAndGet(), next);
            starts.add(new Start(List.copyOf(argv), Map.copyOf(environment), running));
        }
        next.onStart.accept(running);
        if (observer != null && !next.stdout.isEmpty()) {
            // As srun's pumps do: on a thread of their own, after start returned.
            Thread pump = new Thread(
                    () -> {
                        for (String line : next.stdout) {
                            byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
                            observer.onBytes(OutputObserver.Stream.STDOUT, bytes, 0, bytes.length);
                        }
                    },
                    "scripted-stdout");
            pump.setDaemon(true);
            pump.start();
        }
        if (!next.untilSignalled && next.runsFor.isZero()) {
            running.end(next.status);
        } else if (!next.untilSignalled) {
            Thread timer = new Thread(
                    () -> {
                        try {
                            Thread.sleep(next.runsFor.toMillis());
                        } catch (InterruptedException e) {
                            return;
                        }
                        running.end(next.status);
                    },
                    "scripted-srun");
            timer.setDaemon(true);
            timer.start();
        }
        return running;
    }
}
