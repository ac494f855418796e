package org.slurmautoresume.nodeops.xid;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kernel's log device, read as the kernel hands it out: one record per read(2), unprintable
 * bytes escaped. Opened without blocking so that {@link #backlog()} returns exactly the records
 * present now; {@link #next()} then waits for new ones.
 */
final class Kmsg implements KernelRecordSource {

    private static final int O_RDONLY = 0;
    private static final int O_NONBLOCK = 04000;
    private static final int O_CLOEXEC = 02000000;
    private static final int F_SETFL = 4;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EPIPE = 32;

    private interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        long read(int fd, byte[] buffer, long count) throws LastErrorException;

        int fcntl(int fd, int command, int argument) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private final Path device;
    private final int fd;
    private final byte[] buffer = new byte[8192];
    private volatile boolean closed;

    Kmsg(Path device) throws IOException {
        this.device = device;
        try {
            this.fd = LIBC.open(device.toString(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IOException("cannot open " + device + ": " + e.getMessage(), e);
        }
    }

    /** Every record in the kernel's buffer now, oldest first; then the device blocks for new ones. */
    @Override
    public List<String> backlog() throws IOException {
        List<String> records = new ArrayList<>();
        Optional<String> record;
        while ((record = read()).isPresent()) {
            records.add(record.get());
        }
        try {
            LIBC.fcntl(fd, F_SETFL, O_RDONLY);
        } catch (LastErrorException e) {
            throw new IOException("cannot make " + device + " blocking: " + e.getMessage(), e);
        }
        return records;
    }

    @Override
    public Optional<String> next() throws IOException {
        while (!closed) {
            Optional<String> record = read();
            if (record.isPresent()) {
                return record;
            }
        }
        return Optional.empty();
    }

    /** One record, or empty when none is there (non-blocking mode) or the device was closed. */
    private Optional<String> read() throws IOException {
        while (!closed) {
            try {
                long n = LIBC.read(fd, buffer, buffer.length);
                if (n <= 0) {
                    return Optional.empty();
                }
                return Optional.of(new String(buffer, 0, (int) n, StandardCharsets.UTF_8));
            } catch (LastErrorException e) {
                switch (e.getErrorCode()) {
                    case EAGAIN:
                        return Optional.empty();
                    case EINTR:
                    case EPIPE:
                        // EPIPE: records were overwritten before we read them; reading goes on
                        // with the oldest one left (they are lost to every reader alike).
                        continue;
                    default:
                        throw new IOException("cannot read " + device + ": " + e.getMessage(), e);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public String describe() {
        return device.toString();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                LIBC.close(fd);
            } catch (LastErrorException e) {
                // nothing to do: the descriptor is gone either way
            }
        }
    }
}
