package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LineSplitterTest {

    private final List<String> lines = new ArrayList<>();
    private final LineSplitter splitter = new LineSplitter(lines::add);

    private void feed(String... chunks) {
        for (String chunk : chunks) {
            byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
            splitter.accept(bytes, 0, bytes.length);
        }
    }

    @Test
    void joinsALineSplitOverManyReads() {
        feed("Train Ep", "och: 1 [0/6", "0000]\nnext\n");
        assertEquals(List.of("Train Epoch: 1 [0/60000]", "next"), lines);
    }

    @Test
    void crlfIsOneTerminatorEvenAcrossReads() {
        feed("a\r\nb\r", "\nc\n");
        assertEquals(List.of("a", "b", "c"), lines);
    }

    @Test
    void aBareCarriageReturnEndsALineAsProgressBarsUseIt() {
        feed(" 10%|#         | 10/100\r 20%|##        | 20/100\r", "\r\n");
        assertEquals(List.of(" 10%|#         | 10/100", " 20%|##        | 20/100", ""), lines);
    }

    @Test
    void emptyLinesAreLines() {
        feed("\n\nx\n");
        assertEquals(List.of("", "", "x"), lines);
    }

    @Test
    void theLastLineWithoutANewlineComesAtTheEnd() {
        feed("first\nno newline");
        assertEquals(List.of("first"), lines);
        splitter.finish();
        assertEquals(List.of("first", "no newline"), lines);
        splitter.finish();
        assertEquals(2, lines.size(), "nothing more to emit");
    }

    @Test
    void aHugeLineIsCutToItsHeadAndTheNextLineIsIntact() {
        byte[] big = new byte[LineSplitter.MAX_LINE * 3 + 5];
        java.util.Arrays.fill(big, (byte) 'x');
        big[0] = 'H';
        for (int off = 0; off < big.length; off += 1000) {
            splitter.accept(big, off, Math.min(1000, big.length - off));
        }
        feed("\nafter\n");
        assertEquals(2, lines.size());
        assertEquals(LineSplitter.MAX_LINE, lines.get(0).length());
        assertTrue(lines.get(0).startsWith("Hxxx"));
        assertEquals("after", lines.get(1));
    }

    @Test
    void invalidUtf8BecomesReplacementCharacters() {
        byte[] bytes = {'l', 'o', 's', 's', (byte) 0xff, (byte) 0xc3, '\n', (byte) 0xe2, (byte) 0x82, (byte) 0xac, '\n'
        };
        splitter.accept(bytes, 0, bytes.length);
        assertEquals(List.of("loss\ufffd\ufffd", "\u20ac"), lines);
    }

    @Test
    void aCharacterSplitBetweenReadsIsDecodedWhole() {
        byte[] euro = "€ ok\n".getBytes(StandardCharsets.UTF_8);
        splitter.accept(euro, 0, 1);
        splitter.accept(euro, 1, euro.length - 1);
        assertEquals(List.of("€ ok"), lines);
    }

    @Test
    void randomChunkingGivesTheSameLinesAsOneRead() {
        Random random = new Random(11);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            text.append("line ").append(i).append(random.nextBoolean() ? "\r\n" : "\n");
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        for (int off = 0; off < bytes.length; ) {
            int len = Math.min(1 + random.nextInt(50), bytes.length - off);
            splitter.accept(bytes, off, len);
            off += len;
        }
        assertEquals(2000, lines.size());
        assertEquals("line 1999", lines.get(1999));
    }
}
