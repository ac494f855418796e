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

/**
 * What commands need from the outside world: the environment they were started with and a
 * way to reach Slurm. Tests build one over a mocked {@link CommandRunner}.
 */
public final class CliContext {

    private final Map<String, String> environment;
    private final Supplier<CommandRunner> runner;
    private final Supplier<CommandRunner> toolRunner;
    private CommandRunner createdRunner;
    private CommandRunner createdToolRunner;

    /** One runner for Slurm and for other tools (tests). */
    public CliContext(Map<String, String> environment, Supplier<CommandRunner> runner) {
        this(environment, runner, runner);
    }

    public CliContext(Map<String, String> environment, Supplier<CommandRunner> runner,
                      Supplier<CommandRunner> toolRunner) {
        this.environment = Map.copyOf(environment);
        this.runner = Objects.requireNonNull(runner);
        this.toolRunner = Objects.requireNonNull(toolRunner);
    }

    /**
     * The real world: this process's environment; Slurm commands through Commons Exec with
     * retries, other tools (health checks) without: a hung nvidia-smi or a failed diagnostic is
     * the finding, and repeating a ten-minute dcgmi diag after its timeout is never wanted.
     */
    public static CliContext system() {
        return new CliContext(System.getenv(),
                () -> new RetryingCommandRunner(new CommonsExecCommandRunner(), RetryPolicy.DEFAULT),
                CommonsExecCommandRunner::new);
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

    /** The runner for programs other than Slurm's (nvidia-smi, dcgmi, stress-ng...): no retries. */
    public synchronized CommandRunner toolRunner() {
        if (createdToolRunner == null) {
            createdToolRunner = toolRunner.get();
        }
        return createdToolRunner;
    }

    public SlurmClient slurm() {
        return new SlurmClient(runner());
    }
}
