package org.slurmautoresume.agent.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.client.NodeMark;

/** A supervisor's requests while its agent is down, restarting, busy or not installed at all. */
class AgentClientOutageTest {

    private static final String WATCHING = "{\"ok\":true,\"decisions\":[],\"message\":\"job 7: watching node[1-2]\"}";
    private static final String MARKED = "{\"ok\":true,\"decisions\":[{\"node\":\"node2\",\"decision\":\"marked\"}],"
            + "\"message\":\"job 7: node2 marked\"}";

    @TempDir
    Path dir;

    private final List<String> said = new CopyOnWriteArrayList<>();
    private FakeAgent agent;

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    private AgentClient riding(Path socket, Duration bound) {
        return new AgentClient(socket, Duration.ofSeconds(5))
                .ridingOutages(new AgentOutage(
                        socket,
                        bound,
                        Duration.ofMillis(20),
                        Duration.ofMillis(100),
                        Duration.ofMillis(300),
                        said::add));
    }

    @Test
    void noAgentInstalledFailsAtOnceAndSaysNothing() {
        Path socket = dir.resolve("agent.sock");
        AgentClient client = riding(socket, Duration.ofSeconds(30));
        long start = System.nanoTime();
        assertThrows(AgentUnavailableException.class, () -> client.send(AgentRequest.watch("7")));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "no agent installed: no waiting");
        assertEquals(List.of(), said);
    }

    @Test
    void anAgentThatRefusesThenAnswersIsWaitedForAndTheOutageSaidOnce() throws Exception {
        Path socket = refusingSocket();
        AgentClient client = riding(socket, Duration.ofSeconds(30));
        agent = FakeAgent.startLater(socket, Duration.ofMillis(800), List.of(MARKED));
        AgentResponse response = client.send(
                AgentRequest.mark("7", List.of("node2"), NodeMark.Action.REPLACE, AgentRequest.MarkState.FAIL));
        assertTrue(response.ok());
        assertEquals("marked", response.decisions().get(0).decision());
        assertEquals(1, agent.answered());
        assertEquals(2, said.size(), said.toString());
        assertTrue(said.get(0).contains("still trying (to mark node2 fail)"), said.get(0));
        assertTrue(said.get(1).contains("answers again"), said.get(1));
    }

    @Test
    void anAgentWhoseSocketVanishedSinceTheStartIsWaitedFor() throws Exception {
        Path socket = refusingSocket();
        AgentClient client = riding(socket, Duration.ofSeconds(30));
        Files.delete(socket); // systemctl restart: the old agent removed it, the new one has not bound yet
        agent = FakeAgent.startLater(socket, Duration.ofMillis(500), List.of(WATCHING));
        assertTrue(client.send(AgentRequest.watch("7")).ok());
    }

    @Test
    void givingUpSaysExactlyWhatIsNoLongerDone() throws Exception {
        Path socket = refusingSocket();
        AgentClient client = riding(socket, Duration.ofSeconds(1));
        long start = System.nanoTime();
        AgentException e = assertThrows(
                AgentException.class,
                () -> client.send(AgentRequest.mark(
                        "7", List.of("node2"), NodeMark.Action.REPLACE, AgentRequest.MarkState.FAIL)));
        long took = System.nanoTime() - start;
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(900) && took < TimeUnit.SECONDS.toNanos(5), "took " + took);
        assertTrue(e.getMessage().contains("node2 not marked fail with reason Action:Replace"), e.getMessage());
        assertEquals(2, said.size(), said.toString());
        assertTrue(said.get(0).contains("still trying"), said.get(0));
        assertTrue(said.get(1).startsWith("gave up on the agent"), said.get(1));
        // The bound is the outage's: the next request in the same outage does not wait it again.
        long again = System.nanoTime();
        assertThrows(AgentException.class, () -> client.send(AgentRequest.watch("7")));
        assertTrue(System.nanoTime() - again < TimeUnit.MILLISECONDS.toNanos(500));
    }

    @Test
    void aBusyRefusalIsTriedAgainButAnOrdinaryRefusalIsAnAnswer() throws Exception {
        Path socket = dir.resolve("agent.sock");
        String busy = "{\"ok\":false,\"decisions\":[],\"message\":\"" + AgentClient.BUSY + "alice already has 32"
                + " connections to the agent open; connection closed\"}";
        String refused = "{\"ok\":false,\"decisions\":[],\"message\":\"job 7 is not yours\"}";
        agent = FakeAgent.startLater(socket, Duration.ZERO, List.of(busy, refused))
                .listening();
        AgentResponse response = riding(socket, Duration.ofSeconds(30)).send(AgentRequest.watch("7"));
        assertEquals("job 7 is not yours", response.message());
        assertEquals(2, agent.answered());
    }

    /**
     * A request in flight when the agent is stopped: its connection is closed unanswered (the
     * agent closes what waits in its queues on SIGTERM), and it is sent again to the next agent.
     */
    @Test
    void aRequestWhoseConnectionClosedUnansweredIsSentAgain() throws Exception {
        Path socket = dir.resolve("agent.sock");
        agent = FakeAgent.startLater(socket, Duration.ZERO, Arrays.asList(null, MARKED))
                .listening();
        AgentResponse response = riding(socket, Duration.ofSeconds(30))
                .send(AgentRequest.mark("7", List.of("node2"), NodeMark.Action.REPLACE, AgentRequest.MarkState.FAIL));
        assertTrue(response.ok());
        assertEquals(2, agent.answered());
    }

    @Test
    void withoutRidingTheFirstRefusedConnectionFails() throws Exception {
        Path socket = refusingSocket();
        assertThrows(
                AgentUnavailableException.class,
                () -> new AgentClient(socket, Duration.ofSeconds(5)).send(AgentRequest.watch("7")));
    }

    /** A socket file nothing listens on: what a killed agent leaves behind. */
    private Path refusingSocket() throws IOException {
        Path socket = dir.resolve("agent.sock");
        ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        gone.bind(UnixDomainSocketAddress.of(socket));
        gone.close();
        assertTrue(Files.exists(socket));
        return socket;
    }

    /** Answers each connection with the next canned line, after starting late on a socket. */
    private static final class FakeAgent implements AutoCloseable {
        private final List<String> answers;
        private final Thread thread;
        private volatile ServerSocketChannel server;
        private volatile int answered;
        private final CountDownLatch listening = new CountDownLatch(1);

        private FakeAgent(Path socket, Duration delay, List<String> answers) {
            this.answers = new ArrayList<>(answers);
            this.thread = new Thread(() -> run(socket, delay), "fake-agent");
            thread.setDaemon(true);
        }

        static FakeAgent startLater(Path socket, Duration delay, List<String> answers) {
            FakeAgent agent = new FakeAgent(socket, delay, answers);
            agent.thread.start();
            return agent;
        }

        private void run(Path socket, Duration delay) {
            try {
                Thread.sleep(delay.toMillis());
                Files.deleteIfExists(socket);
                server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                server.bind(UnixDomainSocketAddress.of(socket));
                listening.countDown();
                while (!answers.isEmpty()) {
                    try (SocketChannel client = server.accept()) {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        LineChannel.readLine(client, deadline, 1 << 16);
                        answered++; // before the answer goes: the test reads this once it has it
                        String answer = answers.remove(0);
                        if (answer != null) { // null: closed without an answer
                            LineChannel.writeLine(client, answer, deadline);
                        }
                    }
                }
            } catch (IOException | InterruptedException e) {
                // closed by the test
            }
        }

        /** For a test whose agent was there from the start: a supervisor then sees its socket. */
        FakeAgent listening() throws InterruptedException {
            assertTrue(listening.await(5, TimeUnit.SECONDS), "the fake agent did not start");
            return this;
        }

        int answered() {
            return answered;
        }

        @Override
        public void close() throws Exception {
            if (server != null) {
                server.close();
            }
            thread.interrupt();
            thread.join(2000);
        }
    }
}
