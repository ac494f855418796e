package org.slurmautoresume.supervisor.step.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slurmautoresume.supervisor.rules.OutputObserver;

/**
 * Copies one of srun's output streams to ours byte for byte, flushing after every read so
 * nothing waits in a buffer, and remembers the last lines for classifying how the step ended.
 * An optional {@link OutputObserver} sees each chunk only after it was written, so watching the
 * output can delay it but never change it.
 */
public final class OutputPump implements Runnable {

    private static final int BUFFER = 64 * 1024;
    private static final int KEPT_LINES = 200;
    private static final int MAX_LINE = 4096;

    private final InputStream from;
    private final OutputStream to;
    private final OutputObserver.Stream which;
    private volatile OutputObserver observer;
    private final Deque<String> lastLines = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();
    private IOException writeFailure;

    public OutputPump(InputStream from, OutputStream to) {
        this(from, to, OutputObserver.Stream.STDOUT, null);
    }

    /** {@code observer} may be null: then the pump is exactly the plain copy. */
    public OutputPump(InputStream from, OutputStream to, OutputObserver.Stream which, OutputObserver observer) {
        this.from = from;
        this.to = to;
        this.which = which;
        this.observer = observer;
    }

    @Override
    public void run() {
        byte[] buffer = new byte[BUFFER];
        try {
            int n;
            while ((n = from.read(buffer)) >= 0) {
                if (writeFailure == null) {
                    try {
                        to.write(buffer, 0, n);
                        to.flush();
                    } catch (IOException e) {
                        // Our reader went away (closed pipe): keep draining srun so it never blocks.
                        writeFailure = e;
                    }
                }
                remember(buffer, n);
                observe(buffer, n);
            }
        } catch (IOException e) {
            // srun's end closed: nothing more to copy.
        } finally {
            OutputObserver watching = observer;
            if (watching != null) {
                try {
                    watching.onEnd(which);
                } catch (RuntimeException e) {
                    observer = null;
                }
            }
            synchronized (this) {
                if (partial.length() > 0) {
                    keep(partial.toString());
                    partial.setLength(0);
                }
            }
        }
    }

    private void observe(byte[] buffer, int n) {
        OutputObserver watching = observer;
        if (watching == null) {
            return;
        }
        try {
            watching.onBytes(which, buffer, 0, n);
        } catch (RuntimeException e) {
            // A broken observer must never cost the user their output: stop asking it.
            observer = null;
        }
    }

    private synchronized void remember(byte[] buffer, int n) {
        String text = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                appendPartial(text, start, i);
                keep(partial.toString());
                partial.setLength(0);
                start = i + 1;
            }
        }
        appendPartial(text, start, text.length());
    }

    private void appendPartial(String text, int start, int end) {
        int room = MAX_LINE - partial.length();
        if (room > 0) {
            partial.append(text, start, Math.min(end, start + room));
        }
    }

    private void keep(String line) {
        lastLines.addLast(line);
        if (lastLines.size() > KEPT_LINES) {
            lastLines.removeFirst();
        }
    }

    /** The last lines seen (Latin-1 decoded: the messages looked for are ASCII). */
    synchronized List<String> lastLines() {
        return new ArrayList<>(lastLines);
    }
}
