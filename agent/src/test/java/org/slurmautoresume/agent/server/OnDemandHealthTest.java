package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.nodeops.sweep.CommandNodeHealth;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.Records;

/**
 * The site's health command as callers reach it: one run at a time per node, its verdict shared
 * while it runs and for the reuse time after, told it runs on a request, and nothing of what it
 * printed in the verdict callers read. The command is a fake runner that counts its runs and how
 * many ran at once; the clock is turned by hand.
 */
class OnDemandHealthTest {

    private static final String STDERR_SECRET = "token=5ecr3t-on-stderr";
    private static final String STDOUT_SECRET = "pid 4242 of another user's job";
    private static final Node NODE1 = Records.node("show-node-idle-fail.txt", "node1");
    private static final Node NODE2 = Records.node("show-node-idle-fail.txt", "node2");

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final Map<String, String> environments = new ConcurrentHashMap<>();
    /** Opened by a test to let a run end; open from the start unless a test closes it. */
    private volatile CountDownLatch release = new CountDownLatch(0);

    private volatile int exit = 8;

    private final CommandRunner runner = new CommandRunner() {
        @Override
        public CommandResult run(CommandRequest request) {
            runs.incrementAndGet();
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            request.environment().forEach(environments::put);
            try {
                assertTrue(release.await(30, TimeUnit.SECONDS), "a test never let the run end");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
            return new CommandResult(
                    request,
                    exit,
                    STDOUT_SECRET + "\nmore\n",
                    "Xid 79 " + STDERR_SECRET + "\n",
                    false,
                    Duration.ofMillis(5));
        }
    };

    private OnDemandHealth health(Duration reuse) {
        return OnDemandHealth.of(
                runner, List.of("/opt/site/check.sh", "{node}"), Duration.ofSeconds(60), reuse, nanos::get);
    }

    /** {@code count} threads asking about {@code node} at once; their verdicts once every one has its answer. */
    private static List<CompletableFuture<NodeHealth.Verdict>> askAtOnce(OnDemandHealth health, Node node, int count) {
        List<CompletableFuture<NodeHealth.Verdict>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            answers.add(CompletableFuture.supplyAsync(() -> health.check(node), command -> {
                Thread thread = new Thread(command, "asker");
                thread.setDaemon(true);
                thread.start();
            }));
        }
        return answers;
    }

