package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentReport;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.LineChannel;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Caller;

/**
 * One kind of request stuck on an scontrol that does not return must leave the other kinds
 * answering: diagnoses hang on {@code scontrol show node node1} here, and the same user's report,
 * which needs only {@code show job}, is answered meanwhile; a mark gets a worker of its own.
 */
class RequestLanesTest {

    @TempDir
    Path dir;

    private final FakeSlurm slurm =
            new FakeSlurm().job("6", "show-job-running-shrunk-nokill.txt", null).node("node1", "show-node-idle.txt");
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger blocked = new AtomicInteger();
    private final AtomicInteger blockedWrites = new AtomicInteger();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private AgentServer server;
    private AuditLog audit;
    private Path socket;

    @BeforeEach
    void start() throws IOException {
        socket = dir.resolve("agent.sock");
        audit = new AuditLog(dir.resolve("log/audit.log"));
        // The runner every Slurm call goes through, hung for one command as a controller in trouble hangs it.
        CommandRunner hangsOnShowNode = request -> {
            if (request.argv().contains("node") && request.argv().contains("show")) {
                blocked.incrementAndGet();
                if (Thread.currentThread().getName().startsWith("agent-writes")) {
                    blockedWrites.incrementAndGet();
                }
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return slurm.runner.run(request);
        };
        AgentPolicy policy = new AgentPolicy(hangsOnShowNode, node -> Optional.empty(), "root");
        server = new AgentServer(socket, new AgentService(policy, audit), Duration.ofMillis(500));
        server.start();
    }

    @AfterEach
    void stop() throws IOException, InterruptedException {
        release.countDown();
        server.close();
        audit.close();
        callers.shutdownNow();
        callers.awaitTermination(5, TimeUnit.SECONDS);
    }

    private AgentClient client() {
        return new AgentClient(socket, Duration.ofSeconds(20));
    }

    @Test
    void diagnosesHungOnScontrolLeaveReportsAnswering() throws Exception {
        List<Future<AgentResponse>> hung = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            hung.add(callers.submit(() -> client().send(AgentRequest.diagnose("6", List.of("node1")))));
        }
        // This user's diagnosis workers are stuck; the other diagnoses wait behind them.
        waitFor(() -> blocked.get() >= 2);
        assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> {
                    AgentResponse report =
                            client().send(AgentRequest.report("6", AgentReport.of(AgentReport.Event.LAUNCH, 1, null)));
                    assertTrue(report.ok(), report.message());
                },
                "a report must not wait for diagnoses stuck on scontrol");
        assertTrue(hung.stream().noneMatch(Future::isDone), "the diagnoses are still stuck");
        release.countDown();
        for (Future<AgentResponse> f : hung) {
            assertEquals(1, f.get(10, TimeUnit.SECONDS).decisions().size());
        }
    }

    @Test
    void marksAreNotStuckBehindHungDiagnoses() throws Exception {
        for (int i = 0; i < 4; i++) {
            callers.submit(() -> client().send(AgentRequest.diagnose("6", List.of("node1"))));
        }
        waitFor(() -> blocked.get() >= 2);
        // A mark reads its node too, so on this runner it hangs as well, but on a worker of the
        // writes lane: it got one although every diagnosis worker this user may have is stuck.
        callers.submit(() -> client().send(AgentRequest.mark(
                "6", List.of("node1"), NodeMark.Action.REPLACE, AgentRequest.MarkState.FAIL)));
        waitFor(() -> blockedWrites.get() == 1);
        assertEquals(2, blocked.get() - blockedWrites.get(), "diagnoses at once for one user: the lane's share");
    }

    @Test
    void aRequestThatWaitedTooLongInItsLaneIsAnsweredBusyNotActedOn() throws Exception {
        AgentService service = new AgentService(new AgentPolicy(slurm.runner, node -> Optional.empty(), "root"), audit);
        RequestLanes lanes = new RequestLanes(service, Duration.ZERO);
        try {
            Path other = dir.resolve("lane.sock");
            try (ServerSocketChannel serverChannel = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                serverChannel.bind(UnixDomainSocketAddress.of(other));
                Future<String> answer = callers.submit(() -> new AgentClient(other, Duration.ofSeconds(5))
                        .call("{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node1\"],\"action\":\"Replace\","
                                + "\"state\":\"fail\"}"));
                SocketChannel accepted = serverChannel.accept();
                String line = LineChannel.readLine(accepted, System.nanoTime() + TimeUnit.SECONDS.toNanos(5), 1 << 16);
                Thread.sleep(5); // past the zero wait allowed
                assertTrue(lanes.offer(accepted, new Caller(0, "root"), line));
                String response = answer.get(5, TimeUnit.SECONDS);
                assertTrue(
                        response.contains("\"ok\":false") && response.contains(AgentClient.BUSY + "waited"), response);
                assertTrue(slurm.updates.isEmpty(), "nothing was marked");
            }
        } finally {
            lanes.close(Duration.ofSeconds(1));
        }
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within 10 s");
            Thread.sleep(10);
        }
    }
}
