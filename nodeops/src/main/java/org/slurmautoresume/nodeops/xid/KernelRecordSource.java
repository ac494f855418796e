package org.slurmautoresume.nodeops.xid;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where kernel records come from, one {@link #next()} at a time, blocking until there is one:
 * the kernel's own {@code /dev/kmsg}, or a plain file of records in the same format that only
 * root can write (a simulated node's kernel log on the local cluster, a container's copy).
 */
public interface KernelRecordSource extends Closeable {

    /** The records present when the source was opened, oldest first; call once, before {@link #next()}. */
    List<String> backlog() throws IOException;

    /** The next record's text, waiting for one; empty at the end (the source was closed). */
    Optional<String> next() throws IOException;

    /** What the source is, for logs. */
    String describe();

    /** {@code /dev/kmsg}: the kernel's own log. */
    static KernelRecordSource kmsg(Path device) throws IOException {
        return new Kmsg(device);
    }

    /**
     * A file of records, one per line, followed as it grows. It must be a regular file (not a
     * link) owned by root and writable by nobody else, in a directory nobody else may write:
     * records from it are believed as the kernel's own.
     */
    static KernelRecordSource followFile(Path file, Duration poll) throws IOException {
        requireRootOnly(file);
        requireRootOnly(file.toAbsolutePath().getParent());
        return new FollowedFile(file, poll);
    }

    private static void requireRootOnly(Path path) throws IOException {
        PosixFileAttributes attributes =
                Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink()) {
            throw new IOException(path + " is a symbolic link; name the file itself");
        }
        Set<PosixFilePermission> permissions = attributes.permissions();
        if (!attributes.owner().getName().equals("root")
                || permissions.contains(PosixFilePermission.GROUP_WRITE)
                || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(path + " must be owned by root and writable by root alone (it is "
                    + attributes.owner().getName() + ", " + PosixFilePermissions.toString(permissions)
                    + "): anyone who can write it could have nodes marked");
        }
    }
}
