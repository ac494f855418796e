package org.slurmautoresume.nodeops.sweep;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Node;

/**
 * Runs a site's health check for a node: the policy's {@code healthCommand} argv with every
 * {@code {node}} replaced by the node name (for example {@code ["ssh", "{node}", "autoresume",
 * "health"]}). Exit 0: healthy. Exit {@value #REBOOT_EXIT}: unhealthy, a reboot should fix it
 * (what {@code autoresume health} exits when every failure is reset-class). Exit
 * {@value #FREE_SPACE_EXIT}: unhealthy, {@code free-space}: only filesystems short of space or
 * inodes, which neither a reboot nor a replacement fixes (what {@code autoresume health} exits
 * then). Any other exit, a timeout or a program that cannot start: unhealthy, replace.
 */
public final class CommandNodeHealth implements NodeHealth {

    /** The exit status that asks for a reboot rather than a replacement. */
    public static final int REBOOT_EXIT = 8;
    /** The exit status that says only a filesystem is short of space: the node itself is sound. */
    public static final int FREE_SPACE_EXIT = 9;

    private final CommandRunner runner;
    private final List<String> template;
    private final Duration timeout;
    private final Map<String, String> environment;

    public CommandNodeHealth(CommandRunner runner, List<String> template, Duration timeout) {
        this(runner, template, timeout, Map.of());
    }

    /**
     * With {@code environment} added to the command's (the agent's {@code AUTORESUME_CHECK=on-request},
     * which tells the command that a user's request asked for it).
     */
    public CommandNodeHealth(
            CommandRunner runner, List<String> template, Duration timeout, Map<String, String> environment) {
        this.runner = Objects.requireNonNull(runner);
        this.template = List.copyOf(template);
        this.timeout = Objects.requireNonNull(timeout);
        this.environment = Map.copyOf(environment);
        if (template.isEmpty()) {
            throw new IllegalArgumentException("a health command needs at least a program");
        }
    }

    /**
     * One run of the command: the verdict (whose detail quotes the command and the tail of what
     * it printed, for an operator), how it ended in a few words of our own ({@code exited 8},
     * {@code timed out after 120 s}, {@code could not be started}), and all it printed. The parts
     * are apart so that a caller answering someone else than the operator can leave the output out.
     */
    public record Run(Verdict verdict, String program, String ended, String stdout, String stderr) {}

    @Override
    public Verdict check(Node node) {
        return run(node).verdict();
    }

    /** Runs the command for {@code node}; see {@link Run}. */
    public Run run(Node node) {
        List<String> argv = new ArrayList<>(template.size());
        for (String word : template) {
            argv.add(word.replace("{node}", node.name()));
        }
        CommandRequest request = new CommandRequest(argv, timeout, environment);
        String program = argv.get(0);
        CommandResult result;
        try {
            result = runner.run(request);
        } catch (CommandException e) {
            return new Run(Verdict.unhealthy("replace", e.getMessage()), program, "could not be started", "", "");
        }
        if (result.succeeded()) {
            return new Run(
                    Verdict.healthy("`" + request.display() + "` passed"),
                    program,
                    "exited 0",
                    result.stdout(),
                    result.stderr());
        }
        String ended =
                result.timedOut() ? "timed out after " + timeout.toSeconds() + " s" : "exited " + result.exitCode();
        String what = result.timedOut() ? ended : ended + ": " + result.diagnosticTail();
        String action = result.timedOut()
                ? "replace"
                : result.exitCode() == REBOOT_EXIT
                        ? "reboot"
                        : result.exitCode() == FREE_SPACE_EXIT ? Verdict.FREE_SPACE : "replace";
        return new Run(
                Verdict.unhealthy(action, "`" + request.display() + "` " + what),
                program,
                ended,
                result.stdout(),
                result.stderr());
    }
}
