package org.slurmautoresume.nodeops.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * The changes admin commands and the sweep make, each one Slurm command as an argv list:
 * {@code scontrol update nodename=N state=S [reason=R]}, {@code scontrol reboot ASAP
 * nextstate=RESUME reason=R NODES} and {@code scancel JOB}. Never throws for a failed command:
 * the {@link Result} says what happened, and whether Slurm refused the caller's privilege.
 */
public final class NodeUpdater {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** {@code command}: as a person would type it; {@code message}: Slurm's complaint, or empty. */
    public record Result(boolean ok, boolean denied, String command, String message) {
    }

    private final CommandRunner runner;
    private final String scontrol;
    private final String scancel;

    public NodeUpdater(CommandRunner runner) {
        this(runner, "scontrol", "scancel");
    }

    public NodeUpdater(CommandRunner runner, String scontrol, String scancel) {
        this.runner = Objects.requireNonNull(runner);
        this.scontrol = Objects.requireNonNull(scontrol);
        this.scancel = Objects.requireNonNull(scancel);
    }

    /** {@code state}: fail, down, resume, drain...; {@code reason}: null for none (resume). */
    public Result setState(String node, String state, String reason) {
        requireNode(node);
        List<String> argv = new ArrayList<>(List.of(scontrol, "update", "nodename=" + node, "state=" + state));
        if (reason != null) {
            argv.add("reason=" + reason);
        }
        return run(argv);
    }

    /** Reboots once the nodes' jobs end, then returns them to service ({@code nextstate=RESUME}). */
    public Result rebootWhenIdle(List<String> nodes, String reason) {
        nodes.forEach(NodeUpdater::requireNode);
        return run(List.of(scontrol, "reboot", "ASAP", "nextstate=RESUME", "reason=" + reason,
                Hostlist.compress(nodes)));
    }

    public Result cancelJob(String jobId) {
        if (!jobId.matches("[0-9]{1,10}(_[0-9]{1,10})?")) {
            throw new IllegalArgumentException("not a job id: \"" + jobId + "\"");
        }
        return run(List.of(scancel, jobId));
    }

    private Result run(List<String> argv) {
        CommandRequest request = new CommandRequest(argv, TIMEOUT, Map.of());
        CommandResult result;
        try {
            result = runner.run(request);
        } catch (CommandException e) {
            return new Result(false, false, request.display(), e.getMessage());
        }
        if (result.succeeded()) {
            return new Result(true, false, request.display(), "");
        }
        if (Privilege.deniedBySlurm(result)) {
            return new Result(false, true, request.display(), "Slurm refused the change: node updates need root,"
                    + " the SlurmUser or a Slurm admin account (" + result.diagnosticTail() + ")");
        }
        return new Result(false, false, request.display(), CommandException.failed(result).getMessage());
    }

    private static void requireNode(String node) {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
    }
}
