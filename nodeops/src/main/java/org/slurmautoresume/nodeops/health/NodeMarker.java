package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * Turns a failed health report into the one {@code scontrol update} that tells Slurm: REPLACE or
 * REBOOT mark the node {@code state=fail reason=Action:Replace|Action:Reboot} (fail lets running
 * jobs finish); a failure that needs a person (action NONE) drains it with a reason naming the
 * checks. A passing report changes nothing: returning a node to service is the sweep's decision.
 */
public final class NodeMarker {

    private final SlurmControl control;

    public NodeMarker(CommandRunner runner, Path scontrol) {
        this.control = new SlurmControl(Objects.requireNonNull(runner),
                SlurmControl.Programs.withScontrol(scontrol.toString()));
    }

    /** The mark {@code report} calls for, or empty when it passed. */
    public static Optional<NodeMark> markFor(String node, HealthReport report) {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
        if (!report.failed()) {
            return Optional.empty();
        }
        Optional<NodeMark.Action> action = report.worstAction().mark();
        if (action.isEmpty()) {
            List<String> names = report.failures().stream().map(CheckResult::check).toList();
            return Optional.of(new NodeMark(node, NodeMark.State.DRAIN,
                    "health check failed: " + String.join(",", names)));
        }
        return Optional.of(NodeMark.of(node, NodeMark.State.FAIL, action.get()));
    }

    /** The argv that marks {@code node} for this report, or empty when it passed (for a dry run). */
    public static Optional<List<String>> command(Path scontrol, String node, HealthReport report) {
        SlurmControl control = new SlurmControl(request -> {
            throw new IllegalStateException("a dry run runs nothing");
        }, SlurmControl.Programs.withScontrol(scontrol.toString()));
        return markFor(node, report).map(control::markArgv);
    }

    /**
     * Marks the node as {@link #markFor} says; returns the command as a person would type it, or
     * throws a {@link org.slurmautoresume.slurm.exec.CommandException} naming scontrol's complaint.
     */
    public Optional<String> mark(String node, HealthReport report) {
        Optional<NodeMark> mark = markFor(node, report);
        if (mark.isEmpty()) {
            return Optional.empty();
        }
        WriteResult result = control.mark(mark.get());
        if (!result.ok()) {
            throw result.asException();
        }
        return Optional.of(result.command());
    }
}
