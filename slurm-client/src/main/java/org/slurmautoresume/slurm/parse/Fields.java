package org.slurmautoresume.slurm.parse;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.JobId;

/** Typed reads of one parsed record; Slurm's spellings of "nothing" become empty. */
final class Fields {

    private final Map<String, String> raw;
    private final String record;

    Fields(Map<String, String> raw, String record) {
        this.raw = raw;
        this.record = record;
    }

    Map<String, String> raw() {
        return raw;
    }

    String required(String key) {
        String value = raw.get(key);
        if (value == null || value.isEmpty()) {
            throw new ParseException("record has no " + key, record);
        }
        return value;
    }

    /** A job id in Slurm's syntax ({@link JobId}), as written: anything else is not a record we can act on. */
    String jobId(String key) {
        String value = required(key);
        try {
            return JobId.parse(value).toString();
        } catch (InvalidJobIdException e) {
            throw new ParseException(key + ": " + e.getMessage(), record);
        }
    }

    /** The value, or "" for absent, empty, (null), N/A and None. */
    String text(String key) {
        return optional(key).orElse("");
    }

    Optional<String> optional(String key) {
        String value = raw.get(key);
        if (value == null) {
            return Optional.empty();
        }
        String v = value.strip();
        if (v.isEmpty() || v.equals("(null)") || v.equals("N/A") || v.equals("None") || v.equals("n/a")) {
            return Optional.empty();
        }
        return Optional.of(v);
    }

    /** Leading integer of the value: {@code 2}, {@code 2-4} (the minimum), {@code 17001}. */
    OptionalInt integer(String key) {
        Optional<String> value = optional(key);
        if (value.isEmpty()) {
            return OptionalInt.empty();
        }
        String v = value.get();
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        if (end == 0 || end > 9) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(v.substring(0, end)));
    }

    /** {@code artest(1001)}: the name part. */
    static String nameOf(String userAndId) {
        int open = userAndId.indexOf('(');
        return open < 0 ? userAndId : userAndId.substring(0, open);
    }

    /** {@code artest(1001)}: the number part. */
    static OptionalInt idOf(String userAndId) {
        int open = userAndId.indexOf('(');
        int close = userAndId.indexOf(')', open + 1);
        if (open < 0 || close < 0) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(userAndId.substring(open + 1, close)));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
