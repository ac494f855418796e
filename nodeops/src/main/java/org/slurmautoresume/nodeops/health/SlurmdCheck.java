package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * Whether this node's slurmd answers a real request: {@code scontrol show slurmd}, which asks the
 * slurmd of this host for its status (REQUEST_DAEMON_STATUS; on a build with several slurmds per
 * host, the one of {@code SLURMD_NODENAME}). A TCP connect is not enough: a stopped or wedged
 * slurmd still has its port accept connections (the kernel completes the handshake), and then
 * answers nothing. Such a slurmd starts no new step, and slurmctld finds the node not responding
 * only at SlurmdTimeout (300 s on production clusters), when it sets the node DOWN and kills its
 * jobs; a restarted slurmd (a reboot) fixes it.
 *
 * <p>Faults, with action REBOOT: no answer in time, the connection refused (slurmd not running),
 * the socket timed out. Any other error (a configuration or authentication problem, not the
 * node's) gives no verdict: SKIPPED with the error. A check that has not yet seen the slurmd
 * answer gives none either: a host whose slurmd is not meant to run (a controller running an
 * agent for its sweeps), or not started yet, is never taken for a node whose slurmd stopped.
 * One instance is meant to be asked again and again, by one thread (the agent's watch).
 */
public final class SlurmdCheck implements HealthCheck {

    public static final String NAME = "slurmd";
    /** Longer than scontrol's own wait (MessageTimeout, 10 s by default), so its error comes first. */
    static final Duration TIMEOUT = Duration.ofSeconds(15);

    private static final Pattern PID = Pattern.compile("(?m)^Slurmd PID\\s*=\\s*([0-9]+)\\s*$");
    private static final List<String> NO_ANSWER =
            List.of("connection refused", "timed out", "zero bytes were transmitted", "connection reset");

    private final String node;
    /** Whether the slurmd has answered this check once: only then is silence a fault. */
    private volatile boolean answered;

    /** {@code node}: this node's Slurm name, which picks its slurmd where several run on one host. */
    public SlurmdCheck(String node) {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
        this.node = node;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "scontrol show slurmd: this node's slurmd answers a request";
    }

    @Override
    public CheckResult run(HealthContext context) {
        Optional<Path> scontrol = context.tool("scontrol");
        if (scontrol.isEmpty()) {
            return CheckResult.skipped(NAME, "scontrol is not on PATH (Slurm's client is not installed)");
        }
        CommandResult result =
                context.run(scontrol.get(), List.of("show", "slurmd"), TIMEOUT, Map.of("SLURMD_NODENAME", node));
        Matcher pid = PID.matcher(result.stdout());
        if (result.succeeded() && pid.find()) {
            answered = true;
            return CheckResult.of(
                    NAME,
                    List.of(Finding.note("slurmd of " + node + " answered (pid " + pid.group(1) + ")")),
                    "slurmd answered");
        }
        if (!answered) {
            return CheckResult.skipped(
                    NAME,
                    "slurmd of " + node + " has not answered yet, so no verdict: "
                            + HealthContext.describeFailure(result));
        }
        if (result.timedOut()) {
            return CheckResult.of(
                    NAME,
                    List.of(Finding.fault(
                            HealthAction.REBOOT,
                            "slurmd of " + node + " did not answer `scontrol show slurmd` within " + TIMEOUT.toSeconds()
                                    + " s")),
                    "");
        }
        String said = (result.stderr() + " " + result.stdout()).strip();
        String lower = said.toLowerCase(Locale.ROOT);
        if (NO_ANSWER.stream().anyMatch(lower::contains)) {
            return CheckResult.of(
                    NAME,
                    List.of(Finding.fault(
                            HealthAction.REBOOT,
                            "slurmd of " + node + " did not answer: " + HealthContext.describeFailure(result))),
                    "");
        }
        return CheckResult.skipped(
                NAME, "no verdict on slurmd of " + node + ": " + HealthContext.describeFailure(result));
    }

    public String node() {
        return node;
    }
}
