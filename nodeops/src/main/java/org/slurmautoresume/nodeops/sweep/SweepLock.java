package org.slurmautoresume.nodeops.sweep;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.util.Optional;
import org.slurmautoresume.slurm.files.OwnedFiles;

/**
 * Keeps two sweeps from acting at once: an exclusive lock on a file, held for the whole
 * sweep and released by the kernel if the process dies. The holder writes who it is into the
 * file so the one turned away can say.
 */
public final class SweepLock implements AutoCloseable {

    /** Another sweep holds the lock; {@code holder} is what it wrote (pid, host, since). */
    public static final class BusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String holder;

        BusyException(Path file, String holder) {
            super("another sweep is running (" + (holder.isBlank() ? "holder unknown" : holder) + "; lock " + file
                    + ")");
            this.holder = holder;
        }

        public String holder() {
            return holder;
        }
    }

    private static final Path DEFAULT = Path.of("/run/autoresume/sweep.lock");

    private final FileChannel channel;
    private final FileLock lock;

    private SweepLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * The lock, or {@link BusyException}; the file and its folder are made if missing. The sweep
     * runs as root: a lock in a folder another user can write (such as /var/lock, mode 1777) could
     * be a link planted to make root truncate and write any file, so the folder must be root's
     * (or this process's) and writable by nobody else, and the file is opened without following a
     * link and refused unless this uid owns it.
     */
    public static SweepLock acquire(Path file) {
        FileChannel channel = null;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(
                        parent, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
                OwnedFiles.requireTrustedDirectory(parent, OwnedFiles.currentUid());
            }
            channel = OwnedFiles.open(
                    file,
                    OwnedFiles.currentUid(),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by this very process
            }
            if (lock == null) {
                String holder = readHolder(channel);
                channel.close();
                throw new BusyException(file, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(holderLine().getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            return new SweepLock(channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot use the sweep lock file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * /run/autoresume/sweep.lock: a root-owned folder. There is no fallback to a shared one
     * (/var/lock is writable by every user); {@link #acquire} refuses a folder others can write.
     */
    public static Path defaultPath() {
        return DEFAULT;
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // The channel's close below releases it as well.
        }
        closeQuietly(channel);
    }

    private static String holderLine() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown-host";
        }
        return "pid=" + ProcessHandle.current().pid() + " host=" + host + " user=" + System.getProperty("user.name")
                + " since=" + LocalDateTime.now().withNano(0) + "\n";
    }

    private static String readHolder(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(512);
        channel.read(buffer, 0);
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip();
    }

    private static void closeQuietly(FileChannel channel) {
        Optional.ofNullable(channel).ifPresent(c -> {
            try {
                c.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
        });
    }
}
