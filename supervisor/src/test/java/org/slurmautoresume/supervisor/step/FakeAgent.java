package org.slurmautoresume.supervisor.step;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent boundary for the supervisor's unit tests: listens on a Unix socket as the agent
 * does, answers every request (a mark with "marked" for each node named) and records them.
 */
public final class FakeAgent implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ServerSocketChannel server;
    private final Path socket;
    private final List<JsonNode> requests = new ArrayList<>();
    private final Thread thread;

    public FakeAgent(Path socket) throws IOException {
        this.socket = socket;
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        thread = new Thread(this::serve, "fake-agent");
        thread.setDaemon(true);
        thread.start();
    }

    public Path socket() {
        return socket;
    }

    /** The requests with this op ("mark", "watch", "report", ...), in order. */
    public synchronized List<JsonNode> requests(String op) {
        return requests.stream().filter(r -> r.path("op").asText().equals(op)).toList();
    }

    private void serve() {
        while (server.isOpen()) {
            try (SocketChannel client = server.accept()) {
                BufferedReader in = new BufferedReader(
                        new InputStreamReader(Channels.newInputStream(client), StandardCharsets.UTF_8));
                String line = in.readLine();
                if (line == null) {
                    continue; // a client that connected and left, as the supervisor's is-anyone-there check does
                }
                JsonNode request = JSON.readTree(line);
                synchronized (this) {
                    requests.add(request);
                }
                OutputStream out = Channels.newOutputStream(client);
                out.write((answer(request) + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static String answer(JsonNode request) {
        StringBuilder decisions = new StringBuilder();
        if (request.path("op").asText().equals("mark")) {
            for (JsonNode node : request.path("nodes")) {
                decisions
                        .append(decisions.length() == 0 ? "" : ",")
                        .append("{\"node\":\"")
                        .append(node.asText())
                        .append("\",\"decision\":\"marked\",\"evidence\":\"slurmd does not answer\",\"why\":\"\"}");
            }
        }
        return "{\"ok\":true,\"decisions\":[" + decisions + "],\"message\":\"\"}";
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
