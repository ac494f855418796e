package org.slurmautoresume.slurm.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * The release read from real plugin files: the host's own Slurm plugins (installed with Slurm,
 * which install-deps.sh installs) were built for the release its srun reports.
 */
class PluginReleaseTest {

    @TempDir
    Path dir;

    @Test
    void theHostsSlurmPluginsWereBuiltForTheReleaseItsSrunReports() throws Exception {
        SlurmVersion running = SlurmVersion.parse(srunVersion());
        Path plugin = HostPlugins.selectConsTres();

        Optional<SlurmVersion> built = PluginRelease.builtFor(plugin);

        assertEquals(Optional.of(running), built, plugin.toString());
        assertTrue(PluginRelease.loadsInto(built.orElseThrow(), running));
    }

    @Test
    void anElfLibraryWithoutThePluginSymbolHasNoRelease() throws IOException {
        Path library = Stream.of(
                        "/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6")
                .map(Path::of)
                .filter(Files::isRegularFile)
                .findFirst()
                .orElseThrow();
        assertEquals(Optional.empty(), PluginRelease.builtFor(library));
    }

    @Test
    void aFileThatIsNotElfIsSaidSo() throws IOException {
        Path text = Files.writeString(
                dir.resolve("auto_resume.so"), "optional /x/auto_resume.so\n", StandardCharsets.UTF_8);
        IOException e = assertThrows(IOException.class, () -> PluginRelease.builtFor(text));
        assertTrue(e.getMessage().contains("not a 64-bit little-endian ELF file"), e.getMessage());
        Path truncated = dir.resolve("truncated.so");
        Files.write(truncated, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0});
        assertThrows(IOException.class, () -> PluginRelease.builtFor(truncated));
    }

    @Test
    void onlyTheSameMajorAndMinorLoad() {
        SlurmVersion built = new SlurmVersion(22, 5, 8);
        assertTrue(PluginRelease.loadsInto(built, new SlurmVersion(22, 5, 11)));
        assertFalse(PluginRelease.loadsInto(built, new SlurmVersion(24, 11, 1)));
        assertFalse(PluginRelease.loadsInto(built, new SlurmVersion(23, 2, 8)));
    }

    static String srunVersion() throws Exception {
        Process srun = new ProcessBuilder("srun", "--version")
                .redirectErrorStream(true)
                .start();
        assertTrue(srun.waitFor(30, TimeUnit.SECONDS), "srun --version did not end");
        return new String(srun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
