package org.slurmautoresume.slurm.model;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A Slurm job id as the toolkit passes it to Slurm's commands and reads it back: a plain job
 * {@code 123}, one task of an array job {@code 123_4}, or one component of a heterogeneous job
 * {@code 123+1}. Every id that enters the toolkit (an argument, an agent request, SLURM_JOB_ID, a
 * parsed scontrol record, salloc's answer) goes through {@link #parse}, so text that is not one
 * of these forms never reaches an argv.
 *
 * <p>The rules are Slurm's own (src/common/slurm_protocol_defs.c, {@code unfmt_job_id_string}, and
 * slurm.h): decimal numbers read as unsigned 32-bit values; a job id is never 0 and stays below
 * NO_VAL (0xfffffffe): MAX_JOB_ID (0x03ffffff) bounds bits 0-25 only, the bits above name the
 * cluster of a federated job; an array task id stays below MaxArraySize's ceiling (4,000,001); a
 * het offset below MAX_HET_JOB_COMPONENTS (128). Leading zeros are read as Slurm's strtoul reads them and dropped,
 * so {@code 0123} and {@code 123} are one id. Signs, blanks and anything else are refused, where
 * strtoul would skip or accept some of them.
 *
 * <p>The array expression {@code 123_[1-3]} is refused: scancel and {@code scontrol update} take it
 * to act on many tasks at once, and no write of this toolkit means to act on more than one job.
 */
public final class JobId {

    /** Longer than any valid id ("4294967293_4000000" is 18), short enough that nothing is hoarded. */
    public static final int MAX_LENGTH = 32;

    static final long MAX_JOB = 0xfffffffdL;
    static final long MAX_ARRAY_TASK = 4_000_000L;
    static final long MAX_HET_OFFSET = 127L;

    private final long job;
    private final char separator;
    private final long component;

    private JobId(long job, char separator, long component) {
        this.job = job;
        this.separator = separator;
        this.component = component;
    }

    /** The id, or an {@link InvalidJobIdException} that quotes the text. */
    public static JobId parse(String text) {
        if (text == null) {
            throw new InvalidJobIdException("job id", null, "none given");
        }
        if (text.length() > MAX_LENGTH) {
            throw new InvalidJobIdException("job id", text, "longer than " + MAX_LENGTH + " characters");
        }
        int split = firstOf(text, '_', '+');
        if (split < 0) {
            return new JobId(number(text, text, "job id", 1, MAX_JOB), '\0', 0);
        }
        long job = number(text, text.substring(0, split), "job id", 1, MAX_JOB);
        char separator = text.charAt(split);
        String rest = text.substring(split + 1);
        if (separator == '_' && rest.startsWith("[")) {
            throw new InvalidJobIdException(
                    "job id", text, "an array expression names many tasks; give one task, such as " + job + "_1");
        }
        long component = separator == '_'
                ? number(text, rest, "array task id", 0, MAX_ARRAY_TASK)
                : number(text, rest, "het job offset", 0, MAX_HET_OFFSET);
        return new JobId(job, separator, component);
    }

    /** The id, or empty for anything {@link #parse} refuses. */
    public static Optional<JobId> tryParse(String text) {
        try {
            return Optional.of(parse(text));
        } catch (InvalidJobIdException e) {
            return Optional.empty();
        }
    }

    public static boolean isValid(String text) {
        return tryParse(text).isPresent();
    }

    public static JobId of(long job) {
        return parse(Long.toString(job));
    }

    /** The number before any {@code _} or {@code +}: the array's or het job's own id. */
    public long jobNumber() {
        return job;
    }

    public OptionalLong arrayTask() {
        return separator == '_' ? OptionalLong.of(component) : OptionalLong.empty();
    }

    public OptionalLong hetOffset() {
        return separator == '+' ? OptionalLong.of(component) : OptionalLong.empty();
    }

    /** Step {@code step} of this job ({@code 0}, {@code batch}, {@code extern}...). */
    public StepId step(String step) {
        return StepId.parse(this + "." + step);
    }

    /** As Slurm's commands take it: {@code 123}, {@code 123_4} or {@code 123+1}. */
    @Override
    public String toString() {
        return separator == '\0' ? Long.toString(job) : job + String.valueOf(separator) + component;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JobId id && id.job == job && id.separator == separator && id.component == component;
    }

    @Override
    public int hashCode() {
        return Objects.hash(job, separator, component);
    }

    private static int firstOf(String text, char a, char b) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == a || c == b) {
                return i;
            }
        }
        return -1;
    }

    /** A decimal in [min, max]; ASCII digits only (Character.isDigit would take other scripts' digits). */
    static long number(String whole, String digits, String what, long min, long max) {
        if (digits.isEmpty()) {
            throw new InvalidJobIdException("job id", whole, what + " is empty");
        }
        long value = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw new InvalidJobIdException("job id", whole, what + " has a character other than 0-9");
            }
            value = value * 10 + (c - '0');
            if (value > max) {
                throw new InvalidJobIdException("job id", whole, what + " is above " + max);
            }
        }
        if (value < min) {
            throw new InvalidJobIdException("job id", whole, what + " is below " + min);
        }
        return value;
    }
}
