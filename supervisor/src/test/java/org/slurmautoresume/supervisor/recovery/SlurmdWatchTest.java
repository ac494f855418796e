package org.slurmautoresume.supervisor.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.probe.NodeProber;

class SlurmdWatchTest {

    private static Node node(String name) {
        return new NodeParser().parse("NodeName=" + name + " NodeAddr=127.0.0.1 Port=17001 State=ALLOCATED");
    }

    /** Answers from a script per node: true means the probe failed. */
    private static NodeProber scripted(Map<String, Deque<Boolean>> misses) {
        return node -> {
            Deque<Boolean> script = misses.get(node.name());
            boolean missed = script != null && !script.isEmpty() && script.poll();
            return missed ? Optional.of("refused") : Optional.empty();
        };
    }

    @Test
    void reportsANodeAfterThresholdMissesInARowOnly() {
        Map<String, Deque<Boolean>> misses = Map.of(
                "node1", new ArrayDeque<>(List.of(true, false, true, true, false, false)), // never 3 in a row
                "node2", new ArrayDeque<>(List.of(false, true, true, true)));
        List<List<String>> reports = new ArrayList<>();
        AtomicInteger rounds = new AtomicInteger();
        new SlurmdWatch(scripted(misses), Duration.ZERO, 3)
                .watch(List.of(node("node1"), node("node2")), () -> rounds.incrementAndGet() < 20, reports::add);
        assertEquals(List.of(List.of("node2")), reports);
    }

    @Test
    void eachRoundAnnouncesItsNodesInOrderBeforeProbingThem() {
        List<String> calls = new ArrayList<>();
        NodeProber recording = new NodeProber() {
            @Override
            public Optional<String> unreachable(Node node) {
                calls.add(node.name());
                return Optional.empty();
            }

            @Override
            public void roundStarts(List<Node> nodes) {
                calls.add("round " + nodes.stream().map(Node::name).toList());
            }
        };
        AtomicInteger rounds = new AtomicInteger();
        new SlurmdWatch(recording, Duration.ZERO, Duration.ZERO, 3, millis -> {}, 1)
                .watch(List.of(node("node1"), node("node2")), () -> rounds.incrementAndGet() <= 2, suspects -> {});
        assertEquals(
                List.of("round [node1, node2]", "node1", "node2", "round [node1, node2]", "node1", "node2"), calls);
    }

    @Test
    void nodesSilentTogetherAreProbedAtOnceUpToTheLanes() {
        // Sixteen nodes that each hold their probe until eight probes wait together, as silent
        // nodes hold theirs for the timeout: one after the other, the first would never be let go.
        int nodes = 16;
        CountDownLatch eightAtOnce = new CountDownLatch(SlurmdWatch.LANES);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<String> lateProbes = Collections.synchronizedList(new ArrayList<>());
        Set<String> probed = ConcurrentHashMap.newKeySet();
        NodeProber silentTogether = node -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            eightAtOnce.countDown();
            try {
                if (!eightAtOnce.await(30, TimeUnit.SECONDS)) {
                    lateProbes.add(node.name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inFlight.decrementAndGet();
            }
            probed.add(node.name());
            return Optional.of("silent");
        };
        List<Node> step = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            step.add(node("node" + i));
        }
        List<List<String>> reports = new ArrayList<>();
        AtomicInteger rounds = new AtomicInteger();
        new SlurmdWatch(silentTogether, Duration.ZERO, 1).watch(step, () -> rounds.incrementAndGet() < 5, reports::add);
        assertEquals(List.of(), lateProbes, "probes that never met seven others");
        assertEquals(SlurmdWatch.LANES, most.get(), "probes at once");
        assertEquals(nodes, probed.size());
        assertEquals(List.of(step.stream().map(Node::name).toList()), reports, "every node, in the step's order");
    }

    @Test
    void aStepWithNoNodesIsWatchedUntilItEnds() {
        AtomicInteger rounds = new AtomicInteger();
        List<List<String>> reports = new ArrayList<>();
        new SlurmdWatch(node -> Optional.of("never asked"), Duration.ZERO, 1)
                .watch(List.of(), () -> rounds.incrementAndGet() < 3, reports::add);
        assertEquals(3, rounds.get(), "the rounds ran until the step ended");
        assertEquals(List.of(), reports);
    }

