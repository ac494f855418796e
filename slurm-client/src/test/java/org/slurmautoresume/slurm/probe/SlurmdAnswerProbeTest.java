package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;

/** Against loopback stand-ins: a slurmd that closes on the length it refuses, a stopped one, none. */
class SlurmdAnswerProbeTest {

    private static final SlurmdAnswerProbe PROBE = new SlurmdAnswerProbe(Duration.ofMillis(300));

    @Test
    void aRunningSlurmdClosesOnTheLengthItRefuses() throws IOException {
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(20000, true)) {
            assertEquals(SlurmdAnswerProbe.Answer.ANSWERS, PROBE.ask(slurmd.node()));
            assertEquals(1, slurmd.lengthsRead(), "the probe sent the length prefix");
        }
    }

    @Test
    void aStoppedSlurmdWhoseKernelStillAcceptsIsSilent() throws IOException {
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(20000, false)) {
            long start = System.nanoTime();
            assertEquals(SlurmdAnswerProbe.Answer.SILENT, PROBE.ask(slurmd.node()));
            assertEquals(true, System.nanoTime() - start < Duration.ofSeconds(2).toNanos(), "bounded by the timeout");
        }
    }

    @Test
    void nothingOnSlurmdsPortIsNotAccepted() throws IOException {
        Node node;
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(20000, true)) {
            node = slurmd.node();
        }
        assertEquals(SlurmdAnswerProbe.Answer.NOT_ACCEPTED, PROBE.ask(node));
    }

    @Test
    void aTimeoutMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new SlurmdAnswerProbe(Duration.ZERO));
    }
}
