package org.slurmautoresume.slurm.parse;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fixed order in which scontrol prints a record's keys, which no job attribute can change.
 *
 * <p>A user writes free text into some values (a job's name, comment, paths). Text such as
 * {@code train NodeList=node[1-4]} looks like a field; knowing that scontrol prints
 * {@code NodeList} long after {@code JobName}, and {@code UserId} always right after it, tells
 * the forged field from the real one.
 *
 * @param keys        every key in print order (keys only some releases print included)
 * @param anchors     free-text key to the key scontrol always prints after it (optional keys
 *                    between them allowed): its value ends there, and that key must appear
 *                    exactly once after it, else the record is ambiguous and refused
 * @param repeatable  keys printed once per node block ({@code scontrol -d}): they may repeat
 * @param required    keys every record of every release has; a record without one was steered
 */
public record PrintOrder(List<String> keys, Map<String, String> anchors, Set<String> repeatable, Set<String> required) {

    public PrintOrder {
        keys = List.copyOf(keys);
        anchors = Map.copyOf(anchors);
        repeatable = Set.copyOf(repeatable);
        required = Set.copyOf(required);
    }

    /** Position of each key; a key listed twice is a mistake in the table. */
    Map<String, Integer> positions() {
        Map<String, Integer> at = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            if (at.put(keys.get(i), i) != null) {
                throw new IllegalArgumentException("key listed twice in the print order: " + keys.get(i));
            }
        }
        for (Map.Entry<String, String> anchor : anchors.entrySet()) {
            Integer from = at.get(anchor.getKey());
            Integer to = at.get(anchor.getValue());
            if (from == null || to == null || to <= from) {
                throw new IllegalArgumentException("anchor must follow its key in print order: " + anchor);
            }
        }
        return at;
    }
}
