package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KangarooTwelveTest {

    private static final HexFormat HEX = HexFormat.of();

    /** The permutation and sponge checked at 24 rounds against SHAKE128's (Python's hashlib.shake_128). */
    @Test
    void twentyFourRoundsAreShake128() {
        assertArrayEquals(
                HEX.parseHex("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"),
                KangarooTwelve.sponge(new byte[0], (byte) 0x1F, 24, 32));
        byte[] twoBlocks = new byte[200];
        for (int i = 0; i < twoBlocks.length; i++) {
            twoBlocks[i] = (byte) i;
        }
        assertArrayEquals(
                HEX.parseHex("0c4234ca1e31801ae606f8b8d8e0665c66f42a21d601c2681858a92c79ad5d69"),
                KangarooTwelve.sponge(twoBlocks, (byte) 0x1F, 24, 32));
    }

    /** RFC 9861's first KT128 test vectors. */
    @Test
    void rfcVectors() {
        assertArrayEquals(
                HEX.parseHex("1ac2d450fc3b4205d19da7bfca1b37513c0803577ac7167f06fe2ce1f0ef39e5"),
                KangarooTwelve.hash(new byte[0], new byte[0], 32));
        assertArrayEquals(
                HEX.parseHex("2bda92450e8b147f8a7cb629e784a058efca7cf7d8218e02d345dfaa65244a1f"),
                KangarooTwelve.hash(new byte[] {0}, new byte[0], 32));
    }

    @Test
    void lengthEncodeDropsLeadingZeros() {
        assertArrayEquals(new byte[] {0}, KangarooTwelve.lengthEncode(0));
        assertArrayEquals(new byte[] {2, 1}, KangarooTwelve.lengthEncode(2));
        assertArrayEquals(new byte[] {0x01, 0x00, 2}, KangarooTwelve.lengthEncode(256));
    }

    @Test
    void refusesInputPastOneChunk() {
        assertThrows(
                IllegalArgumentException.class,
                () -> KangarooTwelve.hash(new byte[KangarooTwelve.MAX_SINGLE_CHUNK], new byte[0], 32));
    }
}