    @Test
    void manyAskingAtOnceMakeOneRunAndAllGetItsVerdict() throws Exception {
        release = new CountDownLatch(1);
        OnDemandHealth health = health(Duration.ZERO); // no reuse: only the askers during the run share it
        List<CompletableFuture<NodeHealth.Verdict>> answers = askAtOnce(health, NODE1, 16);
        // Every asker is either running the command or parked waiting for its result.
        Wait.until(() -> runs.get() == 1
                && Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("asker"))
                        .filter(t -> t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING)
                        .findAny()
                        .isEmpty());
        release.countDown();
        for (CompletableFuture<NodeHealth.Verdict> answer : answers) {
            NodeHealth.Verdict verdict = answer.get(30, TimeUnit.SECONDS);
            assertFalse(verdict.healthy());
            assertEquals("reboot", verdict.action());
        }
        assertEquals(1, runs.get(), "one run for 16 askers");
        assertEquals(1, mostAtOnce.get());
    }

    @Test
    void askersWithinTheReuseTimeShareTheVerdictAndAfterItANewRunAnswers() {
        OnDemandHealth health = health(Duration.ofSeconds(10));
        assertFalse(health.check(NODE1).healthy());
        nanos.addAndGet(Duration.ofSeconds(9).toNanos());
        exit = 0; // the node is healthy now; within the reuse time the last verdict still answers
        assertFalse(health.check(NODE1).healthy());
        assertEquals(1, runs.get());
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertTrue(health.check(NODE1).healthy(), "the reuse time is over: a new run");
        assertEquals(2, runs.get());
    }

    @Test
    void eachNodeHasItsOwnRun() throws Exception {
        release = new CountDownLatch(1);
        OnDemandHealth health = health(Duration.ofSeconds(10));
        List<CompletableFuture<NodeHealth.Verdict>> one = askAtOnce(health, NODE1, 4);
        List<CompletableFuture<NodeHealth.Verdict>> two = askAtOnce(health, NODE2, 4);
        Wait.until(() -> runs.get() == 2);
        release.countDown();
        for (CompletableFuture<NodeHealth.Verdict> answer : one) {
            answer.get(30, TimeUnit.SECONDS);
        }
        for (CompletableFuture<NodeHealth.Verdict> answer : two) {
            answer.get(30, TimeUnit.SECONDS);
        }
        assertEquals(2, runs.get(), "one run per node");
        assertEquals(2, mostAtOnce.get(), "the two nodes' runs may overlap, each node's alone");
    }

    @Test
    void theCommandIsToldARequestAskedForIt() {
        health(Duration.ZERO).check(NODE1);
        assertEquals(Map.of("AUTORESUME_CHECK", "on-request"), environments);
    }

    @Test
    void callersReadTheVerdictAndHowTheCommandEndedNeverItsOutput() {
        NodeHealth.Verdict verdict = health(Duration.ZERO).check(NODE1);
        assertFalse(verdict.detail().contains(STDERR_SECRET), verdict.detail());
        assertFalse(verdict.detail().contains(STDOUT_SECRET), verdict.detail());
        assertFalse(verdict.detail().contains("Xid"), verdict.detail());
        assertTrue(verdict.detail().contains("`check.sh` exited 8"), verdict.detail());
    }

    @Test
    void aCommandThatCannotStartIsAVerdictInOurWordsToo() {
        CommandRunner missing = request -> {
            throw CommandException.cannotStart(request, new java.io.IOException("No such file " + STDERR_SECRET));
        };
        NodeHealth.Verdict verdict = OnDemandHealth.of(
                        missing, List.of("/opt/site/check.sh", "{node}"), Duration.ofSeconds(5), Duration.ZERO)
                .check(NODE1);
        assertFalse(verdict.healthy());
        assertEquals("replace", verdict.action());
        assertFalse(verdict.detail().contains(STDERR_SECRET), verdict.detail());
    }

    @Test
    void aRunThatBreaksTellsEveryAskerOnlyThatTheLogHasIt() {
        CommandRunner broken = request -> {
            throw new IllegalArgumentException("internal detail " + STDERR_SECRET);
        };
        OnDemandHealth health = OnDemandHealth.of(
                broken,
                List.of("/opt/site/check.sh", "{node}"),
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                nanos::get);
        IllegalStateException first = assertThrows(IllegalStateException.class, () -> health.check(NODE1));
        assertFalse(first.getMessage().contains(STDERR_SECRET), first.getMessage());
        assertThrows(IllegalStateException.class, () -> health.check(NODE1), "shared like a verdict");
    }

    @Test
    void printableKeepsOneBoundedLineOfPrintableAscii() {
        String hostile = "GPU\u00a0lost\n\u001b[2Jforged line\r\n\t\u2028" + "x".repeat(400) + "\u0000";
        String clean = OnDemandHealth.printable(hostile, OnDemandHealth.MAX_DETAIL);
        assertTrue(clean.length() <= OnDemandHealth.MAX_DETAIL, clean.length() + ": " + clean);
        assertTrue(clean.chars().allMatch(c -> c >= 0x20 && c <= 0x7e), clean);
        assertTrue(clean.startsWith("GPU lost [2Jforged line x"), clean);
        assertTrue(clean.endsWith("..."), clean);
        assertEquals("a b", OnDemandHealth.printable("  a \n\n b  ", 10));
        assertEquals("", OnDemandHealth.printable("\u0007\u00e9", 10));
    }

    @Test
    void aProgramNameOfAnyBytesStillGivesAPrintableVerdict() {
        CommandNodeHealth.Run run = new CommandNodeHealth.Run(
                NodeHealth.Verdict.unhealthy("replace", "whatever"),
                "/opt/site/che\nck\u00e9.sh",
                "exited 3",
                "STDOUT-MARK",
                "STDERR-MARK");
        String detail = OnDemandHealth.forCallers(run).detail();
        assertTrue(detail.chars().allMatch(c -> c >= 0x20 && c <= 0x7e), detail);
        assertTrue(detail.length() <= OnDemandHealth.MAX_DETAIL, detail);
        assertFalse(detail.contains("STDOUT-MARK") || detail.contains("STDERR-MARK"), detail);
    }

    /** Polls a condition another thread makes true; fails after 30 s. */
    private static final class Wait {
        static void until(java.util.function.BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!condition.getAsBoolean()) {
                assertTrue(System.nanoTime() < deadline, "the condition never held");
                Thread.sleep(5);
            }
        }
    }
}
