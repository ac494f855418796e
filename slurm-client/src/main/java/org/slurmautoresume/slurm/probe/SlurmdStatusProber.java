package org.slurmautoresume.slurm.probe;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * Whether the node's slurmd runs, asked as {@code scontrol show slurmd} asks it: a munge-signed
 * {@code REQUEST_DAEMON_STATUS} in the cluster's own protocol ({@link SlurmdStatusRequest}), its
 * reply read to the end before the connection is closed. slurmd serves that request to any user
 * (no uid check in its {@code _rpc_daemon_status}, 22.05 to 26.05) and logs it at debug2 only, so
 * a probe every second leaves nothing in a log kept at the usual levels; a bare connect, as
 * {@link TcpNodeProber} makes, costs two error lines each (counted on 22.05.8: 100 bare connects
 * left 200 error lines in slurmd's log, 1,000 status requests none; 24.11.5 alike;
 * docs/slurm-behaviour.md). The
 * request costs about 2 ms where the connect costs 0.4 (slurmd checks the credential with munged
 * and signs its reply), docs/benchmarks.md. A dead node or a dead slurmd is found as by the bare connect: refused
 * ({@link #refused}) or not accepted within the timeout. A connection accepted and then left
 * unanswered counts as reachable, as the bare connect counted it: a slurmd slow under load is no
 * fault, and a stopped one is {@link SlurmdAnswerProbe}'s to find.
 *
 * <p>Where no credential can be made (munged down on this host, no libmunge) each probe is asked
 * of {@code fallback} instead, said once.
 */
public final class SlurmdStatusProber implements NodeProber {

    private static final Logger LOG = LoggerFactory.getLogger(SlurmdStatusProber.class);
    private static final byte[] PAYLOAD = SlurmdStatusRequest.credentialPayload();

    private final Duration timeout;
    private final int protocolVersion;
    private final MungeEncoder munge;
    private final NodeProber fallback;
    private final Set<String> refused = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean warnedNoCredential = new AtomicBoolean();
    private final AtomicBoolean warnedUnanswered = new AtomicBoolean();

    public SlurmdStatusProber(Duration timeout, int protocolVersion, MungeEncoder munge, NodeProber fallback) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
        this.protocolVersion = protocolVersion;
        this.munge = munge;
        this.fallback = fallback;
    }

    /**
     * The quiet probe where the cluster's configuration allows it: munge authentication, no TLS,
     * and a release whose framing is known ({@link SlurmdStatusRequest#protocolVersion}); else a
     * bare connect ({@link TcpNodeProber}), as everywhere before, and why is logged once.
     */
    public static NodeProber forCluster(Optional<SlurmConfig> config, Duration timeout) {
        TcpNodeProber connect = new TcpNodeProber(timeout);
        Optional<String> whyNot = whyNotQuiet(config);
        if (whyNot.isPresent()) {
            LOG.info("slurmd is probed with a bare TCP connect, which slurmd logs as an error: {}", whyNot.get());
            return connect;
        }
        SlurmConfig c = config.orElseThrow();
        int version = release(c).flatMap(SlurmdStatusRequest::protocolVersion).orElseThrow();
        return new SlurmdStatusProber(
                timeout,
                version,
                MungeEncoder.libmunge(c.get("AuthInfo").flatMap(SlurmdStatusProber::mungeSocket)),
                connect);
    }

    /** Why the cluster's slurmd cannot be asked for its status; empty when it can. */
    static Optional<String> whyNotQuiet(Optional<SlurmConfig> config) {
        if (config.isEmpty()) {
            return Optional.of("the cluster's configuration could not be read");
        }
        SlurmConfig c = config.get();
        String auth = c.get("AuthType").orElse("auth/munge");
        if (!auth.strip().equals("auth/munge")) {
            return Optional.of("AuthType is " + auth + ", not auth/munge");
        }
        Optional<String> tls = c.get("TLSType").map(String::strip);
        if (tls.isPresent() && !tls.get().equals("tls/none")) {
            return Optional.of("TLSType is " + tls.get());
        }
        Optional<SlurmVersion> release = release(c);
        if (release.isEmpty()) {
            return Optional.of("the cluster's release (SLURM_VERSION) is unknown");
        }
        if (SlurmdStatusRequest.protocolVersion(release.get()).isEmpty()) {
            return Optional.of("Slurm " + release.get() + "'s message framing is not known to this version");
        }
        return Optional.empty();
    }

    private static Optional<SlurmVersion> release(SlurmConfig config) {
        try {
            return config.get("SLURM_VERSION").map(v -> SlurmVersion.parse(v.strip()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * munged's socket as Slurm reads it from AuthInfo: {@code socket=PATH} among comma-separated
     * options, or (the older form) the whole value when it names no option.
     */
    static Optional<String> mungeSocket(String authInfo) {
        for (String part : authInfo.split(",")) {
            String option = part.strip();
            if (option.toLowerCase(Locale.ROOT).startsWith("socket=")) {
                String path = option.substring("socket=".length()).strip();
                return path.isEmpty() ? Optional.empty() : Optional.of(path);
            }
        }
        String whole = authInfo.strip();
        return whole.isEmpty() || whole.contains("=") ? Optional.empty() : Optional.of(whole);
    }

    @Override
    public Optional<String> unreachable(Node node) {
        String host = SlurmdAnswerProbe.host(node);
        int port = node.port().orElse(TcpNodeProber.DEFAULT_SLURMD_PORT);
        byte[] request;
        try {
            request = SlurmdStatusRequest.message(protocolVersion, munge.encode(PAYLOAD));
        } catch (IOException | RuntimeException e) {
            if (warnedNoCredential.compareAndSet(false, true)) {
                LOG.warn(
                        "No munge credential for slurmd's status request ({}): slurmd is probed with a bare TCP"
                                + " connect, which slurmd logs as an error, until one can be made",
                        e.getMessage());
            }
            Optional<String> answer = fallback.unreachable(node);
            if (fallback.refused(node)) {
                refused.add(node.name());
            } else {
                refused.remove(node.name());
            }
            return answer;
        }
        long start = System.nanoTime();
        int millis = Math.toIntExact(timeout.toMillis());
        try (Socket socket = new Socket()) {
            Optional<String> notAccepted = TcpNodeProber.connect(socket, node, timeout, refused);
            if (notAccepted.isPresent()) {
                return notAccepted;
            }
            socket.setSoTimeout(Math.max(1, millis - (int) ((System.nanoTime() - start) / 1_000_000)));
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            if (readReply(socket.getInputStream()).isEmpty() && warnedUnanswered.compareAndSet(false, true)) {
                LOG.warn(
                        "slurmd at {}:{} closed a status request unanswered: it runs, but refused the request"
                                + " (its log says why, as an error per probe)",
                        host,
                        port);
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // accepted: slurmd is there, slow to answer or gone mid-answer
        }
    }

    /**
     * slurmd's reply, read to its end so that slurmd's send completes before the close; empty when
     * slurmd closed without one. A reply past {@link SlurmdStatusRequest#MAX_REPLY} is left unread.
     */
    static Optional<Integer> readReply(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int first = data.read();
        if (first < 0) {
            return Optional.empty();
        }
        int length = (first << 24) | (data.readUnsignedByte() << 16) | data.readUnsignedShort();
        if (length < 0 || length > SlurmdStatusRequest.MAX_REPLY) {
            return Optional.of(-1);
        }
        byte[] reply = new byte[length];
        data.readFully(reply);
        return Optional.of(SlurmdStatusRequest.replyType(reply).orElse(-1));
    }

    @Override
    public boolean refused(Node node) {
        return refused.contains(node.name());
    }
}
