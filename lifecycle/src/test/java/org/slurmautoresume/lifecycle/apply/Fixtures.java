package org.slurmautoresume.lifecycle.apply;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.lifecycle.validate.ConfigValidator;
import org.slurmautoresume.lifecycle.validate.ValidationReport;

/** Validated fixture files and fake hosts for the apply tests. */
final class Fixtures {

    private Fixtures() {}

    /** Reads and validates a provisioning/resource pair; the test fails if they do not validate. */
    static ValidationReport validated(Path provisioning, Path resources) {
        ValidationReport report = ConfigValidator.validate(provisioning, Optional.of(resources), Optional.empty());
        assertTrue(report.ok(), report.errors().toString());
        return report;
    }

    static Path resource(String name) {
        try {
            return Path.of(Fixtures.class.getClassLoader().getResource(name).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static String text(String name) throws IOException {
        try (InputStream in = Fixtures.class.getClassLoader().getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static LocalHost host(List<String> addresses, String hostname) {
        return new LocalHost() {
            @Override
            public List<String> addresses() {
                return addresses;
            }

            @Override
            public Optional<String> hostname() {
                return Optional.ofNullable(hostname);
            }
        };
    }
}
