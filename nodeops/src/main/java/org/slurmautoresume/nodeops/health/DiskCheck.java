package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * The mount points the node needs: each is in the mount table, is not mounted read-only (a
 * filesystem remounted read-only after errors is the usual sign), takes a small file, and has
 * at least the configured share of its space free. A full disk is FAILED with action NONE: it
 * needs someone to clean up, not a reboot or a new machine.
 */
public final class DiskCheck implements HealthCheck {

    public static final String NAME = "disk";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "required mount points present, read-write, writable, with enough free space";
    }

    @Override
    public CheckResult run(HealthContext context) {
        HealthSettings settings = context.settings();
        if (settings.mounts().isEmpty()) {
            return CheckResult.skipped(NAME, "no mount points to check");
        }
        MountTable table;
        try {
            table = MountTable.parse(Files.readString(settings.mountsFile(), StandardCharsets.UTF_8));
        } catch (IOException | ParseException e) {
            return CheckResult.skipped(NAME, "cannot read the mount table " + settings.mountsFile() + ": " + e.getMessage());
        }
        List<Finding> findings = new ArrayList<>();
        for (Path mountPoint : settings.mounts()) {
            checkMount(table, mountPoint, settings.minFreePercent(), findings);
        }
        return CheckResult.of(NAME, findings, settings.mounts().size() + " mount point(s) writable with space free");
    }

    private static void checkMount(MountTable table, Path mountPoint, int minFreePercent, List<Finding> findings) {
        Optional<MountTable.Mount> mount = table.at(mountPoint.toString());
        if (mount.isEmpty()) {
            findings.add(Finding.fault(HealthAction.REBOOT, mountPoint + " is not mounted"));
            return;
        }
        if (mount.get().readOnly()) {
            findings.add(Finding.fault(HealthAction.REBOOT, mountPoint + " is mounted read-only ("
                    + mount.get().device() + ", " + mount.get().type() + ")"));
            return;
        }
        checkWritable(mountPoint, findings);
        checkFreeSpace(mountPoint, minFreePercent, findings);
    }

    private static void checkWritable(Path dir, List<Finding> findings) {
        Path probe = null;
        try {
            probe = Files.createTempFile(dir, ".autoresume-health-", ".tmp");
            Files.writeString(probe, "ok\n", StandardCharsets.US_ASCII);
            findings.add(Finding.note(dir + " is writable"));
        } catch (AccessDeniedException e) {
            // Not this node's fault: the caller is not root (slurmd runs the health program as root).
            findings.add(Finding.note(dir + " not writable by this user, write test skipped (run as root)"));
        } catch (IOException e) {
            findings.add(Finding.fault(HealthAction.REBOOT, "cannot write to " + dir + ": " + e.getMessage()));
        } finally {
            if (probe != null) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException e) {
                    findings.add(Finding.note("could not remove the probe file " + probe + ": " + e.getMessage()));
                }
            }
        }
    }

    private static void checkFreeSpace(Path dir, int minFreePercent, List<Finding> findings) {
        try {
            FileStore store = Files.getFileStore(dir);
            long total = store.getTotalSpace();
            if (total <= 0) {
                return; // pseudo filesystems report no size
            }
            long percent = store.getUsableSpace() * 100 / total;
            String text = dir + ": " + percent + " % free (" + store.getUsableSpace() / (1024 * 1024) + " MiB)";
            findings.add(percent < minFreePercent
                    ? Finding.fault(HealthAction.NONE, text + ", below the " + minFreePercent + " % floor")
                    : Finding.note(text));
        } catch (IOException e) {
            findings.add(Finding.fault(HealthAction.REBOOT, "cannot read free space of " + dir + ": " + e.getMessage()));
        }
    }
}
