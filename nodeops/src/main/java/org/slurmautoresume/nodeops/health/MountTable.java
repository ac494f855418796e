package org.slurmautoresume.nodeops.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * The kernel's mount table ({@code /proc/mounts}: device, mount point, type, options, two
 * numbers per line; blanks in names written as octal {@code \040}). Later lines mount over
 * earlier ones, so lookups take the last match.
 */
public record MountTable(List<Mount> mounts) {

    public record Mount(String device, String mountPoint, String type, Set<String> options) {

        public boolean readOnly() {
            return options.contains("ro");
        }
    }

    public MountTable {
        mounts = List.copyOf(mounts);
    }

    public static MountTable parse(String text) {
        List<Mount> mounts = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.strip().split("\\s+");
            if (fields.length < 4) {
                throw new ParseException("mount table line with fewer than 4 fields", line);
            }
            mounts.add(new Mount(unescape(fields[0]), unescape(fields[1]), fields[2], Set.of(fields[3].split(","))));
        }
        return new MountTable(mounts);
    }

    /** The mount whose mount point is exactly this path (the last one, when mounted over). */
    public Optional<Mount> at(String mountPoint) {
        Mount found = null;
        for (Mount mount : mounts) {
            if (mount.mountPoint().equals(mountPoint)) {
                found = mount;
            }
        }
        return Optional.ofNullable(found);
    }

    /** {@code \040} -> blank, {@code \011} -> tab, and so on: the kernel's octal escapes. */
    static String unescape(String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\'
                    && i + 3 < field.length()
                    && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
