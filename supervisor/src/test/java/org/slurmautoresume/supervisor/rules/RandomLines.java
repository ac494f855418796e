package org.slurmautoresume.supervisor.rules;

import java.util.Random;

/** Short random lines over a small alphabet: dense in near-misses for pattern property tests. */
final class RandomLines {

    private RandomLines() {}

    static String next(Random random, String alphabet, int maxLength) {
        StringBuilder line = new StringBuilder();
        int length = random.nextInt(maxLength);
        for (int k = 0; k < length; k++) {
            line.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return line.toString();
    }
}
