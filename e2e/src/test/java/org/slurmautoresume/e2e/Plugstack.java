package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * SPANK plugins installed into the local cluster's plugstack.conf.d for one test class:
 * built from spank-shim/, copied into a directory of their own (a running srun may still have
 * an earlier copy mapped), named by snippets that are replaced atomically and removed again,
 * together with anything an earlier run that died left behind.
 */
final class Plugstack {

    private final LocalCluster cluster;
    private final String prefix;
    private final Path plugstackDir;
    private final Path installDir;

    private Plugstack(LocalCluster cluster, String prefix) {
        this.cluster = cluster;
        this.prefix = prefix;
        this.plugstackDir = cluster.plugstackDir();
        this.installDir =
                cluster.clusterDir().resolve(prefix + ProcessHandle.current().pid());
    }

    /**
     * Builds the plugins ({@code make all probe}) and copies the named .so files in, from the
     * build that fits the cluster's Slurm release ({@link LocalCluster#spankBuildDir()}).
     */
    static Plugstack install(LocalCluster cluster, String prefix, List<String> sharedObjects) {
        Plugstack plugstack = new Plugstack(cluster, prefix);
        plugstack.removeAll();
        Path shim = cluster.repo().resolve("spank-shim");
        CommandResult make = cluster.run(List.of("make", "-C", shim.toString(), "all", "probe"));
        assertTrue(make.succeeded(), () -> "make failed:\n" + make.stdout() + make.stderr());
        try {
            Files.createDirectories(plugstack.installDir);
            Files.setPosixFilePermissions(plugstack.installDir, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (String so : sharedObjects) {
                Path target = plugstack.installDir.resolve(so);
                Files.copy(cluster.spankBuildDir().resolve(so), target, StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return plugstack;
    }

    /** Enables the installed auto_resume.so, handing supervised steps to {@code supervisor}. */
    void useAutoResume(Path supervisor) {
        writeSnippet("auto_resume", "optional " + sharedObject("auto_resume.so") + " supervisor=" + supervisor);
    }

    Path installDir() {
        return installDir;
    }

    Path sharedObject(String name) {
        return installDir.resolve(name);
    }

    /** Writes (or replaces in one step) the snippet {@code <prefix><name>.conf}. */
    void writeSnippet(String name, String line) {
        Path snippet = plugstackDir.resolve(prefix + name + ".conf");
        Path temporary = plugstackDir.resolve("." + prefix + name + ".tmp");
        try {
            Files.writeString(temporary, line + "\n");
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(temporary, snippet, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This prefix's snippets and install directories, also those of an earlier run that died. */
    void removeAll() {
        remove(cluster, name -> name.contains(prefix)); // also ".<prefix>...tmp" files
    }

    /**
     * What test classes of an earlier, interrupted run left (their prefixes read {@code NN-name-it-}):
     * a snippet of theirs still loaded by every srun would change what the other classes see.
     * Called once per test run, before any class installs its own.
     */
    static void removeLeftovers(LocalCluster cluster) {
        remove(cluster, name -> name.matches("\\.?\\d\\d-[a-z0-9-]+-it-.*"));
    }

    private static void remove(LocalCluster cluster, Predicate<String> ours) {
        try {
            try (Stream<Path> snippets = Files.list(cluster.plugstackDir())) {
                for (Path p : snippets.filter(p -> ours.test(p.getFileName().toString()))
                        .toList()) {
                    Files.delete(p);
                }
            }
            try (Stream<Path> dirs = Files.list(cluster.clusterDir())) {
                for (Path dir :
                        dirs.filter(p -> ours.test(p.getFileName().toString())).toList()) {
                    try (Stream<Path> tree = Files.walk(dir)) {
                        for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
                            Files.delete(p);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
