package org.slurmautoresume.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * Expanding and compressing 100,000-host lists, the size of the largest clusters the toolkit
 * targets. Run with {@code java -jar benchmarks/target/benchmarks.jar Hostlist}.
 *
 * <p>Shapes: {@code contiguous} is one run of zero-padded numbers; {@code fragmented} has holes
 * (about one host in ten missing) across four prefixes, in order, as Slurm prints node lists;
 * {@code shuffled} is the same hosts in random order, the worst case for the sort.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HostlistBenchmark {

    private static final int HOSTS = 100_000;
    private static final String[] PREFIXES = {"gpu-a", "gpu-b", "cpu-", "mem"};

    @Param({"contiguous", "fragmented", "shuffled"})
    public String shape;

    private String expression;
    private List<String> hosts;

    @Setup
    public void prepare() {
        switch (shape) {
            case "contiguous" -> {
                // Slurm refuses a single range of more than 65536 hosts, hence two ranges.
                expression = "gpu-[000001-050000,050001-100000]";
                hosts = Hostlist.expand(expression);
            }
            case "fragmented" -> {
                hosts = fragmented(new Random(42));
                expression = Hostlist.compress(hosts);
            }
            case "shuffled" -> {
                hosts = fragmented(new Random(42));
                Collections.shuffle(hosts, new Random(7));
                expression = Hostlist.compress(hosts);
            }
            default -> throw new IllegalArgumentException("unknown shape " + shape);
        }
        if (hosts.size() != HOSTS || Hostlist.count(expression) != HOSTS) {
            throw new IllegalStateException("expected " + HOSTS + " hosts for " + shape);
        }
    }

    private static List<String> fragmented(Random random) {
        List<String> hosts = new ArrayList<>(HOSTS);
        int perPrefix = HOSTS / PREFIXES.length;
        for (String prefix : PREFIXES) {
            int number = 0;
            for (int n = 0; n < perPrefix; n++) {
                do {
                    number++;
                } while (random.nextInt(10) == 0);
                hosts.add(String.format("%s%06d", prefix, number));
            }
        }
        return hosts;
    }

    @Benchmark
    public List<String> expand() {
        return Hostlist.expand(expression);
    }

    @Benchmark
    public String compress() {
        return Hostlist.compress(hosts);
    }

    @Benchmark
    public String compressSorted() {
        return Hostlist.compressSorted(hosts);
    }
}
