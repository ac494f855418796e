package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slurmautoresume.slurm.model.SlurmVersion;

class SlurmdStatusRequestTest {

    private static final String CREDENTIAL = "MUNGE:AwQFAAB+test+credential:";

    /** SLURM_xx_yy_PROTOCOL_VERSION as each release's slurm_protocol_common.h defines it. */
    @ParameterizedTest
    @CsvSource({"22.05.8, 9728", "24.11.5, 10752", "26.05.0, 11520"})
    void eachReleaseSpeaksItsOwnProtocolVersion(String release, int version) {
        assertEquals(Optional.of(version), SlurmdStatusRequest.protocolVersion(SlurmVersion.parse(release)));
    }

    @ParameterizedTest
    @CsvSource({"21.08.8", "26.11.0", "17.11.2"})
    void aReleaseWhoseFramingWasNotReadHasNone(String release) {
        assertEquals(Optional.empty(), SlurmdStatusRequest.protocolVersion(SlurmVersion.parse(release)));
    }

    /** The length prefix, header, credential and (empty) body, field by field, per protocol version. */
    @ParameterizedTest
    @CsvSource({"22.05.8", "24.11.5", "26.05.0"})
    void theMessageIsFramedAsSlurmFramesIt(String release) {
        int version =
                SlurmdStatusRequest.protocolVersion(SlurmVersion.parse(release)).orElseThrow();
        ByteBuffer message = ByteBuffer.wrap(SlurmdStatusRequest.message(version, CREDENTIAL));

        assertEquals(message.capacity() - 4, message.getInt(), "length prefix: all that follows it");
        assertEquals(version, Short.toUnsignedInt(message.getShort()), "protocol version");
        assertEquals(0, message.getShort(), "flags");
        assertEquals(5024, Short.toUnsignedInt(message.getShort()), "REQUEST_DAEMON_STATUS");
        assertEquals(0, message.getInt(), "body length");
        assertEquals(0, message.getShort(), "forward count");
        assertEquals(0, message.getShort(), "return count");
        assertEquals(0, message.getShort(), "origin address family AF_UNSPEC, nothing after it");
        assertEquals(101, message.getInt(), "AUTH_PLUGIN_MUNGE");
        assertEquals(CREDENTIAL.length() + 1, message.getInt(), "packstr's length counts the NUL");
        byte[] text = new byte[CREDENTIAL.length()];
        message.get(text);
        assertEquals(CREDENTIAL, new String(text, StandardCharsets.US_ASCII));
        assertEquals(0, message.get(), "the NUL");
        assertEquals(0, message.remaining(), "an empty body");
    }

    /** hash/k12's id, then KangarooTwelve of the empty body customized with the type in network order. */
    @Test
    void theCredentialCarriesTheBodysHash() {
        byte[] payload = SlurmdStatusRequest.credentialPayload();
        assertEquals(33, payload.length);
        assertEquals(2, payload[0], "HASH_PLUGIN_K12");
        byte[] hash = new byte[32];
        System.arraycopy(payload, 1, hash, 0, 32);
        assertArrayEquals(KangarooTwelve.hash(new byte[0], new byte[] {0x13, (byte) 0xA0}, 32), hash);
    }

    @Test
    void aReplysTypeIsReadFromItsHeader() {
        ByteBuffer reply = ByteBuffer.allocate(20)
                .putShort((short) 9728)
                .putShort((short) 0)
                .putShort((short) 5025);
        assertEquals(Optional.of(5025), SlurmdStatusRequest.replyType(reply.array()));
        assertEquals(Optional.empty(), SlurmdStatusRequest.replyType(new byte[3]));
    }
}
