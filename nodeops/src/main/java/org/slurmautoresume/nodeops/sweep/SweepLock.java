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
import java.time.LocalDateTime;
import java.util.Optional;

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
            super("another sweep is running (" + (holder.isBlank() ? "holder unknown" : holder) + "; lock " + file + ")");
            this.holder = holder;
        }

        public String holder() {
            return holder;
        }
    }

    private final FileChannel channel;
    private final FileLock lock;

    private SweepLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock, or {@link BusyException}; the file and its folder are made if missing. */
    public static SweepLock acquire(Path file) {
        FileChannel channel = null;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
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

    /** /run/autoresume/sweep.lock where that folder exists or can be made, else /var/lock. */
    public static Path defaultPath() {
        Path run = Path.of("/run/autoresume");
        if (Files.isDirectory(run) ? Files.isWritable(run) : Files.isWritable(run.getParent())) {
            return run.resolve("sweep.lock");
        }
        return Path.of("/var/lock/autoresume-sweep.lock");
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
