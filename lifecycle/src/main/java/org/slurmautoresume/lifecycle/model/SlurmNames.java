package org.slurmautoresume.lifecycle.model;

import java.util.regex.Pattern;

/** What Slurm accepts as a node or partition name in slurm.conf (no blanks, commas, '=', '#' or brackets). */
public final class SlurmNames {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    private static final Pattern DNS_NAME = Pattern.compile(
            "(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

    private SlurmNames() {}

    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    public static boolean isValidDnsName(String name) {
        return name != null && DNS_NAME.matcher(name).matches();
    }
}
