package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.step.launch.OutputPump;

/** Watching the output with rules must leave every byte the user sees exactly as it was. */
class ObservedPumpTest {

    /** Hands out the data in reads of random size, as a pipe does. */
    private static InputStream trickle(byte[] data, long seed) {
        Random random = new Random(seed);
        return new InputStream() {
            private int position;

            @Override
            public int read() {
                return position < data.length ? data[position++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (position >= data.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, 1 + random.nextInt(700)), data.length - position);
                System.arraycopy(data, position, b, off, n);
                position += n;
                return n;
            }
        };
    }

    private static byte[] mixedOutput() {
        Random random = new Random(3);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 3000; i++) {
            switch (random.nextInt(4)) {
                case 0 ->
                    out.writeBytes(("[Epoch 0 Batch " + i + "] {'training_loss_step': " + random.nextDouble()
                                    + ", 'samples/sec': " + random.nextInt(200) + "}\n")
                            .getBytes(StandardCharsets.UTF_8));
                case 1 -> out.writeBytes(("progress " + i + "%\r").getBytes(StandardCharsets.UTF_8));
                case 2 -> {
                    byte[] noise = new byte[random.nextInt(300)];
                    random.nextBytes(noise); // NULs, lone CRs, invalid UTF-8
                    out.writeBytes(noise);
                }
                default -> out.writeBytes("Grüße ✓ no newline yet ".getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    private static byte[] pump(byte[] data, OutputObserver observer) {
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        new OutputPump(trickle(data, 9), copy, OutputObserver.Stream.STDOUT, observer).run();
        return copy.toByteArray();
    }

    @Test
    void outputWithRulesIsByteIdenticalToOutputWithout() {
        byte[] data = mixedOutput();
        List<RuleViolation> violations = new ArrayList<>();
        RuleMonitor monitor = new RuleMonitor(
                List.of(
                        LogRule.builder("loss", ".*'training_loss_step': (\\d+(\\.\\d+)?).*")
                                .metric(MetricOperator.GT, 0.99)
                                .build(),
                        LogRule.builder("hb", ".*Epoch 0 Batch.*")
                                .expectedRecurringFrequencyInSeconds(60)
                                .build()),
                new FakeClock(),
                violations::add);
        byte[] plain = pump(data, null);
        byte[] watched = pump(data, new RuleOutputObserver(monitor));
        assertArrayEquals(data, plain);
        assertArrayEquals(plain, watched);
        assertEquals(RuleState.HEALTHY, monitor.states().get("hb"), "the rules did see the lines");
    }

    @Test
    void anObserverThatThrowsCostsTheUserNothing() {
        byte[] data = mixedOutput();
        int[] calls = {0};
        byte[] watched = pump(data, (which, buf, off, len) -> {
            calls[0]++;
            throw new IllegalStateException("observer bug");
        });
        assertArrayEquals(data, watched);
        assertEquals(1, calls[0], "a broken observer is dropped after its first failure");
    }

    @Test
    void theObserverSeesTheLastLineWhenTheStreamEnds() {
        List<String> seen = new ArrayList<>();
        LineSplitter splitter = new LineSplitter(seen::add);
        OutputObserver observer = new OutputObserver() {
            @Override
            public void onBytes(Stream which, byte[] buf, int off, int len) {
                splitter.accept(buf, off, len);
            }

            @Override
            public void onEnd(Stream which) {
                splitter.finish();
            }
        };
        pump("a\nb\nlast words".getBytes(StandardCharsets.UTF_8), observer);
        assertEquals(List.of("a", "b", "last words"), seen);
        assertTrue(seen.contains("last words"));
    }
}
