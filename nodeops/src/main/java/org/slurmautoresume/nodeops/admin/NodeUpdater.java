package org.slurmautoresume.nodeops.admin;

import java.util.List;
import java.util.Objects;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.JobId;

/**
 * The changes admin commands and the sweep make, through {@link SlurmControl}, read the way
 * their reports show them. Never throws for a failed command: the {@link Result} says what
 * happened, and whether Slurm refused the caller's privilege.
 */
public final class NodeUpdater {

    /** {@code command}: as a person would type it; {@code message}: Slurm's complaint, or empty. */
    public record Result(boolean ok, boolean denied, String command, String message) {}

    private final SlurmControl control;

    public NodeUpdater(CommandRunner runner) {
        this(new SlurmControl(runner));
    }

    public NodeUpdater(SlurmControl control) {
        this.control = Objects.requireNonNull(control);
    }

    /** Takes the node out of service with the mark's state and reason. */
    public Result mark(NodeMark mark) {
        return report(control.mark(mark));
    }

    public Result resume(String node) {
        return report(control.resume(node));
    }

    /** Reboots once the nodes' jobs end, then returns them to service ({@code nextstate=RESUME}). */
    public Result rebootWhenIdle(List<String> nodes, String reason) {
        return report(control.rebootWhenIdle(nodes, reason));
    }

    public Result cancelJob(JobId jobId) {
        return report(control.cancel(jobId));
    }

    private static Result report(WriteResult result) {
        if (result.ok()) {
            return new Result(true, false, result.command(), "");
        }
        if (result.deniedBySlurm()) {
            return new Result(
                    false,
                    true,
                    result.command(),
                    "Slurm refused the change: node updates need root," + " the SlurmUser or a Slurm admin account ("
                            + result.diagnosticTail() + ")");
        }
        return new Result(false, false, result.command(), result.message());
    }
}
