package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** Reading sysfs-like trees: a missing directory is simply empty (the device is not on this node). */
final class SysfsTree {

    private SysfsTree() {}

    /** The entries of {@code dir} that pass the filter, sorted; empty when {@code dir} does not exist. */
    static List<Path> entries(Path dir, Predicate<Path> filter) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(filter).sorted().toList();
        }
    }
}
