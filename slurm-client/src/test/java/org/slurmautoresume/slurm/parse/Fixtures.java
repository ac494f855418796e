package org.slurmautoresume.slurm.parse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Command output kept as test resources: real output recorded on the local 22.05 cluster, and
 * output constructed from the print formats and JSON schemas of newer releases (each folder's
 * README.md says which).
 */
public final class Fixtures {

    /**
     * Folders holding {@code scontrol -o} text fixtures, oldest first (24.11's real captures have
     * their own test, Slurm2411CaptureTest; 25.05 and 25.11 reprint them).
     */
    public static final List<String> TEXT_VERSIONS =
            List.of("slurm-22.05", "slurm-23.11", "slurm-24.05", "slurm-25.05", "slurm-25.11");

    private Fixtures() {}

    public static Path dir(String version) {
        URL url = Fixtures.class.getResource("/fixtures/" + version);
        if (url == null) {
            throw new IllegalStateException("no fixtures for " + version);
        }
        try {
            java.net.URI uri = url.toURI();
            if (uri.getScheme().equals("jar")) {
                // Other modules read the fixtures from slurm-client's test-jar: its file system, opened once.
                try {
                    java.nio.file.FileSystems.getFileSystem(uri);
                } catch (java.nio.file.FileSystemNotFoundException notYet) {
                    try {
                        java.nio.file.FileSystems.newFileSystem(uri, java.util.Map.of());
                    } catch (java.nio.file.FileSystemAlreadyExistsException raced) {
                        // another test thread opened it meanwhile
                    }
                }
            }
            return Path.of(uri);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Works from a directory and from the test-jar other modules use. */
    public static String read(String version, String name) {
        String resource = "/fixtures/" + version + "/" + name;
        try (java.io.InputStream in = Fixtures.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no fixture " + resource);
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Every text fixture of a version whose name starts with the prefix, sorted; error messages
     * scontrol printed instead of records ({@code *.stderr.txt}, and {@code *.error.txt} for
     * the ones it wrote to stdout) are left out.
     */
    public static Stream<String> named(String version, String prefix) {
        return named(version, prefix, ".txt");
    }

    /** Every fixture of a version whose name starts with the prefix and ends with the suffix, sorted. */
    public static Stream<String> named(String version, String prefix, String suffix) {
        try (Stream<Path> files = Files.list(dir(version))) {
            return files
                    .map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(prefix)
                            && n.endsWith(suffix)
                            && !n.endsWith(".stderr.txt")
                            && !n.endsWith(".error.txt"))
                    .sorted()
                    .toList()
                    .stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** (version, fixture) for every text fixture of every version whose name starts with the prefix. */
    public static Stream<Arguments> namedInEveryVersion(String prefix) {
        return TEXT_VERSIONS.stream()
                .flatMap(version -> named(version, prefix).map(name -> Arguments.of(version, name)));
    }

    /** The record rebuilt from parsed fields, blanks normalised: equal to the input iff nothing was lost or merged. */
    static String rebuild(Map<String, String> raw) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> field : raw.entrySet()) {
            String key = field.getKey();
            int hash = key.indexOf('#');
            out.append(hash < 0 ? key : key.substring(0, hash))
                    .append('=')
                    .append(field.getValue())
                    .append(' ');
        }
        return normalise(out.toString());
    }

    static String normalise(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }

    static List<String> records(String output) {
        return RecordSplitter.records(output);
    }
}
