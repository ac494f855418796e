package org.slurmautoresume.supervisor.rules;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Cuts one stream's bytes into lines for the rules, whatever arrives: a line split over many
 * reads, CRLF, a bare CR (progress bars redraw with it: each redraw is a line), lines longer
 * than {@link #MAX_LINE} bytes (the head is kept, the rest dropped up to the next terminator)
 * and bytes that are not UTF-8 (replaced by U+FFFD, never an exception). One splitter per
 * stream and thread.
 */
public final class LineSplitter {

    /** Enough for any log line worth matching; a 1 GB line without a newline costs 64 KiB. */
    public static final int MAX_LINE = 64 * 1024;

    private final Consumer<String> sink;
    private final byte[] line = new byte[MAX_LINE];
    private int length;
    private boolean overflowed;
    private boolean afterCr;

    public LineSplitter(Consumer<String> sink) {
        this.sink = sink;
    }

    public void accept(byte[] buf, int off, int len) {
        int end = off + len;
        int i = off;
        while (i < end) {
            int start = i;
            while (i < end && buf[i] != '\n' && buf[i] != '\r') {
                i++;
            }
            if (i > start) {
                append(buf, start, i - start);
                afterCr = false;
            }
            if (i == end) {
                return;
            }
            byte terminator = buf[i++];
            if (terminator == '\n' && afterCr) {
                afterCr = false; // the LF of a CRLF: that line was already emitted at the CR
                continue;
            }
            emit();
            afterCr = terminator == '\r';
        }
    }

    /** The stream ended: a last line without a terminator still counts. */
    public void finish() {
        if (length > 0 || overflowed) {
            emit();
        }
        afterCr = false;
    }

    private void append(byte[] buf, int off, int len) {
        int room = MAX_LINE - length;
        if (len > room) {
            overflowed = true;
            len = room;
        }
        System.arraycopy(buf, off, line, length, len);
        length += len;
    }

    private void emit() {
        String text = new String(line, 0, length, StandardCharsets.UTF_8);
        length = 0;
        overflowed = false;
        sink.accept(text);
    }
}
