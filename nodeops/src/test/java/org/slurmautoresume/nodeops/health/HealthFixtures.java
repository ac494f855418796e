package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The constructed tool outputs under src/test/resources/health (see the README there). */
public final class HealthFixtures {

    private HealthFixtures() {}

    public static String read(String name) {
        try (InputStream in = HealthFixtures.class.getResourceAsStream("/health/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no fixture /health/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A file holding the fixture: the resource itself when it is on disk, else (read from the
     * test-jar other modules use) a temporary copy. Directories only work from disk.
     */
    public static Path path(String name) {
        URL url = HealthFixtures.class.getResource("/health/" + name);
        if (url == null) {
            throw new IllegalStateException("no fixture /health/" + name);
        }
        try {
            if (url.getProtocol().equals("file")) {
                return Path.of(url.toURI());
            }
            Path copy =
                    Files.createTempFile("health-fixture-", "-" + Path.of(name).getFileName());
            copy.toFile().deleteOnExit();
            Files.writeString(copy, read(name), StandardCharsets.UTF_8);
            return copy;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
