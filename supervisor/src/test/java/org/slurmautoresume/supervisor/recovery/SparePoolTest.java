package org.slurmautoresume.supervisor.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.hostlist.HostlistException;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.JsonRecords;
import org.slurmautoresume.slurm.parse.NodeParser;

class SparePoolTest {

    private static Node node(String name, String state, String partitions, String features) {
        return new NodeParser()
                .parse("NodeName=" + name + " ActiveFeatures=" + features + " NodeAddr=10.0.0.1 Port=6818" + " State="
                        + state + " Partitions=" + partitions);
    }

    private static final List<Node> CLUSTER = List.of(
            node("gpu01", "ALLOCATED", "train", "(null)"),
            node("gpu02", "IDLE", "train", "(null)"),
            node("spare01", "IDLE+DRAIN", "spare", "hotspare"),
            node("spare02", "IDLE", "spare", "hotspare"),
            node("spare03", "IDLE+COMPLETING", "spare", "hotspare"),
            node("spare04", "IDLE+NOT_RESPONDING", "spare", "hotspare"),
            node("spare05", "IDLE", "spare,train", "hotspare"),
            node("spare06", "MIXED", "spare", "hotspare"));

    @Test
    void picksFreeNodesOfThePartitionInOrder() {
        SparePool pool = new SparePool(Optional.of("spare"), Optional.empty(), Optional.empty());
        assertEquals(List.of("spare02", "spare05"), pool.pick(CLUSTER, 3, List.of()));
        assertEquals(List.of("spare02"), pool.pick(CLUSTER, 1, List.of()));
    }

    @Test
    void neverPicksAnExcludedNode() {
        SparePool pool = new SparePool(Optional.empty(), Optional.of("hotspare"), Optional.empty());
        assertEquals(List.of("spare05"), pool.pick(CLUSTER, 2, List.of("spare02")));
    }

    /** 23.02 and later are read with --json, which lists features as {@code active_features}. */
    @Test
    void picksByFeatureNodesReadFromJson() {
        List<Node> cluster = List.of(
                JsonRecords.node("show-node-idle.json", "{\"name\": \"gpu02\", \"partitions\": [\"train\"]}"),
                JsonRecords.node(
                        "show-node-idle-drain.json", "{\"name\": \"spare01\", \"active_features\": [\"hotspare\"]}"),
                JsonRecords.node(
                        "show-node-idle.json", "{\"name\": \"spare02\", \"active_features\": [\"gpu\", \"hotspare\"]}"),
                JsonRecords.node(
                        "show-node-idle.json", "{\"name\": \"spare03\", \"active_features\": [\"hotspares\"]}"));
        SparePool pool = new SparePool(Optional.empty(), Optional.of("hotspare"), Optional.empty());
        assertEquals(List.of("spare02"), pool.pick(cluster, 2, List.of()));
    }

    @Test
    void aHostlistPoolAndNoFreeNodes() {
        SparePool pool = new SparePool(Optional.empty(), Optional.empty(), Optional.of("spare[01,03-04,06]"));
        assertEquals(List.of(), pool.pick(CLUSTER, 1, List.of()));
        SparePool train = new SparePool(Optional.empty(), Optional.empty(), Optional.of("gpu[01-02]"));
        assertEquals(List.of("gpu02"), train.pick(CLUSTER, 2, List.of()));
    }

    @Test
    void aPoolMustSaySomethingAndBeWellFormed() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new SparePool(Optional.empty(), Optional.empty(), Optional.empty()));
        assertThrows(
                HostlistException.class,
                () -> new SparePool(Optional.empty(), Optional.empty(), Optional.of("n[3-1]")));
    }
}
