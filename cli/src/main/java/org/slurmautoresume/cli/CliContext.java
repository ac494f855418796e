package org.slurmautoresume.cli;

import java.io.Console;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slurmautoresume.agent.server.UnixUsers;
import org.slurmautoresume.lifecycle.apply.LocalHost;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;
import org.slurmautoresume.slurm.exec.ControllerOutage;
import org.slurmautoresume.slurm.exec.RetryPolicy;
import org.slurmautoresume.slurm.exec.RetryingCommandRunner;
import org.slurmautoresume.slurm.exec.StandbyWatch;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.supervisor.step.StepSupervisor;

/**
 * What commands need from the outside world: the environment they were started with and a
 * way to reach Slurm. Tests build one over a mocked {@link CommandRunner}.
 */
public final class CliContext {

    /** Asks a person a question; empty when there is no terminal to ask on. */
    @FunctionalInterface
    public interface Prompt {
        Optional<String> ask(String question);

        Prompt NONE = question -> Optional.empty();
    }

    private final Map<String, String> environment;
    private final Supplier<CommandRunner> runner;
    private final Supplier<CommandRunner> toolRunner;
    private final Supplier<Caller> caller;
    private final Prompt prompt;
    private final Supplier<LocalDateTime> clock;
    private final LocalHost localHost;
    private CommandRunner createdRunner;
    private CommandRunner createdToolRunner;
    private Optional<SlurmVersion> launcherRelease;

    /** One runner for Slurm and for other tools; no terminal to ask on, this process's user, the system clock. */
    public CliContext(Map<String, String> environment, Supplier<CommandRunner> runner) {
        this(environment, runner, runner, CliContext::processUser, Prompt.NONE, LocalDateTime::now);
    }

    public CliContext(
            Map<String, String> environment, Supplier<CommandRunner> runner, Supplier<CommandRunner> toolRunner) {
        this(environment, runner, toolRunner, CliContext::processUser, Prompt.NONE, LocalDateTime::now);
    }

    public CliContext(
            Map<String, String> environment,
            Supplier<CommandRunner> runner,
            Supplier<Caller> caller,
            Prompt prompt,
            Supplier<LocalDateTime> clock) {
        this(environment, runner, runner, caller, prompt, clock);
    }

    public CliContext(
            Map<String, String> environment,
            Supplier<CommandRunner> runner,
            Supplier<CommandRunner> toolRunner,
            Supplier<Caller> caller,
            Prompt prompt,
            Supplier<LocalDateTime> clock) {
        this(environment, runner, toolRunner, caller, prompt, clock, LocalHost.system());
    }

    /** One runner, and this machine's addresses and name as a test wants them. */
    public CliContext(Map<String, String> environment, Supplier<CommandRunner> runner, LocalHost localHost) {
        this(environment, runner, runner, CliContext::processUser, Prompt.NONE, LocalDateTime::now, localHost);
    }

    public CliContext(
            Map<String, String> environment,
            Supplier<CommandRunner> runner,
            Supplier<CommandRunner> toolRunner,
            Supplier<Caller> caller,
            Prompt prompt,
            Supplier<LocalDateTime> clock,
            LocalHost localHost) {
        this.localHost = Objects.requireNonNull(localHost);
        this.environment = Map.copyOf(environment);
        this.runner = Objects.requireNonNull(runner);
        this.toolRunner = Objects.requireNonNull(toolRunner);
        this.caller = Objects.requireNonNull(caller);
        this.prompt = Objects.requireNonNull(prompt);
        this.clock = Objects.requireNonNull(clock);
    }

    /**
     * The real world: this process's environment; Slurm commands through Commons Exec with
     * retries, run anew at once when one slept in Slurm's client on a standby backup while the
     * primary came back ({@link StandbyWatch}); other tools (health checks) without either: a hung
     * nvidia-smi or a failed diagnostic is the finding, and repeating a ten-minute dcgmi diag after
     * its timeout is never wanted.
     */
    public static CliContext system() {
        return new CliContext(
                System.getenv(),
                () -> new RetryingCommandRunner(new StandbyWatch(new CommonsExecCommandRunner()), RetryPolicy.DEFAULT),
                CommonsExecCommandRunner::new,
                CliContext::processUser,
                CliContext::askOnConsole,
                LocalDateTime::now);
    }

    private static Caller processUser() {
        return new Caller(UnixUsers.effectiveUid(), System.getProperty("user.name"));
    }

    /** Only an interactive terminal counts: a pipe or /dev/null on stdin must not answer "yes". */
    private static Optional<String> askOnConsole(String question) {
        Console console = System.console();
        if (console == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(console.readLine("%s", question)).or(() -> Optional.of(""));
    }

    /** Who runs this command (for the privilege check of node changes). */
    public Caller caller() {
        return caller.get();
    }

    public Prompt prompt() {
        return prompt;
    }

    /** Now, in the controller's local time as Slurm prints it. */
    public LocalDateTime now() {
        return clock.get();
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

    /**
     * The Slurm runner riding out slurmctld outages through {@code outage} instead of its few
     * retries. A test's own runner is used as it is: it already answers as the test wants.
     */
    public CommandRunner runner(ControllerOutage outage) {
        CommandRunner plain = runner();
        return plain instanceof RetryingCommandRunner retrying ? retrying.riding(outage) : plain;
    }

    /** Slurm through scontrol on {@code slurmRunner}, as {@link #slurm()}. */
    public SlurmClient slurm(CommandRunner slurmRunner) {
        return new SlurmClient(slurmRunner, slurmFormat());
    }

    /**
     * The scontrol output Slurm clients read, where the release is known without asking: the one
     * the plugin names for a supervised step (AUTORESUME_SLURM_VERSION), else the launcher's
     * {@code scontrol --version}; AUTO (ask it) otherwise.
     */
    public OutputFormat slurmFormat() {
        String hint = environment.get(StepSupervisor.SLURM_VERSION_HINT);
        if (hint != null && !hint.isBlank()) {
            return OutputFormat.forRelease(hint);
        }
        return launcherRelease().map(OutputFormat::of).orElse(OutputFormat.AUTO);
    }

    /** The release the launcher's {@code scontrol --version} printed ({@link LauncherRelease}); read once. */
    public synchronized Optional<SlurmVersion> launcherRelease() {
        if (launcherRelease == null) {
            launcherRelease = LauncherRelease.read(environment, LauncherRelease.WAIT);
        }
        return launcherRelease;
    }

    /** This machine's addresses and name, for `lifecycle apply` to find its role. */
    public LocalHost localHost() {
        return localHost;
    }

    /** The runner for programs other than Slurm's (nvidia-smi, dcgmi, stress-ng...): no retries. */
    public synchronized CommandRunner toolRunner() {
        if (createdToolRunner == null) {
            createdToolRunner = toolRunner.get();
        }
        return createdToolRunner;
    }

    /**
     * Slurm through scontrol. Under the SPANK plugin the release is known from
     * AUTORESUME_SLURM_VERSION (the one the plugin was built for, which Slurm only loads into
     * that release), which saves a supervised srun its own {@code scontrol --version}.
     */
    public SlurmClient slurm() {
        return slurm(runner());
    }
}
