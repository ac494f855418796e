package org.slurmautoresume.slurm.parse;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slurmautoresume.slurm.model.SlurmConfig;

/**
 * Parses {@code scontrol show config}: {@code Key = Value} lines with aligned blanks, a header
 * line, section titles ending in ':' and status lines, which are skipped. When a later section
 * repeats a key (plugin sub-configurations do), the first, main value wins.
 */
public final class ConfigParser {

    public SlurmConfig parse(String output) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf(" = ");
            if (eq <= 0 || Character.isWhitespace(line.charAt(0))) {
                continue;
            }
            String key = line.substring(0, eq).strip();
            if (key.isEmpty() || key.indexOf(' ') >= 0) {
                continue;
            }
            values.putIfAbsent(key, line.substring(eq + 3).strip());
        }
        if (values.isEmpty()) {
            throw new ParseException("no Key = Value lines in scontrol show config output", output);
        }
        return new SlurmConfig(values);
    }
}
