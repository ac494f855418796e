package org.slurmautoresume.lifecycle.apply;

import java.util.List;

/** A partition to write: its name and nodes in resource_config.json order. */
public record Partition(String name, List<String> nodes) {

    public Partition {
        nodes = List.copyOf(nodes);
    }
}
