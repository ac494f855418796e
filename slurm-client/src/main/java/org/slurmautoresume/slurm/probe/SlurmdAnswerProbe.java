package org.slurmautoresume.slurm.probe;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import org.slurmautoresume.slurm.model.Node;

/**
 * Whether the node's slurmd itself still runs, asked in slurmd's own protocol: a TCP connect
 * alone is answered by the kernel even when slurmd is stopped. The probe sends the 4-byte length
 * prefix every Slurm message starts with, set to 0xFFFFFFFF; slurmd refuses such a length as
 * insane and closes the connection at once, without reading further or acting on anything. A
 * slurmd whose process is stopped (SIGSTOP, a wedged kernel) never reads it, and the read times
 * out. slurmd holds its port while it runs and while it is stopped, so unlike an agent's
 * liveness port no user can answer in its place; a user holding an unprivileged slurmd port
 * after slurmd exited is seen as answering, which is the fail-safe direction (no mark). Costs one
 * connection and two error lines in slurmd's log per probe ("Insane message length" on 22.05),
 * as many as a plain connect leaves.
 */
public final class SlurmdAnswerProbe {

    /** The length prefix sent: far above any message size slurmd accepts. */
    private static final byte[] INSANE_LENGTH = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};

    /** What slurmd did with the probe. */
    public enum Answer {
        /** It accepted, read the length and closed the connection (or reset it, or answered): slurmd runs. */
        ANSWERS,
        /** It accepted the connection (the kernel did) but did not react within the timeout: stopped or wedged. */
        SILENT,
        /** The connection was refused, timed out or failed: nothing on the node serves slurmd's port. */
        NOT_ACCEPTED
    }

    private final Duration timeout;

    public SlurmdAnswerProbe(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    /** slurmd's host for the node: its NodeAddr, else its name. */
    static String host(Node node) {
        return node.address() == null || node.address().isBlank() ? node.name() : node.address();
    }

    /** Asks the node's slurmd on {@code NodeAddr:Port}, within the timeout for connect and answer together. */
    public Answer ask(Node node) {
        return ask(node, timeout);
    }

    /**
     * As {@link #ask(Node)}, giving the handshake at most {@code connectWithin} of the timeout:
     * where the caller already waited out one handshake to the node, a second one to a node that
     * is cut off need not cost a whole timeout more.
     */
    public Answer ask(Node node, Duration connectWithin) {
        return ask(node, connectWithin, timeout);
    }

    /**
     * Starts {@link #ask(Node)} on a thread of its own, connect and answer within {@code within}:
     * for a caller still waiting for the node's agent, which would otherwise ask slurmd only once
     * that wait is over, and so take twice as long to find a stopped node.
     */
    public Future<Answer> askAside(Node node, Duration within) {
        FutureTask<Answer> task = new FutureTask<>(() -> ask(node, within, within));
        Thread thread = new Thread(task, "slurmd-answer-" + node.name());
        thread.setDaemon(true);
        thread.start();
        return task;
    }

    private Answer ask(Node node, Duration connectWithin, Duration within) {
        if (connectWithin.isNegative() || connectWithin.isZero() || within.isNegative() || within.isZero()) {
            throw new IllegalArgumentException("not a positive wait: " + connectWithin + ", " + within);
        }
        int port = node.port().orElse(TcpNodeProber.DEFAULT_SLURMD_PORT);
        long start = System.nanoTime();
        int millis = Math.toIntExact(within.toMillis());
        try (Socket socket = new Socket()) {
            try {
                socket.connect(
                        new InetSocketAddress(host(node), port),
                        Math.min(millis, Math.toIntExact(connectWithin.toMillis())));
            } catch (IOException e) {
                return Answer.NOT_ACCEPTED;
            }
            socket.setSoTimeout(Math.max(1, millis - (int) ((System.nanoTime() - start) / 1_000_000)));
            try {
                OutputStream out = socket.getOutputStream();
                out.write(INSANE_LENGTH);
                out.flush();
                InputStream in = socket.getInputStream();
                in.read(); // end of stream, a byte, or a reset: slurmd reacted either way
                return Answer.ANSWERS;
            } catch (SocketTimeoutException e) {
                return Answer.SILENT;
            } catch (SocketException e) {
                return Answer.ANSWERS; // reset by the peer: slurmd closed with our bytes unread
            }
        } catch (IOException e) {
            return Answer.NOT_ACCEPTED;
        }
    }
}
