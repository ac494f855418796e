package org.slurmautoresume.cli;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slurmautoresume.bridge.exec.CommandRunner;
import org.slurmautoresume.bridge.exec.CommonsExecCommandRunner;
import org.slurmautoresume.bridge.exec.RetryPolicy;
import org.slurmautoresume.bridge.exec.RetryingCommandRunner;
import org.slurmautoresume.bridge.slurm.SlurmClient;
import org.slurmautoresume.lifecycle.apply.LocalHost;

/**
 * What commands need from the outside world: the environment they were started with and a
 * way to reach Slurm. Tests build one over a mocked {@link CommandRunner}.
 */
public final class CliContext {

    private final Map<String, String> environment;
    private final Supplier<CommandRunner> runner;
    private final LocalHost localHost;
    private CommandRunner createdRunner;

    public CliContext(Map<String, String> environment, Supplier<CommandRunner> runner) {
        this(environment, runner, LocalHost.system());
    }

    public CliContext(Map<String, String> environment, Supplier<CommandRunner> runner, LocalHost localHost) {
        this.environment = Map.copyOf(environment);
        this.runner = Objects.requireNonNull(runner);
        this.localHost = Objects.requireNonNull(localHost);
    }

    /** The real world: this process's environment and Commons Exec with retries. */
    public static CliContext system() {
        return new CliContext(System.getenv(),
                () -> new RetryingCommandRunner(new CommonsExecCommandRunner(), RetryPolicy.DEFAULT));
    }

    public Map<String, String> environment() {
        return environment;
    }

    public Optional<String> env(String name) {
        String value = environment.get(name);
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    /** Created on first use, so commands that never touch Slurm pay nothing for it. */
    public synchronized CommandRunner runner() {
        if (createdRunner == null) {
            createdRunner = runner.get();
        }
        return createdRunner;
    }

    /** This machine's addresses and name, for `lifecycle apply` to find its role. */
    public LocalHost localHost() {
        return localHost;
    }

    public SlurmClient slurm() {
        return new SlurmClient(runner());
    }
}
