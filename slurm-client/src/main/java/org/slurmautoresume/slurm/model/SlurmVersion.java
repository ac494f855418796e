package org.slurmautoresume.slurm.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Slurm release such as 22.05.8, read from {@code scontrol --version}. */
public record SlurmVersion(int major, int minor, int patch) implements Comparable<SlurmVersion> {

    private static final Pattern VERSION = Pattern.compile("(\\d{2})\\.(\\d{2})(?:\\.(\\d+))?");

    /** The first release whose scontrol has {@code --json}. */
    public static final SlurmVersion FIRST_WITH_JSON = new SlurmVersion(23, 2, 0);

    public static SlurmVersion parse(String text) {
        Matcher matcher = VERSION.matcher(text);
        if (!matcher.find()) {
            throw new IllegalArgumentException("no Slurm version in: " + text.strip());
        }
        int patch = matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3));
        return new SlurmVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)), patch);
    }

    public boolean atLeast(SlurmVersion other) {
        return compareTo(other) >= 0;
    }

    @Override
    public int compareTo(SlurmVersion other) {
        if (major != other.major) {
            return Integer.compare(major, other.major);
        }
        if (minor != other.minor) {
            return Integer.compare(minor, other.minor);
        }
        return Integer.compare(patch, other.patch);
    }

    /**
     * As Slurm writes it: 22.05.8. Not String.format, whose first use loads the locale data (about
     * 15 ms of a short command that prints or compares a release).
     */
    @Override
    public String toString() {
        return twoDigits(major) + "." + twoDigits(minor) + "." + patch;
    }

    private static String twoDigits(int n) {
        return n >= 0 && n < 10 ? "0" + n : Integer.toString(n);
    }
}
