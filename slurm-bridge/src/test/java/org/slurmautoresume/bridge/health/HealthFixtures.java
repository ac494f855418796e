package org.slurmautoresume.bridge.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The constructed tool outputs under src/test/resources/health (see the README there). */
public final class HealthFixtures {

    private HealthFixtures() {
    }

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

    public static Path path(String name) {
        URL url = HealthFixtures.class.getResource("/health/" + name);
        if (url == null) {
            throw new IllegalStateException("no fixture /health/" + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
