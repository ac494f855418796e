package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * The mount points the node needs: each is in the mount table, is not mounted read-only, has at
 * least the configured share of its space and of its inodes free, and takes a small file.
 *
 * <p>Two kinds of finding, because they have two kinds of cause. A filesystem short of space or
 * inodes is FREE_SPACE: any user who may write there can fill it (and empty it again), the node
 * itself is sound, so it is drained with the toolkit's own reason and the check lifts that drain
 * once space is back ({@link DiskDrain}); a reboot or a new machine would only punish the other
 * jobs. A mount that is missing, read-only or refuses a write while it has room is REBOOT: no
 * user can cause those by writing files (the kernel remounts a filesystem read-only after I/O or
 * metadata errors, {@code errors=remount-ro}), so they stay faults.
 */
public final class DiskCheck implements HealthCheck {

    public static final String NAME = "disk";
    /** stat -f asks the kernel one statfs; a mount that takes longer than this is hung. */
    static final Duration STAT_TIMEOUT = Duration.ofSeconds(10);
    /** Names drawn for the write probe before a check gives up on finding a free one. */
    private static final int PROBE_NAME_ATTEMPTS = 100;

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY = PosixFilePermissions.asFileAttribute(
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "required mount points present, read-write, writable, with enough free space and inodes";
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
            return CheckResult.skipped(
                    NAME, "cannot read the mount table " + settings.mountsFile() + ": " + e.getMessage());
        }
        Optional<Path> stat = context.tool("stat");
        List<Finding> findings = new ArrayList<>();
        for (Path mountPoint : settings.mounts()) {
            checkMount(context, table, mountPoint, stat, findings);
        }
        if (stat.isEmpty()) {
            findings.add(Finding.note("stat is not on PATH: free inodes not checked"));
        }
        return CheckResult.of(
                NAME, findings, settings.mounts().size() + " mount point(s) writable with space and inodes free");
    }

    private static void checkMount(
            HealthContext context, MountTable table, Path mountPoint, Optional<Path> stat, List<Finding> findings) {
        Optional<MountTable.Mount> mount = table.at(mountPoint.toString());
        if (mount.isEmpty()) {
            findings.add(Finding.fault(HealthAction.REBOOT, mountPoint + " is not mounted"));
            return;
        }
        if (mount.get().readOnly()) {
            findings.add(Finding.fault(
                    HealthAction.REBOOT,
                    mountPoint + " is mounted read-only (" + mount.get().device() + ", "
                            + mount.get().type() + ")"));
            return;
        }
        int floor = context.settings().minFreePercent();
        boolean spaceShort = checkFreeSpace(mountPoint, floor, findings);
        boolean inodesShort = stat.isPresent() && checkFreeInodes(context, stat.get(), mountPoint, floor, findings);
        checkWritable(mountPoint, spaceShort || inodesShort, findings);
    }

    /**
     * A probe file written and removed. On a filesystem already found short of space or inodes a
     * refused write is that shortage (ENOSPC), not a second fault: reading it as a broken disk is
     * how a user who filled one used to get the node rebooted.
     */
    private static void checkWritable(Path dir, boolean shortOfSpace, List<Finding> findings) {
        Path probe = null;
        try {
            probe = createProbe(dir);
            Files.writeString(probe, "ok\n", StandardCharsets.US_ASCII);
            findings.add(Finding.note(dir + " is writable"));
        } catch (AccessDeniedException e) {
            // Not this node's fault: the caller is not root (slurmd runs the health program as root).
            findings.add(Finding.note(dir + " not writable by this user, write test skipped (run as root)"));
        } catch (IOException e) {
            findings.add(
                    shortOfSpace
                            ? Finding.note("cannot write to " + dir + " (" + e.getMessage() + "): it is short of space")
                            : Finding.fault(HealthAction.REBOOT, "cannot write to " + dir + ": " + e.getMessage()));
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

    /**
     * A new, empty file only its owner may read and write, as {@link Files#createTempFile} makes,
     * under a random name that is not a secure random: that one's first use loads and seeds the
     * security providers, about 20 ms of a check that HealthCheckProgram starts on every node. The
     * name need not be secret: the file is created exclusively (never through a symlink or over
     * another file), and a name already taken is drawn again.
     */
    static Path createProbe(Path dir) throws IOException {
        return createProbe(dir, () -> ThreadLocalRandom.current().nextLong());
    }

    /** As above, with the names drawn from {@code names}. */
    static Path createProbe(Path dir, LongSupplier names) throws IOException {
        FileAlreadyExistsException taken = null;
        for (int attempt = 0; attempt < PROBE_NAME_ATTEMPTS; attempt++) {
            Path probe = dir.resolve(".autoresume-health-" + Long.toUnsignedString(names.getAsLong()) + ".tmp");
            try {
                return Files.createFile(probe, OWNER_ONLY);
            } catch (FileAlreadyExistsException e) {
                taken = e;
            }
        }
        throw taken;
    }

    /** True when {@code dir} has less than {@code floor} % of its space free. */
    private static boolean checkFreeSpace(Path dir, int floor, List<Finding> findings) {
        try {
            FileStore store = Files.getFileStore(dir);
            long total = store.getTotalSpace();
            if (total <= 0) {
                return false; // pseudo filesystems report no size
            }
            long usable = store.getUsableSpace();
            long percent = usable * 100 / total;
            findings.add(Finding.note(dir + ": " + percent + " % free (" + usable / (1024 * 1024) + " MiB)"
                    + (percent < floor ? ", below the " + floor + " % floor" : "")));
            if (percent < floor) {
                findings.add(Finding.fault(HealthAction.FREE_SPACE, DiskDrain.spaceShortage(dir, 100 - percent)));
                return true;
            }
            return false;
        } catch (IOException e) {
            findings.add(
                    Finding.fault(HealthAction.REBOOT, "cannot read free space of " + dir + ": " + e.getMessage()));
            return false;
        }
    }

    /**
     * True when {@code dir} has less than {@code floor} % of its inodes free: a million empty files
     * fill a filesystem as surely as one large one. Read with {@code stat -f} (the JDK has no call
     * for it); a filesystem that reports no inode count (btrfs) has no such limit.
     */
    private static boolean checkFreeInodes(
            HealthContext context, Path stat, Path dir, int floor, List<Finding> findings) {
        CommandResult result = context.run(stat, List.of("-f", "-c", "%c %d", "--", dir.toString()), STAT_TIMEOUT);
        Optional<long[]> counts = result.succeeded() ? parseCounts(result.stdout()) : Optional.empty();
        if (counts.isEmpty()) {
            findings.add(Finding.note("free inodes of " + dir + " not read: "
                    + (result.succeeded()
                            ? "unexpected answer \"" + result.stdout().strip() + "\""
                            : HealthContext.describeFailure(result))));
            return false;
        }
        long total = counts.get()[0];
        long free = counts.get()[1];
        if (total <= 0) {
            findings.add(Finding.note(dir + ": no inode limit"));
            return false;
        }
        long percent = free * 100 / total;
        findings.add(Finding.note(dir + ": " + percent + " % of inodes free (" + free + " of " + total + ")"
                + (percent < floor ? ", below the " + floor + " % floor" : "")));
        if (percent < floor) {
            findings.add(Finding.fault(HealthAction.FREE_SPACE, DiskDrain.inodeShortage(dir, 100 - percent)));
            return true;
        }
        return false;
    }

    /** "TOTAL FREE" as {@code stat -f -c '%c %d'} prints it. */
    static Optional<long[]> parseCounts(String stdout) {
        String[] words = stdout.strip().split("\\s+");
        if (words.length != 2) {
            return Optional.empty();
        }
        try {
            long total = Long.parseLong(words[0]);
            long free = Long.parseLong(words[1]);
            return total < 0 || free < 0 || free > total ? Optional.empty() : Optional.of(new long[] {total, free});
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
