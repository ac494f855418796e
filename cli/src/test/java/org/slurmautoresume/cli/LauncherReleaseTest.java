package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.model.SlurmVersion;

class LauncherReleaseTest {

    @TempDir
    Path dir;

    @Test
    void readsTheReleaseScontrolPrinted() throws IOException {
        assertEquals(Optional.of(SlurmVersion.parse("24.11.5")), LauncherRelease.read(pipe("slurm 24.11.5\n"), WAIT));
        assertEquals(
                Optional.of(SlurmVersion.parse("22.05.8")), LauncherRelease.read(pipe("slurm-wlm 22.05.8\n"), WAIT));
    }

    @Test
    void anEmptyOrStrangeAnswerLeavesTheAskingToTheCommand() throws IOException {
        assertEquals(Optional.empty(), LauncherRelease.read(pipe(""), WAIT));
        assertEquals(
                Optional.empty(),
                LauncherRelease.read(pipe("scontrol: fatal: Could not establish a configuration source\n"), WAIT));
        assertEquals(Optional.empty(), LauncherRelease.read(Optional.of(dir.resolve("absent")), WAIT));
        assertEquals(Optional.empty(), LauncherRelease.read(Optional.empty(), WAIT));
    }

    @Test
    void aPipeThatNeverAnswersIsGivenUpOnAfterTheWait() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        // Nobody writes: the read blocks until the wait ends, and the command asks scontrol itself.
        assertEquals(Optional.empty(), LauncherRelease.read(Optional.of(fifo), Duration.ofMillis(200)));
    }

    @Test
    void onlyADescriptorNumberNamesAPipe() {
        assertEquals(Optional.of(Path.of("/proc/self/fd/63")), LauncherRelease.pipe(Map.of(LauncherRelease.FD, "63")));
        assertEquals(Optional.empty(), LauncherRelease.pipe(Map.of(LauncherRelease.FD, "../../etc/passwd")));
        assertEquals(Optional.empty(), LauncherRelease.pipe(Map.of(LauncherRelease.FD, "")));
        assertEquals(Optional.empty(), LauncherRelease.pipe(Map.of()));
    }

    @Test
    void thePluginsReleaseNeedsNoAskingAndNothingKnownAsksScontrol() {
        assertEquals(
                OutputFormat.TEXT,
                new CliHarness(Map.of("AUTORESUME_SLURM_VERSION", "22.05.8"))
                        .context()
                        .slurmFormat());
        assertEquals(
                OutputFormat.JSON,
                new CliHarness(Map.of("AUTORESUME_SLURM_VERSION", "24.11.5"))
                        .context()
                        .slurmFormat());
        assertEquals(OutputFormat.AUTO, new CliHarness(Map.of()).context().slurmFormat());
    }

    private static final Duration WAIT = Duration.ofSeconds(5);

    private Optional<Path> pipe(String text) throws IOException {
        return Optional.of(Files.writeString(dir.resolve("pipe"), text));
    }
}
