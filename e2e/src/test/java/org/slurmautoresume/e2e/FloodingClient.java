package org.slurmautoresume.e2e;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Run as the test user by {@link AgentFloodIT}, in a JVM of its own: opens COUNT connections to
 * the agent and sends nothing, then says per connection what the agent did with it, one line
 * {@code refused=R held=H closed=C} (refused: answered with a "busy" refusal; held: open with
 * nothing said; closed: ended without an answer), and holds what it holds until stdin closes.
 */
public final class FloodingClient {

    private FloodingClient() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Path socket = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        List<SocketChannel> channels = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            c.connect(UnixDomainSocketAddress.of(socket));
            c.configureBlocking(false);
            channels.add(c);
        }
        // The agent answers a refusal at once; what it admits it holds for its read deadline (2 s).
        Thread.sleep(500);
        int refused = 0;
        int held = 0;
        int closed = 0;
        for (SocketChannel c : channels) {
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            int n;
            try {
                n = c.read(buffer);
            } catch (IOException e) {
                n = -1;
            }
            String said = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
            if (said.contains("\"message\":\"busy:")) {
                refused++;
            } else if (n == 0) {
                held++;
            } else {
                closed++;
            }
        }
        System.out.println("refused=" + refused + " held=" + held + " closed=" + closed);
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold until the test closes our stdin
        }
        for (SocketChannel c : channels) {
            c.close();
        }
    }
}
