package org.slurmautoresume.bench;

import java.time.LocalDateTime;
import java.util.ArrayList;
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
import org.slurmautoresume.nodeops.sweep.SweepPlan;
import org.slurmautoresume.nodeops.sweep.SweepPlanner;
import org.slurmautoresume.nodeops.sweep.SweepPolicy;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.NodeParser;

/**
 * One sweep decision for a large cluster: parse `scontrol -o show node` and `scontrol -o show
 * job`, then plan. Target: 10,000 nodes in at most 1 s. The node text mixes the stuck
 * states the sweep looks for (see {@link SyntheticCluster#sweepNodeOutput}); the job text holds
 * running jobs over the nodes, COMPLETING jobs and expansion donor jobs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SweepBenchmark {

    /** Hours after the capture, so every age-based rule is past its limit. */
    private static final LocalDateTime NOW = LocalDateTime.parse("2026-11-22T12:00:00");

    @Param({"10000"})
    public int nodes;

    private String nodeText;
    private String jobText;
    private final NodeParser nodeParser = new NodeParser();
    private final JobParser jobParser = new JobParser();
    private final SweepPlanner planner = new SweepPlanner(SweepPolicy.DEFAULTS);

    @Setup
    public void buildOutput() {
        nodeText = SyntheticCluster.sweepNodeOutput(nodes);
        jobText = SyntheticCluster.showJobOutput(nodes);
    }

    /** Text in, plan out: what `autoresume sweep` does between reading scontrol and acting. */
    @Benchmark
    public SweepPlan parseAndPlan() {
        List<Node> parsedNodes = nodeParser.parseAll(nodeText);
        List<Job> parsedJobs = jobParser.parseAll(jobText);
        return planner.plan(parsedNodes, parsedJobs, NOW);
    }

    /** Once in a fresh JVM, no warm-up: what one sweep run from a timer pays. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @Fork(5)
    public SweepPlan parseAndPlanCold() {
        return parseAndPlan();
    }

    /** Sanity: how many actions the synthetic cluster yields (printed by main, not measured). */
    public static void main(String[] args) {
        SweepBenchmark b = new SweepBenchmark();
        b.nodes = 10_000;
        b.buildOutput();
        long start = System.nanoTime();
        SweepPlan plan = b.parseAndPlan();
        List<String> kinds = new ArrayList<>();
        plan.actions().forEach(a -> kinds.add(a.kind().word()));
        System.out.println("actions " + plan.actions().size() + ", held back "
                + plan.heldBack().size() + ", findings " + plan.findings().size() + " in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
    }
}
