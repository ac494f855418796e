package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.parse.ConfigParser;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.NodeParser;

/** Against a stand-in slurmd on loopback that reads the request as slurmd frames it. */
class SlurmdStatusProberTest {

    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final int V2205 = 38 << 8;
    private static final MungeEncoder FAKE_MUNGE = payload -> "MUNGE:fake:";

    private static Node node(int port) {
        return new NodeParser().parse("NodeName=node2 NodeAddr=127.0.0.1 Port=" + port + " State=IDLE");
    }

    /** What the stand-in read of one request. */
    private record Request(int length, int version, int type, int authPlugin) {}

    /** Accepts one connection, reads one length-prefixed request, answers it (or not) and closes. */
    private static CompletableFuture<Request> serveOne(ServerSocket server, boolean answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket peer = server.accept()) {
                DataInputStream in = new DataInputStream(peer.getInputStream());
                byte[] message = new byte[in.readInt()];
                in.readFully(message);
                ByteBuffer read = ByteBuffer.wrap(message);
                int version = Short.toUnsignedInt(read.getShort());
                read.getShort();
                int type = Short.toUnsignedInt(read.getShort());
                read.position(read.position() + 4 + 2 + 2 + 2);
                Request request = new Request(message.length, version, type, read.getInt());
                if (answer) {
                    DataOutputStream out = new DataOutputStream(peer.getOutputStream());
                    byte[] reply = ByteBuffer.allocate(300)
                            .putShort((short) version)
                            .putShort((short) 0)
                            .putShort((short) SlurmdStatusRequest.RESPONSE_SLURMD_STATUS)
                            .array();
                    out.writeInt(reply.length);
                    out.write(reply);
                    out.flush();
                    // slurmd closes once its reply is sent; the prober must have read it all by then.
                }
                return request;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void aSlurmdThatAnswersIsReachable() throws Exception {
        try (ServerSocket slurmd = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Request> served = serveOne(slurmd, true);
            SlurmdStatusProber prober = new SlurmdStatusProber(TIMEOUT, V2205, FAKE_MUNGE, unused -> {
                throw new AssertionError("the fallback is not asked while credentials are made");
            });
            assertEquals(Optional.empty(), prober.unreachable(node(slurmd.getLocalPort())));
            assertFalse(prober.refused(node(slurmd.getLocalPort())));
            Request request = served.get(5, TimeUnit.SECONDS);
            assertEquals(V2205, request.version());
            assertEquals(SlurmdStatusRequest.REQUEST_DAEMON_STATUS, request.type());
            assertEquals(101, request.authPlugin());
        }
    }

    @Test
    void aSlurmdThatClosesUnansweredStillRuns() throws Exception {
        try (ServerSocket slurmd = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Request> served = serveOne(slurmd, false);
            SlurmdStatusProber prober = new SlurmdStatusProber(TIMEOUT, V2205, FAKE_MUNGE, unused -> Optional.empty());
            assertEquals(Optional.empty(), prober.unreachable(node(slurmd.getLocalPort())));
            assertEquals(
                    SlurmdStatusRequest.REQUEST_DAEMON_STATUS,
                    served.get(5, TimeUnit.SECONDS).type());
        }
    }

    @Test
    void aSilentSlurmdCountsAsTheBareConnectCountedIt() throws Exception {
        try (ServerSocket slurmd = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // Never accepted by the stand-in: the kernel completes the handshake, nothing reads.
            SlurmdStatusProber prober = new SlurmdStatusProber(TIMEOUT, V2205, FAKE_MUNGE, unused -> Optional.empty());
            assertEquals(Optional.empty(), prober.unreachable(node(slurmd.getLocalPort())));
        }
    }

    @Test
    void aRefusedConnectionIsUnreachableAndRefused() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        SlurmdStatusProber prober = new SlurmdStatusProber(TIMEOUT, V2205, FAKE_MUNGE, unused -> Optional.empty());
        Optional<String> miss = prober.unreachable(node(port));
        assertTrue(miss.orElseThrow().contains("ConnectException"), miss.toString());
        assertTrue(prober.refused(node(port)));
    }

    @Test
    void withoutACredentialTheFallbackJudges() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        AtomicInteger asked = new AtomicInteger();
        TcpNodeProber connect = new TcpNodeProber(TIMEOUT);
        NodeProber counting = new NodeProber() {
            @Override
            public Optional<String> unreachable(Node node) {
                asked.incrementAndGet();
                return connect.unreachable(node);
            }

            @Override
            public boolean refused(Node node) {
                return connect.refused(node);
            }
        };
        MungeEncoder away = payload -> {
            throw new IOException("munged is not running");
        };
        SlurmdStatusProber prober = new SlurmdStatusProber(TIMEOUT, V2205, away, counting);
        assertTrue(prober.unreachable(node(port)).isPresent());
        assertTrue(prober.refused(node(port)), "the fallback's refusal is this prober's");
        assertEquals(1, asked.get());
    }

    @Test
    void theClustersOfBothCapturedReleasesAreAskedQuietly() {
        for (String release : List.of("slurm-22.05", "slurm-24.11")) {
            SlurmConfig config = new ConfigParser().parse(Fixtures.read(release, "show-config.txt"));
            assertEquals(Optional.empty(), SlurmdStatusProber.whyNotQuiet(Optional.of(config)), release);
            assertTrue(SlurmdStatusProber.forCluster(Optional.of(config), TIMEOUT) instanceof SlurmdStatusProber);
        }
    }

    @Test
    void otherClustersAreProbedWithABareConnect() {
        SlurmConfig base = new ConfigParser().parse(Fixtures.read("slurm-24.11", "show-config.txt"));
        for (var change : List.of(
                java.util.Map.of("TLSType", "tls/s2n"),
                java.util.Map.of("AuthType", "auth/slurm"),
                java.util.Map.of("SLURM_VERSION", "21.08.8"))) {
            java.util.Map<String, String> values = new java.util.LinkedHashMap<>(base.values());
            values.putAll(change);
            Optional<SlurmConfig> config = Optional.of(new SlurmConfig(values));
            assertTrue(SlurmdStatusProber.whyNotQuiet(config).isPresent(), change.toString());
            assertTrue(SlurmdStatusProber.forCluster(config, TIMEOUT) instanceof TcpNodeProber, change.toString());
        }
        assertTrue(SlurmdStatusProber.forCluster(Optional.empty(), TIMEOUT) instanceof TcpNodeProber);
    }

    @Test
    void mungedsSocketIsReadAsSlurmReadsAuthInfo() {
        assertEquals(Optional.of("/run/m.sock"), SlurmdStatusProber.mungeSocket("socket=/run/m.sock"));
        assertEquals(Optional.of("/run/m.sock"), SlurmdStatusProber.mungeSocket("ttl=60,socket=/run/m.sock"));
        assertEquals(Optional.of("/run/m.sock"), SlurmdStatusProber.mungeSocket("/run/m.sock"));
        assertEquals(Optional.empty(), SlurmdStatusProber.mungeSocket("ttl=60"));
    }
}
