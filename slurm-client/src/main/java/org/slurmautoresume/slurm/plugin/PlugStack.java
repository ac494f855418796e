package org.slurmautoresume.slurm.plugin;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The SPANK plugins a node's plugstack configuration lists, read as srun reads it: slurm.conf
 * ({@code SLURM_CONF}, else /etc/slurm/slurm.conf) names it in {@code PlugStackConfig}, else it is
 * plugstack.conf beside slurm.conf; each line is {@code required|optional PLUGIN [ARGS]}, and
 * {@code include PATTERN} reads further files (a glob, relative to the including file's folder).
 */
public final class PlugStack {

    /** A plugin line: the plugin as listed (relative ones under slurm.conf's PluginDir) and where. */
    public record Entry(Path plugin, boolean optional, Path listedIn) {}

    private static final Path DEFAULT_SLURM_CONF = Path.of("/etc/slurm/slurm.conf");
    private static final int MAX_INCLUDE_DEPTH = 8;

    private PlugStack() {}

    /** The plugstack file this environment's srun reads. */
    public static Path configFile(Map<String, String> environment) throws IOException {
        Path slurmConf = Optional.ofNullable(environment.get("SLURM_CONF"))
                .filter(s -> !s.isBlank())
                .map(Path::of)
                .orElse(DEFAULT_SLURM_CONF);
        Optional<String> named = value(slurmConf, "PlugStackConfig");
        Path dir = slurmConf.toAbsolutePath().getParent();
        return named.map(Path::of).map(p -> p.isAbsolute() ? p : dir.resolve(p)).orElse(dir.resolve("plugstack.conf"));
    }

    /** slurm.conf's PluginDir (its first folder), where plugins listed by a bare name are looked for. */
    public static Optional<Path> pluginDir(Map<String, String> environment) throws IOException {
        Path slurmConf = Optional.ofNullable(environment.get("SLURM_CONF"))
                .filter(s -> !s.isBlank())
                .map(Path::of)
                .orElse(DEFAULT_SLURM_CONF);
        return value(slurmConf, "PluginDir").map(dirs -> Path.of(dirs.split(":")[0]));
    }

    /** Every plugin line of {@code plugstack} and the files it includes, in order; none when it does not exist. */
    public static List<Entry> entries(Path plugstack) throws IOException {
        List<Entry> entries = new ArrayList<>();
        if (Files.exists(plugstack)) {
            read(plugstack, entries, 0);
        }
        return entries;
    }

    private static void read(Path file, List<Entry> entries, int depth) throws IOException {
        if (depth > MAX_INCLUDE_DEPTH) {
            throw new IOException(file + ": includes nested over " + MAX_INCLUDE_DEPTH + " deep");
        }
        for (String raw : Files.readAllLines(file)) {
            String line = raw.replaceFirst("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            String first = words[0].toLowerCase(Locale.ROOT);
            if (first.equals("include") && words.length >= 2) {
                for (Path included : glob(file.toAbsolutePath().getParent(), words[1])) {
                    read(included, entries, depth + 1);
                }
            } else if ((first.equals("required") || first.equals("optional")) && words.length >= 2) {
                entries.add(new Entry(Path.of(words[1]), first.equals("optional"), file));
            }
        }
    }

    /** The files a pattern names, sorted; the pattern's folder part is taken literally. */
    private static List<Path> glob(Path base, String pattern) throws IOException {
        Path full = base.resolve(pattern);
        Path dir = full.getParent();
        List<Path> found = new ArrayList<>();
        if (dir == null || !Files.isDirectory(dir)) {
            return found;
        }
        try (DirectoryStream<Path> stream =
                Files.newDirectoryStream(dir, full.getFileName().toString())) {
            for (Path path : stream) {
                if (Files.isRegularFile(path)) {
                    found.add(path);
                }
            }
        }
        found.sort(null);
        return found;
    }

    /** A {@code Key=Value} of a slurm.conf-style file (keys case-insensitive), when the file has it. */
    private static Optional<String> value(Path conf, String key) throws IOException {
        if (!Files.isRegularFile(conf)) {
            return Optional.empty();
        }
        for (String raw : Files.readAllLines(conf)) {
            String line = raw.replaceFirst("#.*", "").strip();
            int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).strip().equalsIgnoreCase(key)) {
                return Optional.of(line.substring(eq + 1).strip()).filter(v -> !v.isEmpty());
            }
        }
        return Optional.empty();
    }
}
