package org.slurmautoresume.supervisor.step.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.step.FakeSlurm;

/** Waiting for nodes a restarted slurmctld has not heard from, over the fake Slurm. */
class NodeRegistrationTest {

    private final FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3"));

    @Test
    void returnsOnceEveryNodeRegistered() throws Exception {
        slurm.nodeState("node1", "UNKNOWN");
        slurm.nodeStateAfterReads("node1", 2, "ALLOCATED");

        assertTrue(NodeRegistration.await(slurm.client(), List.of("node1", "node2"), Duration.ofSeconds(30)));

        assertEquals("ALLOCATED", slurm.nodeState("node1"));
        assertEquals(3, slurm.ran("node[1-2]").size(), "two answers UNKNOWN, the third registered");
    }

    @Test
    void givesUpAtTheBound() throws Exception {
        slurm.nodeState("node2", "UNKNOWN");

        assertFalse(NodeRegistration.await(slurm.client(), List.of("node2"), Duration.ZERO));

        assertEquals(1, slurm.ran("node2").size());
    }

    @Test
    void aNodeSlurmctldFoundSilentIsNotWaitedFor() throws Exception {
        slurm.nodeState("node2", "UNKNOWN+NOT_RESPONDING");

        assertTrue(NodeRegistration.await(slurm.client(), List.of("node2"), Duration.ofSeconds(30)));

        assertEquals(1, slurm.ran("node2").size());
    }
}
