package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExitStopsTest {

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final ExitStops stops =
            new ExitStops("autoresume agent", new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    private final List<String> stopped = new ArrayList<>();

    @Test
    void partsStopLastStartedFirstAndAFailingOneDoesNotKeepTheOthers() {
        stops.add("the audit log", () -> stopped.add("audit"));
        stops.add("the metrics server", () -> {
            throw new IllegalStateException("port gone");
        });
        stops.add("the socket server", () -> stopped.add("socket"));

        stops.stopAll();

        assertEquals(List.of("socket", "audit"), stopped);
        String err = errBytes.toString(StandardCharsets.UTF_8);
        assertTrue(
                err.contains("autoresume agent: stopping the metrics server failed") && err.contains("port gone"), err);
    }

    @Test
    void aPartAddedAfterTheStopIsStoppedAtOnceAndEachPartStopsOnce() {
        stops.add("the audit log", () -> stopped.add("audit"));
        stops.stopAll();
        // Still starting when the SIGTERM came: what starts next must not outlive the stop.
        stops.add("the socket server", () -> stopped.add("socket"));
        stops.stopAll();

        assertEquals(List.of("audit", "socket"), stopped);
    }
}
