package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentException;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;

/**
 * The agent over a real Unix domain socket in a temporary directory, server and client in this
 * process: the caller the server sees is this test's own user, read from the peer credentials.
 */
class AgentSocketTest {

    @TempDir
    Path dir;

    private final FakeSlurm slurm =
            new FakeSlurm().job("6", "show-job-running-shrunk-nokill.txt", null).node("node1", "show-node-idle.txt");
    private AgentServer server;
    private AuditLog audit;
    private Path socket;
    private final String me = System.getProperty("user.name");

    @BeforeEach
    void start() throws IOException {
        socket = dir.resolve("agent.sock");
        audit = new AuditLog(dir.resolve("log/audit.log"));
        AgentPolicy policy = new AgentPolicy(slurm.runner, node -> Optional.empty(), "root");
        server = new AgentServer(socket, new AgentService(policy, audit), Duration.ofMillis(500));
        server.start();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        audit.close();
    }

    private AgentClient client() {
        return new AgentClient(socket, Duration.ofSeconds(10));
    }

    private List<JsonNode> auditLines() throws IOException {
        return Files.readAllLines(audit.file()).stream()
                .map(AgentJson::readTree)
                .toList();
    }

    @Test
    void socketIsOpenToEveryUser() throws IOException {
        assertEquals("rw-rw-rw-", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
    }

    @Test
    void answersWithTheCallersIdentityFromThePeerCredentials() throws IOException {
        AgentResponse response = client().send(AgentRequest.diagnose("6", List.of("node1")));
        // Job 6 is artest(1001)'s: root may diagnose it, anyone else is refused by name.
        if ("root".equals(me)) {
            assertTrue(response.ok(), response.message());
            assertEquals(NodeDecision.HEALTHY, response.decisions().get(0).decision());
        } else {
            assertFalse(response.ok());
            assertTrue(response.message().contains("not to " + me + "("), response.message());
        }
        List<JsonNode> lines = auditLines();
        assertEquals(1, lines.size());
        JsonNode entry = lines.get(0);
        assertEquals(me, entry.get("user").asText());
        assertEquals(UnixUsers.uidOf(me).getAsLong(), entry.get("uid").asLong());
        assertEquals("diagnose", entry.get("request").get("op").asText());
        assertEquals("node1", entry.get("decisions").get(0).get("node").asText());
        assertTrue(entry.get("time").asText().endsWith("Z"));
    }

    @Test
    void badRequestsAreAnsweredAndAuditedWithoutAnyCommand() throws IOException {
        String line = client().call("{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node1;reboot\"],"
                + "\"action\":\"Replace\",\"state\":\"fail\"}");
        JsonNode response = AgentJson.readTree(line);
        assertFalse(response.get("ok").asBoolean());
        assertTrue(response.get("message").asText().contains("not a valid node name"), line);
        assertTrue(auditLines().get(0).get("request").asText().contains("node1;reboot"));
        org.mockito.Mockito.verifyNoInteractions(slurm.runner);
    }

    @Test
    void connectionsOverTheUsersShareAreRefusedAndOthersStillAnswered() throws IOException {
        List<SocketChannel> idle = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < AgentServer.CONNECTIONS_PER_UID; i++) {
                idle.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
            }
            // The agent admits connections in order; one answered refusal shows the share is full.
            int refused = 0;
            for (int i = 0; i < 5; i++) {
                JsonNode response = AgentJson.readTree(client().call("{\"op\":\"watch\",\"jobId\":\"6\"}"));
                if (!response.get("ok").asBoolean()
                        && response.get("message").asText().startsWith("busy:")) {
                    refused++;
                }
            }
            assertTrue(refused >= 1, "no connection over the share was refused");
        } finally {
            for (SocketChannel c : idle) {
                c.close();
            }
        }
        // The idle ones time out (500 ms here) and give the user's share back.
        AgentResponse after = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            while (true) {
                AgentResponse r = client().send(AgentRequest.watch("6"));
                if (!r.message().startsWith("busy:")) {
                    return r;
                }
            }
        });
        assertTrue(after.ok(), after.message());
    }

    @Test
    void anOversizedRequestIsRefusedUnread() throws IOException {
        String huge = "{\"op\":\"watch\",\"jobId\":\"" + "9".repeat(AgentJson.MAX_LINE_BYTES) + "\"}";
        JsonNode response = AgentJson.readTree(client().call(huge));
        assertFalse(response.get("ok").asBoolean());
        assertTrue(response.get("message").asText().contains("longer than"), response.toString());
        org.mockito.Mockito.verifyNoInteractions(slurm.runner);
    }

    @Test
    void aSilentClientIsDisconnectedAfterTheReadTimeout() {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                channel.connect(UnixDomainSocketAddress.of(socket));
                channel.write(ByteBuffer.wrap("{\"op\":".getBytes(StandardCharsets.UTF_8)));
                // Blocks until the server gives up on us and closes: end of stream.
                assertEquals(-1, channel.read(ByteBuffer.allocate(16)));
            }
            // The agent still answers others, and the dropped client is on record.
            assertTrue(client().call("{\"op\":\"watch\",\"jobId\":\"6\"}").contains("\"ok\""));
            assertTrue(auditLines().get(0).get("why").asText().contains("no complete request line"));
        });
    }

    @Test
    void aMissingAgentIsNamedAsNotRunning() {
        AgentClient nobody = new AgentClient(dir.resolve("nothing.sock"), Duration.ofSeconds(1));
        AgentException e = assertThrows(AgentException.class, () -> nobody.send(AgentRequest.watch("6")));
        assertTrue(e.getMessage().contains("agent is not running"), e.getMessage());
    }

    @Test
    void aSecondAgentOnTheSameSocketRefusesToStartAndAStaleSocketIsReplaced() throws IOException {
        AgentPolicy policy = new AgentPolicy(slurm.runner, node -> Optional.empty(), "root");
        AgentServer second = new AgentServer(socket, new AgentService(policy, audit), Duration.ofSeconds(1));
        IOException e = assertThrows(IOException.class, second::start);
        assertTrue(e.getMessage().contains("already listening"), e.getMessage());

        // A socket file left by an agent that died (bound, never removed) is replaced.
        Path stale = dir.resolve("stale.sock");
        try (var left = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            left.bind(UnixDomainSocketAddress.of(stale));
        }
        assertTrue(Files.exists(stale));
        try (AgentServer third = new AgentServer(stale, new AgentService(policy, audit), Duration.ofSeconds(1))) {
            third.start();
            assertTrue(new AgentClient(stale, Duration.ofSeconds(5))
                    .call("{\"op\":\"watch\",\"jobId\":\"6\"}")
                    .startsWith("{\"ok\""));
        }
        assertFalse(Files.exists(stale), "close() removes the socket file");
    }

    @Test
    void aServerClosedBeforeItStartsNeverBindsItsSocket() {
        // The agent's shutdown hook closes the server when a SIGTERM comes while the agent is starting.
        AgentPolicy policy = new AgentPolicy(slurm.runner, node -> Optional.empty(), "root");
        Path early = dir.resolve("early.sock");
        AgentServer server = new AgentServer(early, new AgentService(policy, audit), Duration.ofSeconds(1));
        server.close();
        assertThrows(IOException.class, server::start);
        assertFalse(Files.exists(early), "a socket bound after the close would outlive the agent");
    }
}