    @Test
    void aProbesFailureEndsTheWatchFromAnyLane() {
        NodeProber broken = node -> {
            if (node.name().equals("node3")) {
                throw new IllegalStateException("probe of node3 broke");
            }
            return Optional.empty();
        };
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> new SlurmdWatch(broken, Duration.ZERO, 3)
                        .watch(List.of(node("node1"), node("node2"), node("node3")), () -> true, suspects -> {}));
        assertEquals("probe of node3 broke", thrown.getMessage());
    }

    @Test
    void stopsWhenTheStepEndsWithoutReporting() {
        Map<String, Deque<Boolean>> misses = Map.of("node1", new ArrayDeque<>(List.of(true, true, true, true)));
        List<List<String>> reports = new ArrayList<>();
        AtomicInteger rounds = new AtomicInteger();
        new SlurmdWatch(scripted(misses), Duration.ZERO, 3)
                .watch(List.of(node("node1")), () -> rounds.incrementAndGet() <= 2, reports::add);
        assertEquals(List.of(), reports);
    }

    @Test
    void aNodeMarkedOutEndsTheWatchThoughItsSlurmdAnswers() {
        List<List<String>> silent = new ArrayList<>();
        List<List<String>> marked = new ArrayList<>();
        AtomicInteger rounds = new AtomicInteger();
        AtomicInteger asked = new AtomicInteger();
        new SlurmdWatch(scripted(Map.of()), Duration.ZERO, 3)
                .watch(
                        List.of(node("node1"), node("node2")),
                        () -> rounds.incrementAndGet() < 50,
                        silent::add,
                        () -> asked.incrementAndGet() < 3 ? List.of() : List.of("node2"),
                        new SlurmdWatch.StateReads(2, 2),
                        marked::add);
        assertEquals(List.of(), silent);
        assertEquals(List.of(List.of("node2")), marked);
        assertEquals(3, asked.get(), "Slurm is asked every second round only, until a node is out");
    }

    @Test
    void aNodeWhoseAgentSaysItIsUnhealthyHasSlurmAskedAtOnce() {
        NodeProber saysNode2Unhealthy = new NodeProber() {
            @Override
            public Optional<String> unreachable(Node node) {
                return Optional.empty();
            }

            @Override
            public boolean reportsUnhealthy(Node node) {
                return node.name().equals("node2");
            }
        };
        List<List<String>> marked = new ArrayList<>();
        AtomicInteger asked = new AtomicInteger();
        new SlurmdWatch(saysNode2Unhealthy, Duration.ZERO, 3)
                .watch(
                        List.of(node("node1"), node("node2")),
                        () -> true,
                        silent -> {},
                        () -> {
                            asked.incrementAndGet();
                            return List.of("node2");
                        },
                        new SlurmdWatch.StateReads(3, 3),
                        marked::add);
        assertEquals(List.of(List.of("node2")), marked);
        assertEquals(1, asked.get(), "in the first round, not at the third");
    }

    @Test
    void whereEveryNodesAgentSpeaksSlurmIsReadAtTheSlowerPace() {
        java.util.Set<String> speaking = new java.util.HashSet<>(List.of("node1", "node2"));
        AtomicInteger rounds = new AtomicInteger();
        NodeProber agents = new NodeProber() {
            @Override
            public Optional<String> unreachable(Node node) {
                if (node.name().equals("node1") && rounds.incrementAndGet() == 40) {
                    speaking.remove("node2"); // its agent stops greeting: back to the faster pace
                }
                return Optional.empty();
            }

            @Override
            public boolean speaksForItsNode(Node node) {
                return speaking.contains(node.name());
            }
        };
        List<Integer> readAt = new ArrayList<>();
        new SlurmdWatch(agents, Duration.ZERO, 3)
                .watch(
                        List.of(node("node1"), node("node2")),
                        () -> rounds.get() < 60,
                        silent -> {},
                        () -> {
                            readAt.add(rounds.get() + 1); // read before the round's probes
                            return List.of();
                        },
                        new SlurmdWatch.StateReads(2, 10),
                        marked -> {});
        // Both greet from round 1: every 10th round; from the round after node2 fell silent (round 40),
        // every 2nd.
        assertEquals(List.of(10, 20, 30, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60), readAt, readAt.toString());
    }

    @Test
    void readsAreAtLeastOneRoundApart() {
        assertThrows(IllegalArgumentException.class, () -> new SlurmdWatch.StateReads(0, 5));
        assertThrows(IllegalArgumentException.class, () -> new SlurmdWatch.StateReads(5, 0));
    }

    /** A prober after a script of misses per node; {@code goneNodes} miss as gone (agent and slurmd refuse). */
    private static NodeProber scriptedGone(Map<String, Deque<Boolean>> misses, List<String> goneNodes) {
        NodeProber misser = scripted(misses);
        Map<String, Boolean> lastMissed = new java.util.concurrent.ConcurrentHashMap<>();
        return new NodeProber() {
            @Override
            public Optional<String> unreachable(Node node) {
                Optional<String> miss = misser.unreachable(node);
                lastMissed.put(node.name(), miss.isPresent());
                return miss;
            }

            @Override
            public boolean gone(Node node) {
                return goneNodes.contains(node.name()) && lastMissed.getOrDefault(node.name(), false);
            }
        };
    }

    @Test
    void aGoneNodeIsProbedAtTheFasterPaceAndReportedAfterTheSameMisses() {
        Map<String, Deque<Boolean>> misses = Map.of(
                "node1", new ArrayDeque<>(List.of(false, false, false, false, false)),
                "node2", new ArrayDeque<>(List.of(false, true, true, true)));
        List<Long> pauses = new ArrayList<>();
        List<List<String>> reports = new ArrayList<>();
        new SlurmdWatch(
                        scriptedGone(misses, List.of("node2")),
                        Duration.ofSeconds(1),
                        Duration.ofMillis(250),
                        3,
                        pauses::add)
                .watch(List.of(node("node1"), node("node2")), () -> true, reports::add);
        assertEquals(List.of(List.of("node2")), reports);
        assertEquals(3, pauses.size(), "a pause after each round but the last: " + pauses);
        assertTrue(pauses.get(0) > 900, "the interval while all answer: " + pauses);
        assertTrue(pauses.get(1) <= 250 && pauses.get(2) <= 250, "the gone pace once node2 is gone: " + pauses);
    }

    @Test
    void aNodeThatOnlyMissesKeepsTheIntervalsPace() {
        Map<String, Deque<Boolean>> misses = Map.of("node2", new ArrayDeque<>(List.of(true, true, true)));
        List<Long> pauses = new ArrayList<>();
        List<List<String>> reports = new ArrayList<>();
        new SlurmdWatch(scriptedGone(misses, List.of()), Duration.ofSeconds(1), Duration.ofMillis(250), 3, pauses::add)
                .watch(List.of(node("node2")), () -> true, reports::add);
        assertEquals(List.of(List.of("node2")), reports);
        assertEquals(2, pauses.size(), pauses.toString());
        assertTrue(pauses.stream().allMatch(p -> p > 900), "a timeout or a lone refusal waits the interval: " + pauses);
    }
}
