package org.slurmautoresume.bench;

import java.util.List;
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
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;

/**
 * Parsing `scontrol -o show node` for a large cluster: the sweep and every recovery read it.
 * Target: 10,000 nodes in at most 100 ms. The text is built from real Slurm 22.05
 * records captured on the local cluster, renamed and varied so states, reasons and addresses
 * differ from node to node.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ScontrolParseBenchmark {

    @Param({"10000"})
    public int nodes;

    private String output;
    private final NodeParser parser = new NodeParser();

    @Setup
    public void buildOutput() {
        output = SyntheticCluster.showNodeOutput(nodes);
    }

    @Benchmark
    public List<Node> parseShowNode() {
        return parser.parseAll(output);
    }

    /**
     * Once in a fresh JVM, no warm-up: what one `autoresume nodes` or one sweep pays, JIT
     * compilation and heap growth included.
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @Fork(5)
    public List<Node> parseShowNodeCold() {
        return parser.parseAll(output);
    }
}
