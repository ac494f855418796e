package org.slurmautoresume.slurm.probe;

/**
 * KangarooTwelve (RFC 9861 KT128) for inputs that fit one chunk: the hash Slurm's hash/k12 plugin
 * puts in a message's munge credential, over the message body with the message type as the
 * customization string. Slurm's messages to slurmd that a probe sends are a few bytes, so the
 * tree mode for inputs past 8 KiB is left out. The JDK has no Keccak with 12 rounds.
 */
final class KangarooTwelve {

    /** The most that {@code message || customization || length_encode(|customization|)} may hold here. */
    static final int MAX_SINGLE_CHUNK = 8192;

    private static final int RATE = 168;
    private static final byte K12_DOMAIN = 0x07;

    private static final long[] ROUND_CONSTANTS = {
        0x0000000000000001L, 0x0000000000008082L, 0x800000000000808aL, 0x8000000080008000L,
        0x000000000000808bL, 0x0000000080000001L, 0x8000000080008081L, 0x8000000000008009L,
        0x000000000000008aL, 0x0000000000000088L, 0x0000000080008009L, 0x000000008000000aL,
        0x000000008000808bL, 0x800000000000008bL, 0x8000000000008089L, 0x8000000000008003L,
        0x8000000000008002L, 0x8000000000000080L, 0x000000000000800aL, 0x800000008000000aL,
        0x8000000080008081L, 0x8000000000008080L, 0x0000000080000001L, 0x8000000080008008L
    };
    private static final int[] ROTATIONS = {
        0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14
    };

    private KangarooTwelve() {}

    /** KT128 of {@code message} under {@code customization}, {@code length} bytes of output. */
    static byte[] hash(byte[] message, byte[] customization, int length) {
        byte[] encodedLength = lengthEncode(customization.length);
        int total = message.length + customization.length + encodedLength.length;
        if (total > MAX_SINGLE_CHUNK) {
            throw new IllegalArgumentException("input of " + total + " bytes needs KangarooTwelve's tree mode");
        }
        byte[] input = new byte[total];
        System.arraycopy(message, 0, input, 0, message.length);
        System.arraycopy(customization, 0, input, message.length, customization.length);
        System.arraycopy(encodedLength, 0, input, message.length + customization.length, encodedLength.length);
        return sponge(input, K12_DOMAIN, 12, length);
    }

    /**
     * The Keccak sponge with rate 168 over {@code rounds} rounds (the last ones of Keccak-f[1600]):
     * 12 rounds with domain byte 0x07 is KangarooTwelve's single chunk, 24 with 0x1F is SHAKE128.
     */
    static byte[] sponge(byte[] input, byte domain, int rounds, int length) {
        long[] state = new long[25];
        int offset = 0;
        while (input.length - offset >= RATE) {
            xorBlock(state, input, offset, RATE);
            permute(state, rounds);
            offset += RATE;
        }
        byte[] last = new byte[RATE];
        System.arraycopy(input, offset, last, 0, input.length - offset);
        last[input.length - offset] ^= domain;
        last[RATE - 1] ^= (byte) 0x80;
        xorBlock(state, last, 0, RATE);
        permute(state, rounds);
        byte[] out = new byte[length];
        for (int done = 0; done < length; ) {
            int n = Math.min(RATE, length - done);
            for (int i = 0; i < n; i++) {
                out[done + i] = (byte) (state[i / 8] >>> (8 * (i % 8)));
            }
            done += n;
            if (done < length) {
                permute(state, rounds);
            }
        }
        return out;
    }

    /** RFC 9861's length_encode: the big-endian bytes of {@code x} without leading zeros, then their count. */
    static byte[] lengthEncode(int x) {
        int bytes = 0;
        for (int v = x; v > 0; v >>>= 8) {
            bytes++;
        }
        byte[] out = new byte[bytes + 1];
        for (int i = 0; i < bytes; i++) {
            out[i] = (byte) (x >>> (8 * (bytes - 1 - i)));
        }
        out[bytes] = (byte) bytes;
        return out;
    }

    private static void xorBlock(long[] state, byte[] data, int offset, int length) {
        for (int i = 0; i < length; i++) {
            state[i / 8] ^= (data[offset + i] & 0xFFL) << (8 * (i % 8));
        }
    }

    /** Keccak-p[1600, rounds]: the last {@code rounds} rounds of Keccak-f[1600]. */
    private static void permute(long[] a, int rounds) {
        long[] c = new long[5];
        long[] b = new long[25];
        for (int round = 24 - rounds; round < 24; round++) {
            for (int x = 0; x < 5; x++) {
                c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
            }
            for (int x = 0; x < 5; x++) {
                long d = c[(x + 4) % 5] ^ Long.rotateLeft(c[(x + 1) % 5], 1);
                for (int y = 0; y < 25; y += 5) {
                    a[y + x] ^= d;
                }
            }
            for (int x = 0; x < 5; x++) {
                for (int y = 0; y < 5; y++) {
                    int from = x + 5 * y;
                    b[y + 5 * ((2 * x + 3 * y) % 5)] = Long.rotateLeft(a[from], ROTATIONS[from]);
                }
            }
            for (int y = 0; y < 25; y += 5) {
                for (int x = 0; x < 5; x++) {
                    a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
                }
            }
            a[0] ^= ROUND_CONSTANTS[round];
        }
    }
}
