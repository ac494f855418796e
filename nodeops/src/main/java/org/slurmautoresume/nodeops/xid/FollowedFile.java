package org.slurmautoresume.nodeops.xid;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A file of kernel records read line by line as it grows, as {@code tail -f} would. */
final class FollowedFile implements KernelRecordSource {

    private final Path file;
    private final long pollMillis;
    private final RandomAccessFile in;
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final byte[] buffer = new byte[8192];
    private int position;
    private int length;
    private volatile boolean closed;

    FollowedFile(Path file, Duration poll) throws IOException {
        this.file = file;
        this.pollMillis = Math.max(1, poll.toMillis());
        this.in = new RandomAccessFile(file.toFile(), "r");
    }

    @Override
    public List<String> backlog() throws IOException {
        List<String> lines = new ArrayList<>();
        Optional<String> line;
        while ((line = line()).isPresent()) {
            lines.add(line.get());
        }
        return lines;
    }

    @Override
    public Optional<String> next() throws IOException {
        while (!closed) {
            Optional<String> line = line();
            if (line.isPresent()) {
                return line;
            }
            if (in.length() < in.getFilePointer()) {
                // Truncated (emptied by hand): start again from its beginning.
                in.seek(0);
                partial.reset();
                continue;
            }
            try {
                Thread.sleep(pollMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The next whole line written so far, without waiting; a line still being written stays for later. */
    private Optional<String> line() throws IOException {
        while (!closed) {
            if (position == length) {
                length = Math.max(0, in.read(buffer));
                position = 0;
                if (length == 0) {
                    return Optional.empty();
                }
            }
            byte b = buffer[position++];
            if (b == '\n') {
                String text = partial.toString(StandardCharsets.UTF_8);
                partial.reset();
                return Optional.of(text);
            }
            partial.write(b);
        }
        return Optional.empty();
    }

    @Override
    public String describe() {
        return file.toString();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        in.close();
    }
}
