package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;

/**
 * What a check may use: the command runner (every tool runs through it, with a timeout), the
 * PATH lookup that decides whether a tool is there at all, the settings, and the GPU count
 * Slurm's Gres gives this node when one can be had.
 */
public final class HealthContext {

    /** Exit status of a tool that was found but could not be started (as a shell reports it). */
    public static final int CANNOT_START = 126;

    private final CommandRunner runner;
    private final ToolLocator tools;
    private final HealthSettings settings;
    private final Supplier<OptionalInt> slurmGpuCount;
    private final Optional<Path> kernelLogDevice;
    private OptionalInt askedSlurmGpus;

    /** A context that reads the kernel log through dmesg or journalctl only (tests, non-root callers). */
    public HealthContext(
            CommandRunner runner, ToolLocator tools, HealthSettings settings, Supplier<OptionalInt> slurmGpuCount) {
        this(runner, tools, settings, slurmGpuCount, Optional.empty());
    }

    /** {@code kernelLogDevice}: {@code /dev/kmsg} on a real node, read first when it can be opened. */
    public HealthContext(
            CommandRunner runner,
            ToolLocator tools,
            HealthSettings settings,
            Supplier<OptionalInt> slurmGpuCount,
            Optional<Path> kernelLogDevice) {
        this.kernelLogDevice = Objects.requireNonNull(kernelLogDevice);
        this.runner = Objects.requireNonNull(runner);
        this.tools = Objects.requireNonNull(tools);
        this.settings = Objects.requireNonNull(settings);
        this.slurmGpuCount = Objects.requireNonNull(slurmGpuCount);
    }

    public HealthSettings settings() {
        return settings;
    }

    public Optional<Path> kernelLogDevice() {
        return kernelLogDevice;
    }

    public Optional<Path> tool(String name) {
        return tools.find(name);
    }

    /** The count to compare against: the setting, else Slurm's Gres for this node, else empty. */
    public OptionalInt expectedGpus() {
        return settings.expectedGpus().isPresent() ? settings.expectedGpus() : slurmGpus();
    }

    /** Slurm's count, asked once however many checks (on their own threads) want it. */
    private synchronized OptionalInt slurmGpus() {
        if (askedSlurmGpus == null) {
            askedSlurmGpus = slurmGpuCount.get();
        }
        return askedSlurmGpus;
    }

    /**
     * Runs a located program. A program that cannot be started comes back as a result with exit
     * status {@link #CANNOT_START} and the reason as stderr, so checks handle one shape only.
     */
    public CommandResult run(Path program, List<String> args, Duration timeout) {
        return run(program, args, timeout, Map.of());
    }

    /** As {@link #run(Path, List, Duration)}, with {@code environment} added to the agent's own. */
    public CommandResult run(Path program, List<String> args, Duration timeout, Map<String, String> environment) {
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add(program.toString());
        argv.addAll(args);
        CommandRequest request = new CommandRequest(argv, timeout, environment);
        try {
            return runner.run(request);
        } catch (CommandException e) {
            return new CommandResult(request, CANNOT_START, "", e.getMessage(), false, Duration.ZERO);
        }
    }

    /** "`cmd` timed out after N s" / "`cmd` exited with status N: tail", for evidence. */
    public static String describeFailure(CommandResult result) {
        return CommandException.failed(result).getMessage();
    }
}
