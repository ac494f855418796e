package org.slurmautoresume.slurm.probe;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * The bytes of {@code REQUEST_DAEMON_STATUS}, the message {@code scontrol show slurmd} sends to a
 * slurmd, as Slurm 22.05 to 26.05 frame it (read in their {@code slurm_protocol_pack.c},
 * {@code slurm_protocol_api.c} and {@code auth/munge}): a 4-byte big-endian length, then the header
 * (protocol version, flags 0, message type 5024, body length 0, no forwarding, no returns, no
 * origin address), then the credential (auth plugin id 101, then the munge string packed as a
 * 4-byte length counting its NUL, the characters and the NUL), then the empty body. These parts
 * lay out the same way in every release of that range; only the protocol version differs.
 *
 * <p>The munge credential's payload is the hash slurmd checks against the body: the hash plugin's
 * id (2, hash/k12, which every release of the range loads) and KangarooTwelve over the empty body
 * customized with the message type in network order, as Slurm's own clients send it.
 */
final class SlurmdStatusRequest {

    /** {@code REQUEST_DAEMON_STATUS}: the same number from 22.05 to 26.05. */
    static final int REQUEST_DAEMON_STATUS = 5024;
    /** slurmd's answer to it. */
    static final int RESPONSE_SLURMD_STATUS = 5025;
    /** A plain return code, slurmd's answer to a request it refuses. */
    static final int RESPONSE_SLURM_RC = 8001;

    private static final int AUTH_PLUGIN_MUNGE = 101;
    private static final byte HASH_PLUGIN_K12 = 2;
    /** The most a reply is read of: a status with a long step list is a few KiB. */
    static final int MAX_REPLY = 1 << 20;

    /** Each release's RPC protocol version (SLURM_xx_yy_PROTOCOL_VERSION in slurm_protocol_common.h). */
    private static final Map<String, Integer> PROTOCOL_VERSIONS = Map.of(
            "22.05", 38 << 8,
            "23.02", 39 << 8,
            "23.11", 40 << 8,
            "24.05", 41 << 8,
            "24.11", 42 << 8,
            "25.05", 43 << 8,
            "25.11", 44 << 8,
            "26.05", 45 << 8);

    private SlurmdStatusRequest() {}

    /** The protocol version a client of {@code release} speaks; empty for a release whose framing was not read. */
    static Optional<Integer> protocolVersion(SlurmVersion release) {
        return Optional.ofNullable(PROTOCOL_VERSIONS.get(String.format("%02d.%02d", release.major(), release.minor())));
    }

    /** What the munge credential carries: hash/k12's id and its hash of the (empty) body. */
    static byte[] credentialPayload() {
        byte[] type = {(byte) (REQUEST_DAEMON_STATUS >>> 8), (byte) REQUEST_DAEMON_STATUS};
        byte[] hash = KangarooTwelve.hash(new byte[0], type, 32);
        byte[] payload = new byte[1 + hash.length];
        payload[0] = HASH_PLUGIN_K12;
        System.arraycopy(hash, 0, payload, 1, hash.length);
        return payload;
    }

    /** The whole message, its length prefix first, carrying {@code credential} (munge's text). */
    static byte[] message(int protocolVersion, String credential) {
        byte[] cred = credential.getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + cred.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(0); // the length prefix, set below
            out.writeShort(protocolVersion);
            out.writeShort(0); // flags
            out.writeShort(REQUEST_DAEMON_STATUS);
            out.writeInt(0); // body length
            out.writeShort(0); // forward count
            out.writeShort(0); // return count
            out.writeShort(0); // origin address: family AF_UNSPEC, nothing follows
            out.writeInt(AUTH_PLUGIN_MUNGE);
            out.writeInt(cred.length + 1);
            out.write(cred);
            out.writeByte(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] message = bytes.toByteArray();
        ByteBuffer.wrap(message).putInt(0, message.length - 4);
        return message;
    }

    /**
     * The message type of a reply's header (the reply without its length prefix); empty when the
     * reply is too short to hold one.
     */
    static Optional<Integer> replyType(byte[] reply) {
        if (reply.length < 6) {
            return Optional.empty();
        }
        return Optional.of(((reply[4] & 0xFF) << 8) | (reply[5] & 0xFF));
    }
}
