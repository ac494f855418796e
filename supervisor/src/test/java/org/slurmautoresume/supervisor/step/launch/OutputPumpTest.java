package org.slurmautoresume.supervisor.step.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OutputPumpTest {

    @Test
    void copiesArbitraryBytesExactly() {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(data); // NULs, CRs, invalid UTF-8, no final newline
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        new OutputPump(new ByteArrayInputStream(data), copy).run();
        assertArrayEquals(data, copy.toByteArray());
    }

    @Test
    void remembersTheLastLinesIncludingAPartialOne() {
        String text = "one\ntwo\nsrun: error: Node failure on node3\nno newline";
        OutputPump pump = new OutputPump(
                new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream());
        pump.run();
        assertEquals(List.of("one", "two", "srun: error: Node failure on node3", "no newline"), pump.lastLines());
    }

    /** A reader that went away must not make srun block: the pump keeps draining. */
    @Test
    void keepsDrainingWhenTheDestinationFails() {
        byte[] data = "a\nb\nc\n".repeat(100_000).getBytes(StandardCharsets.UTF_8);
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        };
        ByteArrayInputStream in = new ByteArrayInputStream(data);
        new OutputPump(in, broken).run();
        assertEquals(0, in.available());
    }
}
