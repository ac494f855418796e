package org.slurmautoresume.slurm.model;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** The running controller's configuration ({@code scontrol show config}), keyed as Slurm names it. */
public record SlurmConfig(Map<String, String> values) {

    public SlurmConfig {
        values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public Optional<String> get(String key) {
        String value = values.get(key);
        if (value == null) {
            for (Map.Entry<String, String> entry : values.entrySet()) {
                if (entry.getKey().equalsIgnoreCase(key)) {
                    value = entry.getValue();
                    break;
                }
            }
        }
        if (value == null || value.equals("(null)")) {
            return Optional.empty();
        }
        return Optional.of(value);
    }

    /** When the answering slurmctld started ({@code BOOT_TIME}, its clock as scontrol prints it here). */
    public Optional<java.time.LocalDateTime> bootTime() {
        return get("BOOT_TIME").flatMap(SlurmTime::parse);
    }

    /** {@code SlurmdTimeout = 300 sec} gives 300. */
    public OptionalInt seconds(String key) {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return OptionalInt.empty();
        }
        String digits = value.get().split("\\s+")[0];
        try {
            return OptionalInt.of(Integer.parseInt(digits));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * True under {@code AccountingStorageType=accounting_storage/none}: Slurm 22.05 then refuses
     * every change to a job once it has been grown (docs/slurm-behaviour.md). 24.11 has no
     * "none" plugin and prints the same setting as {@code (null)} (captured); a config that
     * does not name the key at all says nothing either way.
     */
    public boolean keepsNoAccounting() {
        if (get("AccountingStorageType").isEmpty()) {
            return values.keySet().stream().anyMatch(k -> k.equalsIgnoreCase("AccountingStorageType"));
        }
        return get("AccountingStorageType")
                .map(t -> t.strip().endsWith("/none"))
                .orElse(false);
    }

    /** True when a comma-separated parameter list such as SchedulerParameters holds the word. */
    public boolean listContains(String key, String word) {
        return get(key).map(v -> Arrays.stream(v.split(","))
                        .map(s -> s.strip().toLowerCase(Locale.ROOT))
                        .anyMatch(s -> s.equals(word.toLowerCase(Locale.ROOT))
                                || s.startsWith(word.toLowerCase(Locale.ROOT) + "=")))
                .orElse(false);
    }
}
