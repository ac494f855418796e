package org.slurmautoresume.slurm.probe;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;

/**
 * A loopback stand-in for a node's slurmd. A live one reads the 4-byte length of each connection
 * and closes it, as slurmd does with a length it refuses; a silent one never accepts, so the
 * kernel completes handshakes and queues the bytes, as for a stopped slurmd.
 */
final class SlurmdStandIn implements AutoCloseable {

    private final ServerSocket server;
    private final AtomicInteger lengthsRead = new AtomicInteger();

    private SlurmdStandIn(ServerSocket server) {
        this.server = server;
    }

    /** On the first free port above {@code near} (below it near the top of the range), so that offsets stay ports. */
    static SlurmdStandIn near(int near, boolean live) throws IOException {
        for (int offset = 1; offset < 1000; offset++) {
            int port = near + offset <= 65535 ? near + offset : near - offset;
            ServerSocket server = new ServerSocket();
            try {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            } catch (IOException e) {
                server.close();
                continue;
            }
            SlurmdStandIn standIn = new SlurmdStandIn(server);
            if (live) {
                standIn.serve();
            }
            return standIn;
        }
        throw new IOException("no free port near " + near);
    }

    private void serve() {
        Thread thread = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket peer = server.accept();
                        InputStream in = peer.getInputStream()) {
                    if (in.readNBytes(4).length == 4) {
                        lengthsRead.incrementAndGet();
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** How many connections sent a full length prefix (live stand-ins only). */
    int lengthsRead() {
        return lengthsRead.get();
    }

    /** node2 with this stand-in as its slurmd. */
    Node node() {
        return new NodeParser().parse("NodeName=node2 NodeAddr=127.0.0.1 Port=" + port() + " State=IDLE");
    }

    /** The agents' base port that puts node2's agent on {@code agentPort}. */
    int basePortFor(int agentPort) {
        return agentPort - port() + TcpNodeProber.DEFAULT_SLURMD_PORT;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
