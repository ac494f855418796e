package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.nodeops.xid.KernelRecord;
import org.slurmautoresume.nodeops.xid.KernelRecordSource;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * The kernel log since boot, one message per line: {@code /dev/kmsg} read directly where it can
 * be opened (root), keeping the kernel's own records only; else {@code dmesg --kernel}, else
 * {@code journalctl -k -b -o cat} (kernel.dmesg_restrict refuses dmesg to non-root callers).
 *
 * <p>{@code /dev/kmsg} comes first because it keeps the kernel's escaping: a newline inside a
 * message (a user's file name in a segfault report, say) stays {@code \x0a}, where dmesg and
 * journalctl print a line break and the user's text starts a line of its own.
 */
public final class KernelLog {

    static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** The text, or why none could be read. */
    public record Reading(Optional<String> text, String source) {}

    private KernelLog() {}

    public static Reading read(HealthContext context) {
        List<String> tried = new ArrayList<>();
        Optional<Path> device = context.kernelLogDevice();
        if (device.isPresent()) {
            try (KernelRecordSource source = KernelRecordSource.kmsg(device.get())) {
                StringBuilder text = new StringBuilder();
                for (String record : source.backlog()) {
                    KernelRecord.parse(record)
                            .filter(KernelRecord::fromKernel)
                            .ifPresent(r -> text.append(r.message()).append('\n'));
                }
                return new Reading(Optional.of(text.toString()), device.get().toString());
            } catch (IOException | UnsatisfiedLinkError e) {
                tried.add(e.getMessage());
            }
        }
        Optional<Path> dmesg = context.tool("dmesg");
        if (dmesg.isPresent()) {
            CommandResult result = context.run(dmesg.get(), List.of("--kernel"), TIMEOUT);
            if (result.succeeded()) {
                return new Reading(Optional.of(result.stdout()), "dmesg");
            }
            tried.add(HealthContext.describeFailure(result));
        } else {
            tried.add("dmesg is not on PATH");
        }
        Optional<Path> journalctl = context.tool("journalctl");
        if (journalctl.isPresent()) {
            CommandResult result =
                    context.run(journalctl.get(), List.of("-k", "-b", "--no-pager", "-q", "-o", "cat"), TIMEOUT);
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
