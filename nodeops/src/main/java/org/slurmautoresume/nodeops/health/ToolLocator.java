package org.slurmautoresume.nodeops.health;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds programs on a PATH, as a shell would. Checks run the absolute path found here: Java
 * resolves a bare program name against the JVM's own PATH, not the one a caller (or a test)
 * chose, and "not on PATH" is how a check knows to skip rather than fail.
 */
public final class ToolLocator {

    /** What slurmd's HealthCheckProgram environment may lack; sbin holds dmesg on some systems. */
    public static final String FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final List<Path> directories;

    public ToolLocator(String pathVariable) {
        List<Path> dirs = new ArrayList<>();
        for (String entry : (pathVariable == null ? "" : pathVariable).split(":")) {
            if (entry.isEmpty()) {
                continue;
            }
            try {
                dirs.add(Path.of(entry));
            } catch (InvalidPathException e) {
                // an unusable PATH entry is ignored, as a shell ignores it
            }
        }
        this.directories = List.copyOf(dirs);
    }

    /** PATH from the environment, or {@link #FALLBACK_PATH} when it has none. */
    public static ToolLocator fromEnvironment(Map<String, String> environment) {
        String path = environment.get("PATH");
        return new ToolLocator(path == null || path.isBlank() ? FALLBACK_PATH : path);
    }

    /** The first executable regular file called {@code name} on the PATH. */
    public Optional<Path> find(String name) {
        if (name.isEmpty() || name.contains("/")) {
            throw new IllegalArgumentException("a program name, not a path: \"" + name + "\"");
        }
        for (Path dir : directories) {
            Path candidate = dir.resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toAbsolutePath());
            }
        }
        return Optional.empty();
    }
}
