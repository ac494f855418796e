package org.slurmautoresume.agent.protocol;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One line of UTF-8 each way over a non-blocking socket channel, with a deadline and a size
 * cap: a peer that sends nothing, sends slowly or sends without end cannot hold the other side.
 */
public final class LineChannel {

    /** The line was longer than allowed; nothing of it is used. */
    public static final class LineTooLongException extends IOException {
        private static final long serialVersionUID = 1L;

        LineTooLongException(int max) {
            super("longer than " + max + " bytes");
        }
    }

    private LineChannel() {}

    /**
     * Reads up to the first newline (not included). A peer that closes without a newline
     * gives what it sent; one that sent nothing gives null.
     */
    public static String readLine(SocketChannel channel, long deadlineNanos, int maxBytes) throws IOException {
        channel.configureBlocking(false);
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_READ);
            while (true) {
                buffer.clear();
                int n = channel.read(buffer);
                if (n < 0) {
                    return line.size() == 0 ? null : decode(line.toByteArray());
                }
                if (n == 0) {
                    await(selector, deadlineNanos);
                    continue;
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    byte b = buffer.get();
                    if (b == '\n') {
                        return decode(line.toByteArray());
                    }
                    if (line.size() >= maxBytes) {
                        throw new LineTooLongException(maxBytes);
                    }
                    line.write(b);
                }
            }
        }
    }

    public static void writeLine(SocketChannel channel, String text, long deadlineNanos) throws IOException {
        channel.configureBlocking(false);
        ByteBuffer buffer = ByteBuffer.wrap((text + "\n").getBytes(StandardCharsets.UTF_8));
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_WRITE);
            while (buffer.hasRemaining()) {
                if (channel.write(buffer) == 0) {
                    await(selector, deadlineNanos);
                }
            }
        }
    }

    private static void await(Selector selector, long deadlineNanos) throws IOException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (left <= 0) {
            throw new SocketTimeoutException("no answer in time");
        }
        selector.select(left);
        selector.selectedKeys().clear();
    }

    private static String decode(byte[] bytes) throws CharacterCodingException {
        CharBuffer chars = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes));
        String text = chars.toString();
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }
}
