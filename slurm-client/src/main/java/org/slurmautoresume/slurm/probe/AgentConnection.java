package org.slurmautoresume.slurm.probe;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One TCP connection to a node's agent, read a line at a time, and kept between probes where the
 * agent answers further questions ({@link LivenessProber#ASK_AGAIN}). Its own small buffer reads
 * a greeting that arrives in one segment with one system call (a socket's stream makes each byte
 * a call of its own), and says whether anything beyond the line came: a kept connection must hold
 * nothing unread, or the next answer would be read from what came before it.
 */
final class AgentConnection implements Closeable {

    /** The longest greeting read; a longer line is cut there. */
    static final int MAX_GREETING = 256;

    private final Socket socket = new Socket();
    private final byte[] buffer = new byte[MAX_GREETING];
    private int position;
    private int count;
    private InputStream in;
    private OutputStream out;
    private boolean answeredAgain;
    /** A question is outstanding: sent, its answer not read yet (guarded by this). */
    private boolean asked;

    private long askedAt;

    void connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        socket.connect(address, timeoutMillis);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /**
     * Asks a kept connection's agent for a fresh greeting, unless a question is outstanding
     * already (asked ahead of a round, {@link LivenessProber#roundStarts}): the agent closes a
     * connection that sends two.
     */
    synchronized void askAgain() throws IOException {
        if (!asked) {
            out.write(LivenessProber.ASK_AGAIN);
            asked = true;
            askedAt = System.nanoTime();
        }
    }

    /** Whether a question outstanding was asked more than {@code nanos} ago: its answer, waiting unread, is stale. */
    synchronized boolean askedLongerAgoThan(long nanos) {
        return asked && System.nanoTime() - askedAt > nanos;
    }

    /** The answer to the outstanding question was read. */
    synchronized void answerRead() {
        asked = false;
    }

    /** The next byte, waiting at most {@code timeoutMillis} (SocketTimeoutException); -1 at the end. */
    int read(int timeoutMillis) throws IOException {
        if (position < count) {
            return buffer[position++] & 0xff;
        }
        socket.setSoTimeout(timeoutMillis);
        int read = in.read(buffer, 0, buffer.length);
        if (read <= 0) {
            position = 0;
            count = 0;
            return -1;
        }
        position = 1;
        count = read;
        return buffer[0] & 0xff;
    }

    /**
     * The line that {@code first} begins, read up to its end or {@value #MAX_GREETING} bytes,
     * each further read waiting at most {@code timeoutMillis}; empty when nothing came.
     */
    Optional<String> line(int first, int timeoutMillis) throws IOException {
        byte[] line = new byte[MAX_GREETING];
        int length = 0;
        for (int b = first; length < line.length; b = read(timeoutMillis)) {
            if (b < 0) {
                break;
            }
            if (b == '\n') {
                return Optional.of(new String(line, 0, length, StandardCharsets.US_ASCII));
            }
            line[length++] = (byte) b;
        }
        return length == 0 ? Optional.empty() : Optional.of(new String(line, 0, length, StandardCharsets.US_ASCII));
    }

    /** Whether everything received so far was read: nothing came beyond the last line. */
    boolean drained() {
        return position == count;
    }

    /** Whether the agent answered a question on this connection, beyond the greeting it opened with. */
    boolean answeredAgain() {
        return answeredAgain;
    }

    void markAnsweredAgain() {
        answeredAgain = true;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing was to be said on it any more
        }
    }
}
