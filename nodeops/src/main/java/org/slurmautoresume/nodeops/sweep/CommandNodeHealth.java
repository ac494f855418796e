package org.slurmautoresume.nodeops.sweep;

import org.slurmautoresume.nodeops.health.NodeHealth;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

    public CommandNodeHealth(CommandRunner runner, List<String> template, Duration timeout) {
        this.runner = Objects.requireNonNull(runner);
        this.template = List.copyOf(template);
        this.timeout = Objects.requireNonNull(timeout);
        if (template.isEmpty()) {
            throw new IllegalArgumentException("a health command needs at least a program");
        }
    }

    @Override
    public Verdict check(Node node) {
        List<String> argv = new ArrayList<>(template.size());
        for (String word : template) {
            argv.add(word.replace("{node}", node.name()));
        }
        CommandRequest request = new CommandRequest(argv, timeout, Map.of());
        CommandResult result;
        try {
            result = runner.run(request);
        } catch (CommandException e) {
            return Verdict.unhealthy("replace", e.getMessage());
        }
        if (result.succeeded()) {
            return Verdict.healthy("`" + request.display() + "` passed");
        }
        String what = result.timedOut() ? "timed out after " + timeout.toSeconds() + " s"
                : "exited " + result.exitCode() + ": " + result.diagnosticTail();
        String action = result.timedOut() ? "replace"
                : result.exitCode() == REBOOT_EXIT ? "reboot"
                : result.exitCode() == FREE_SPACE_EXIT ? Verdict.FREE_SPACE : "replace";
        return Verdict.unhealthy(action, "`" + request.display() + "` " + what);
    }
}
