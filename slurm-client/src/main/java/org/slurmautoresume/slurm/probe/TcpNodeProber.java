package org.slurmautoresume.slurm.probe;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slurmautoresume.slurm.model.Node;

/**
 * Whether the node's slurmd accepts a TCP connection on {@code NodeAddr:Port}: a dead node or a
 * dead slurmd is seen in about the connect timeout, long before slurmctld's SlurmdTimeout. The
 * connection is closed at once, and slurmd logs an error for each ("service_connection:
 * slurm_receive_msg: Zero Bytes were transmitted or received", seen on 22.05): where the node's
 * agent answers, {@link LivenessProber} asks it instead, and where munge and the release allow,
 * {@link SlurmdStatusProber} asks slurmd something it logs nothing for; this probe is what remains
 * where neither can. A stopped slurmd on a live kernel still completes the handshake, so this
 * probe cannot see a frozen node.
 */
public final class TcpNodeProber implements NodeProber {

    /** slurmd's port when slurm.conf names none. */
    public static final int DEFAULT_SLURMD_PORT = 6818;

    private final Duration timeout;
    private final Set<String> refused = ConcurrentHashMap.newKeySet();

    public TcpNodeProber(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    @Override
    public Optional<String> unreachable(Node node) {
        try (Socket socket = new Socket()) {
            return connect(socket, node, timeout, refused);
        } catch (IOException e) {
            return Optional.empty(); // closing a connection slurmd accepted: it is there
        }
    }

    /**
     * Connects {@code socket} to the node's slurmd on {@code NodeAddr:Port} within {@code timeout}:
     * empty once connected, else why not; {@code refused} holds the node's name exactly while its
     * host refuses the connection (slurmd not listening).
     */
    static Optional<String> connect(Socket socket, Node node, Duration timeout, Set<String> refused) {
        String host = SlurmdAnswerProbe.host(node);
        int port = node.port().orElse(DEFAULT_SLURMD_PORT);
        try {
            socket.connect(new InetSocketAddress(host, port), Math.toIntExact(timeout.toMillis()));
            refused.remove(node.name());
            return Optional.empty();
        } catch (IOException e) {
            if (e instanceof ConnectException) {
                refused.add(node.name());
            } else {
                refused.remove(node.name());
            }
            return Optional.of("slurmd at " + host + ":" + port + " did not accept a TCP connection within "
                    + timeout.toMillis() + " ms (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
    }

    /** A connection refused (ConnectException): slurmd is not listening, though the host answers. */
    @Override
    public boolean refused(Node node) {
        return refused.contains(node.name());
    }
}
