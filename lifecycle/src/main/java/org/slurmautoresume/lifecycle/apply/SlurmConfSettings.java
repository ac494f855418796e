package org.slurmautoresume.lifecycle.apply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The admin's own slurm.conf lines (outside the managed block), read only as far as apply needs:
 * which settings they already make, and which nodes and partitions they define. Slurm's syntax:
 * {@code Key=Value} pairs separated by blanks, keys case-insensitive, {@code #} starts a comment.
 */
record SlurmConfSettings(
        Map<String, Setting> settings, Map<String, Integer> nodeLines, Map<String, Integer> partitionLines) {

    /** A line-level setting and the 1-based line it is on (in the file without the managed block). */
    record Setting(String value, int line) {}

    static SlurmConfSettings parse(List<String> lines) {
        Map<String, Setting> settings = new LinkedHashMap<>();
        Map<String, Integer> nodes = new LinkedHashMap<>();
        Map<String, Integer> partitions = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (content.isEmpty()) {
                continue;
            }
            String first = content.split("\\s+")[0];
            int eq = first.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = first.substring(0, eq).toLowerCase(Locale.ROOT);
            String value = first.substring(eq + 1);
            switch (key) {
                case "nodename" -> nodes.putIfAbsent(value, i + 1);
                case "partitionname" -> partitions.putIfAbsent(value, i + 1);
                default -> settings.put(key, new Setting(value, i + 1));
            }
        }
        return new SlurmConfSettings(settings, nodes, partitions);
    }

    Optional<Setting> get(String key) {
        return Optional.ofNullable(settings.get(key.toLowerCase(Locale.ROOT)));
    }

    /** Node names defined outside the block that apply would define too. */
    List<String> clashingNodes(List<String> names) {
        List<String> clashes = new ArrayList<>();
        for (String name : names) {
            if (nodeLines.containsKey(name)) {
                clashes.add(name + " (line " + nodeLines.get(name) + ")");
            }
        }
        return clashes;
    }
}
