package org.slurmautoresume.supervisor.step.launch;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.rules.OutputObserver;

/**
 * One srun child: stdin inherited (so --pty and input forwarding work), stdout and stderr
 * copied byte for byte to the supervisor's own file descriptors by two pump threads.
 */
public final class StepProcess implements Srun {

    private static final FileOutputStream STDOUT = new FileOutputStream(FileDescriptor.out);
    private static final FileOutputStream STDERR = new FileOutputStream(FileDescriptor.err);

    private final Process process;
    private final OutputPump out;
    private final OutputPump err;
    private final Thread outThread;
    private final Thread errThread;

    private StepProcess(Process process, OutputObserver observer) {
        this.process = process;
        this.out = new OutputPump(process.getInputStream(), STDOUT, OutputObserver.Stream.STDOUT, observer);
        this.err = new OutputPump(process.getErrorStream(), STDERR, OutputObserver.Stream.STDERR, observer);
        this.outThread = new Thread(out, "srun-stdout");
        this.errThread = new Thread(err, "srun-stderr");
        outThread.setDaemon(true);
        errThread.setDaemon(true);
        outThread.start();
        errThread.start();
    }

    /** Starts srun; {@code environment} is the complete environment of the child. */
    public static StepProcess start(List<String> argv, Map<String, String> environment) {
        return start(argv, environment, null);
    }

    /**
     * As {@link #start(List, Map)}, and {@code observer} (may be null) sees both streams' bytes
     * after they were copied: the log rules watch the output this way without touching it.
     */
    public static StepProcess start(List<String> argv, Map<String, String> environment, OutputObserver observer) {
        ProcessBuilder builder = new ProcessBuilder(argv);
        builder.environment().clear();
        builder.environment().putAll(environment);
        builder.redirectInput(ProcessBuilder.Redirect.INHERIT);
        try {
            return new StepProcess(builder.start(), observer);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for srun to exit and for both streams to be fully copied; returns its status (128+N for signal N). */
    @Override
    public int waitFor() throws InterruptedException {
        int status = process.waitFor();
        outThread.join();
        errThread.join();
        return status;
    }

    @Override
    public boolean signal(SignalNumber signal) {
        return Posix.kill(process.pid(), signal.number());
    }

    /** The last lines srun (and the tasks through it) wrote to stderr. */
    @Override
    public List<String> stderrTail() {
        return err.lastLines();
    }

    @Override
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
    }

    @Override
    public void kill() {
        process.destroyForcibly();
    }
}
