package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * Turns a failed health report into the one {@code scontrol update} that tells Slurm: REPLACE or
 * REBOOT mark the node {@code state=fail reason=Action:Replace|Action:Reboot} (fail lets running
 * jobs finish); a failure that needs a person (action NONE) drains it with a reason naming the
 * checks. A passing report changes nothing: returning a node to service is the sweep's decision.
 */
public final class NodeMarker {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final CommandRunner runner;
    private final Path scontrol;

    public NodeMarker(CommandRunner runner, Path scontrol) {
        this.runner = Objects.requireNonNull(runner);
        this.scontrol = Objects.requireNonNull(scontrol);
    }

    /** The argv that marks {@code node} for this report, or empty when it passed. */
    public static Optional<List<String>> command(Path scontrol, String node, HealthReport report) {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
        if (!report.failed()) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>(List.of(scontrol.toString(), "update", "nodename=" + node));
        HealthAction action = report.worstAction();
        if (action == HealthAction.NONE) {
            List<String> names = report.failures().stream().map(CheckResult::check).toList();
            argv.add("state=drain");
            argv.add("reason=health check failed: " + String.join(",", names));
        } else {
            argv.add("state=fail");
            argv.add("reason=" + action.reason());
        }
        return Optional.of(argv);
    }

    /** Runs {@link #command}; returns it as a person would type it, or throws naming scontrol's complaint. */
    public Optional<String> mark(String node, HealthReport report) {
        Optional<List<String>> argv = command(scontrol, node, report);
        if (argv.isEmpty()) {
            return Optional.empty();
        }
        CommandRequest request = new CommandRequest(argv.get(), TIMEOUT, Map.of());
        CommandResult result = runner.run(request);
        if (!result.succeeded()) {
            throw CommandException.failed(result);
        }
        return Optional.of(request.display());
    }
}
