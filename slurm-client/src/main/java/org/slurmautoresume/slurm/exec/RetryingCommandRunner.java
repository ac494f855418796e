package org.slurmautoresume.slurm.exec;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wraps a runner and repeats commands that failed for a transient controller error. */
public final class RetryingCommandRunner implements CommandRunner {

    /** How the runner waits between attempts; tests pass one that records instead of sleeping. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /**
     * Looked up when first used, not when the class loads: a supervised step that ends well
     * never starts the logging framework (about a quarter of the classes a start-up loads).
     */
    private static Logger log() {
        return LoggerFactory.getLogger(RetryingCommandRunner.class);
    }

    private final CommandRunner delegate;
    private final RetryPolicy policy;
    private final Sleeper sleeper;

    public RetryingCommandRunner(CommandRunner delegate, RetryPolicy policy) {
        this(delegate, policy, duration -> Thread.sleep(duration.toMillis()));
    }

    public RetryingCommandRunner(CommandRunner delegate, RetryPolicy policy, Sleeper sleeper) {
        this.delegate = Objects.requireNonNull(delegate);
        this.policy = Objects.requireNonNull(policy);
        this.sleeper = Objects.requireNonNull(sleeper);
    }

    /**
     * The same commands riding out whole controller outages instead of a few retries: for a
     * process that must keep working through a slurmctld restart or failover (the supervisor).
     */
    public CommandRunner riding(ControllerOutage outage) {
        return outage.riding(delegate);
    }

    @Override
    public CommandResult run(CommandRequest request) {
        CommandResult result = delegate.run(request);
        for (int attempt = 2; attempt <= policy.maxAttempts() && policy.isTransient(result); attempt++) {
            Duration backoff = policy.backoffBefore(attempt);
            log().warn(
                            "`{}` failed transiently ({}); attempt {} of {} in {} ms",
                            request.display(),
                            result.timedOut()
                                    ? "timed out"
                                    : result.diagnosticTail().replace('\n', ' '),
                            attempt,
                            policy.maxAttempts(),
                            backoff.toMillis());
            try {
                sleeper.sleep(backoff);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return result;
            }
            result = delegate.run(request);
        }
        return result;
    }
}
