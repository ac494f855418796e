package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * The kernel log since boot: {@code dmesg}, or {@code journalctl -k -b} where dmesg is missing
 * or refused (kernel.dmesg_restrict for non-root callers). Either text holds the driver's Xid lines.
 */
public final class KernelLog {

    static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** The text, or why none could be read. */
    public record Reading(Optional<String> text, String source) {
    }

    private KernelLog() {
    }

    public static Reading read(HealthContext context) {
        List<String> tried = new ArrayList<>();
        Optional<Path> dmesg = context.tool("dmesg");
        if (dmesg.isPresent()) {
            CommandResult result = context.run(dmesg.get(), List.of(), TIMEOUT);
            if (result.succeeded()) {
                return new Reading(Optional.of(result.stdout()), "dmesg");
            }
            tried.add(HealthContext.describeFailure(result));
        } else {
            tried.add("dmesg is not on PATH");
        }
        Optional<Path> journalctl = context.tool("journalctl");
        if (journalctl.isPresent()) {
            CommandResult result = context.run(journalctl.get(), List.of("-k", "-b", "--no-pager", "-q"), TIMEOUT);
            if (result.succeeded()) {
                return new Reading(Optional.of(result.stdout()), "journalctl -k");
            }
            tried.add(HealthContext.describeFailure(result));
        } else {
            tried.add("journalctl is not on PATH");
        }
        return new Reading(Optional.empty(), String.join("; ", tried));
    }
}
