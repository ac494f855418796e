package org.slurmautoresume.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.slurmautoresume.supervisor.rules.LogRule;
import org.slurmautoresume.supervisor.rules.MetricOperator;
import org.slurmautoresume.supervisor.rules.OutputObserver;
import org.slurmautoresume.supervisor.rules.RuleMonitor;
import org.slurmautoresume.supervisor.rules.RuleOutputObserver;
import org.slurmautoresume.supervisor.step.launch.OutputPump;

/**
 * The cost of watching a step's output with log rules: the supervisor's own pump copying
 * {@link #MEGABYTES} MB of a training log to a discarding stream, once plain and once with five
 * rules watching (the ones in examples/config/job-log-rules.yaml). One operation is the whole
 * log, so MB/s = operations per second x {@link #MEGABYTES}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LogRulesBenchmark {

    static final int MEGABYTES = 16;

    /** The time never moves: no rule may end in a violation and stop looking at lines. */
    private static final InstantSource FROZEN = InstantSource.fixed(Instant.parse("2026-11-23T10:00:00Z"));

    static final List<LogRule> FIVE_RULES = List.of(
            LogRule.builder("JobStart", ".*Experiment configuration.*")
                    .expectedStartCutOffInSeconds(120)
                    .build(),
            LogRule.builder(
                            "JobHangingDetection",
                            ".*\\[Epoch \\d+ Batch \\d+\\].*'training_loss_step': (\\d+(\\.\\d+)?).*")
                    .stopPattern(".*Training finished.*")
                    .expectedStartCutOffInSeconds(600)
                    .expectedRecurringFrequencyInSeconds(300)
                    .build(),
            LogRule.builder("CheckpointsKeepComing", ".*checkpoint step \\d+ complete.*")
                    .expectedStartCutOffInSeconds(1800)
                    .expectedRecurringFrequencyInSeconds(1800)
                    .build(),
            LogRule.builder(
                            "LowThroughputDetection",
                            ".*\\[Epoch \\d+ Batch \\d+\\].*'samples/sec': (\\d+(\\.\\d+)?).*")
                    .metric(MetricOperator.LTEQ, 80)
                    .metricEvaluationDataPoints(25)
                    .build(),
            LogRule.builder("LossSpikeDetection", ".*'training_loss_step': (\\d+(\\.\\d+)?).*")
                    .metric(MetricOperator.GT, 20.0)
                    .metricEvaluationDataPoints(5)
                    .build());

    private byte[] log;

    @Setup
    public void setUp() {
        log = trainingLog(MEGABYTES * 1024 * 1024, new Random(42));
    }

    /**
     * Lines as a PyTorch job on 8 ranks prints them: per-batch metrics (about half the bytes),
     * logging chatter, NCCL info, warnings, a progress bar redrawn with CR, now and then a
     * checkpoint line. Metrics stay healthy so every rule keeps evaluating.
     */
    static byte[] trainingLog(int size, Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(size + 1024);
        out.writeBytes("2026-11-23 10:00:00,001 [INFO] train: Experiment configuration: {'lr': 0.0003, 'batch': 512}\n"
                .getBytes(StandardCharsets.UTF_8));
        int batch = 0;
        while (out.size() < size) {
            int rank = random.nextInt(8);
            String line = switch (random.nextInt(10)) {
                case 0, 1, 2, 3, 4 ->
                    String.format(
                            Locale.ROOT,
                            "[default%d]:2026-11-23 10:%02d:%02d,%03d [INFO] __main__: [Epoch 0 Batch %d]"
                                    + " {'training_loss_step': %.4f, 'samples/sec': %.2f, 'lr': 0.0003, 'grad_norm': %.3f}",
                            rank,
                            random.nextInt(60),
                            random.nextInt(60),
                            random.nextInt(1000),
                            batch++,
                            1.5 + random.nextDouble(),
                            90 + random.nextDouble() * 40,
                            random.nextDouble());
                case 5 ->
                    String.format(
                            Locale.ROOT,
                            "[default%d]:2026-11-23 10:%02d:%02d,%03d [INFO] data: prefetched shard %d of"
                                    + " /fsx/datasets/c4/en/train-%05d-of-01024.json.gz",
                            rank,
                            random.nextInt(60),
                            random.nextInt(60),
                            random.nextInt(1000),
                            random.nextInt(1024),
                            random.nextInt(1024));
                case 6 ->
                    String.format(
                            Locale.ROOT,
                            "gpu-st-p5-%d:%d:%d [%d] NCCL INFO Channel %02d/32 : %d[%d] -> %d[%d] via P2P/IPC/read",
                            random.nextInt(16),
                            4000 + rank,
                            4100 + rank,
                            rank,
                            random.nextInt(32),
                            rank,
                            rank,
                            (rank + 1) % 8,
                            (rank + 1) % 8);
                case 7 ->
                    String.format(
                            Locale.ROOT,
                            "[default%d]:/opt/conda/lib/python3.10/site-packages/torch/utils/checkpoint.py:%d:"
                                    + " UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly",
                            rank,
                            400 + random.nextInt(100));
                case 8 ->
                    String.format(
                            Locale.ROOT,
                            " %d%%|%s| %d/1000 [00:%02d<01:00, %.2fit/s]\r",
                            batch % 100,
                            "#".repeat(batch % 10),
                            batch % 1000,
                            random.nextInt(60),
                            10 + random.nextDouble());
                default ->
                    batch % 50 == 0
                            ? "2026-11-23 10:20:00,000 [INFO] ckpt: checkpoint step " + batch
                                    + " complete, all shards written"
                            : String.format(
                                    Locale.ROOT,
                                    "[default%d]:2026-11-23 10:%02d:%02d,%03d [DEBUG] timers: fwd %.1f ms bwd %.1f ms"
                                            + " optim %.1f ms",
                                    rank,
                                    random.nextInt(60),
                                    random.nextInt(60),
                                    random.nextInt(1000),
                                    random.nextDouble() * 100,
                                    random.nextDouble() * 200,
                                    random.nextDouble() * 10);
            };
            out.writeBytes(line.getBytes(StandardCharsets.UTF_8));
            if (!line.endsWith("\r")) {
                out.write('\n');
            }
        }
        return out.toByteArray();
    }

    @Benchmark
    public void passthrough() {
        new OutputPump(new ByteArrayInputStream(log), OutputStream.nullOutputStream()).run();
    }

    @Benchmark
    public RuleMonitor fiveRules() {
        RuleMonitor monitor = new RuleMonitor(FIVE_RULES, FROZEN, violation -> {
            throw new IllegalStateException("the benchmark log must not violate a rule: " + violation.describe());
        });
        new OutputPump(
                        new ByteArrayInputStream(log),
                        OutputStream.nullOutputStream(),
                        OutputObserver.Stream.STDOUT,
                        new RuleOutputObserver(monitor))
                .run();
        return monitor;
    }
}
