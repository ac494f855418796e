package org.slurmautoresume.slurm.hostlist;

/** Host counts that saturate instead of overflowing, so a cap check can never be fooled by wrap-around. */
final class Counting {

    private Counting() {}

    static long multiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return (high != 0 || low < 0) ? Long.MAX_VALUE : low;
    }

    static long add(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
