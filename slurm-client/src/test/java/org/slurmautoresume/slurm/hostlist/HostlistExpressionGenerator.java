package org.slurmautoresume.slurm.hostlist;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random, valid hostlist expressions for comparing {@link Hostlist} with a real {@code scontrol}.
 *
 * <p>Seeded, so a failing expression can be reproduced from the seed and its index. The mix
 * covers what Slurm handles in distinct code paths: plain names with and without digits, zero
 * padding (consistent, mixed, and written only on the low end as in {@code [001-10]}), ranges
 * crossing a power of ten, several bracket groups per term, prefixes ending in digits, empty
 * prefixes, unsorted terms and shuffled names, duplicates and overlaps (which {@code hostlistsorted} treats
 * specially), and the three separators. Each expression stays under {@link #MAX_HOSTS} hosts so
 * that the joined host names fit in one command-line argument.
 */
public final class HostlistExpressionGenerator {

    /** Upper bound on the hosts of one generated expression. */
    public static final int MAX_HOSTS = 3000;

    private static final String[] PREFIXES = {
        "n",
        "node",
        "gpu-",
        "rack",
        "cn",
        "a",
        "b",
        "login",
        "dgx-a100-",
        "compute_",
        "x.y-",
        "r1n",
        "nid0",
        "c10-",
        "N",
        "",
        "s2r",
        "io",
        "node-0",
    };
    private static final String[] PLAIN_NAMES = {
        "login", "head", "mgmt-a", "storage.local", "nfs_server", "gw", "n", "node", "rack-b",
    };
    private static final int[] WIDTHS = {1, 1, 1, 2, 2, 3, 3, 4, 5, 6};

    private final Random random;

    public HostlistExpressionGenerator(long seed) {
        this.random = new Random(seed);
    }

    /** {@code count} expressions, each valid and under {@link #MAX_HOSTS} hosts. */
    public List<String> generate(int count) {
        List<String> expressions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            expressions.add(next());
        }
        return expressions;
    }

    /** One expression. */
    public String next() {
        while (true) {
            String expression = candidate();
            if (Hostlist.count(expression) <= MAX_HOSTS) {
                return expression;
            }
        }
    }

    private String candidate() {
        int terms = 1 + random.nextInt(random.nextInt(4) == 0 ? 12 : 4);
        List<String> parts = new ArrayList<>(terms);
        for (int t = 0; t < terms; t++) {
            // Repeating an earlier term produces exact duplicates, which Slurm keeps.
            if (!parts.isEmpty() && random.nextInt(10) == 0) {
                parts.add(parts.get(random.nextInt(parts.size())));
            } else {
                parts.add(term());
            }
        }
        StringBuilder sb = new StringBuilder();
        if (random.nextInt(20) == 0) {
            sb.append(',');
        }
        for (int t = 0; t < parts.size(); t++) {
            if (t > 0) {
                sb.append(separator());
            }
            sb.append(parts.get(t));
        }
        if (random.nextInt(20) == 0) {
            sb.append(", ");
        }
        return sb.toString();
    }

    private String separator() {
        int r = random.nextInt(20);
        return r == 0 ? " " : r == 1 ? "\t" : r == 2 ? ",," : ",";
    }

    private String term() {
        int kind = random.nextInt(11);
        if (kind == 0) {
            return PLAIN_NAMES[random.nextInt(PLAIN_NAMES.length)];
        }
        if (kind == 10) {
            return shuffledNames();
        }
        if (kind <= 2) {
            return pick(PREFIXES) + number(width(), (long) random.nextInt(3000));
        }
        if (kind <= 7) {
            return pick(PREFIXES) + group(1 + random.nextInt(5), 400);
        }
        StringBuilder sb = new StringBuilder(pick(PREFIXES));
        int groups = 2 + random.nextInt(random.nextInt(3) == 0 ? 3 : 1);
        for (int g = 0; g < groups; g++) {
            if (g > 0) {
                sb.append(pick(new String[] {"-", "b", "s", "-gpu", "", "p", ".r"}));
            }
            sb.append(group(1 + random.nextInt(3), 6));
        }
        return sb.toString();
    }

    /**
     * Names of one prefix in random order with mixed padding, as a user might paste them: the
     * case where Slurm's sort, with its width adjustments, has the most to do.
     */
    private String shuffledNames() {
        String prefix = pick(PREFIXES);
        int names = 5 + random.nextInt(40);
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < names; n++) {
            if (n > 0) {
                sb.append(',');
            }
            sb.append(prefix).append(number(1 + random.nextInt(3), (long) random.nextInt(120)));
        }
        return sb.toString();
    }

    /** A bracket group of {@code ranges} numbers or ranges, each spanning at most {@code span}. */
    private String group(int ranges, int span) {
        StringBuilder sb = new StringBuilder("[");
        int width = width();
        long next = random.nextInt(random.nextBoolean() ? 20 : 2000);
        for (int r = 0; r < ranges; r++) {
            if (r > 0) {
                sb.append(',');
            }
            // Mostly ascending and disjoint, as Slurm writes them; sometimes not.
            long lo = random.nextInt(8) == 0 ? random.nextInt(30) : next + random.nextInt(6);
            if (random.nextInt(8) == 0) {
                width = width();
            }
            sb.append(number(width, lo));
            if (random.nextInt(3) > 0) {
                long hi = lo + 1 + random.nextInt(span);
                // Slurm pads to the low end's width; write the high end padded or not.
                sb.append('-').append(random.nextBoolean() ? number(width, hi) : Long.toString(hi));
                next = hi + 1;
            } else {
                next = lo + 1;
            }
        }
        return sb.append(']').toString();
    }

    private int width() {
        return WIDTHS[random.nextInt(WIDTHS.length)];
    }

    private static String number(int width, long value) {
        String digits = Long.toString(value);
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    private String pick(String[] choices) {
        return choices[random.nextInt(choices.length)];
    }
}
